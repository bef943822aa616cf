import type { FakeSlack, SlackCall } from './fake-slack.js';
import { buttonBody, socketPayload } from './slack-requests.js';

/** A button as the bot renders it in Block Kit. */
export interface Button {
  action_id: string;
  value: string;
}

/** The buttons of every `actions` block in a list of blocks (a message's or a view's). */
export function buttonsIn(blocks: unknown): Button[] {
  return ((Array.isArray(blocks) ? blocks : []) as { type?: string; elements?: Button[] }[])
    .filter((b) => b.type === 'actions')
    .flatMap((b) => b.elements ?? []);
}

/** A button click as Socket Mode carries it: the block_actions payload itself (buttonBody's, unwrapped). */
export function clickPayload(fields: Parameters<typeof buttonBody>[0]): Record<string, unknown> {
  return socketPayload(buttonBody(fields));
}

/** The buttons of a message the bot posted or updated. */
export function buttonsOf(call: SlackCall | undefined): Button[] {
  return buttonsIn(call?.args.blocks);
}

/** Resolves once the Keep prompt of change `id` is posted in its thread (the change ran, timed). */
export async function keepPromptPosted(slack: FakeSlack, id: string, timeoutMs = 20_000): Promise<void> {
  await slack.waitFor(
    () =>
      slack
        .callsOf('chat.postMessage')
        .some(
          (c) =>
            c.args.thread_ts && buttonsOf(c).some((b) => b.action_id === 'keep_change' && b.value === id),
        ),
    timeoutMs,
  );
}
