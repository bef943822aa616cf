import type { FakeSlack, SlackCall } from './fake-slack.js';
import { buttonBody, commandBody, socketPayload } from './slack-requests.js';

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

/** The change id on the Approve button of a preview the bot posted; throws when it has none. */
export function requestIdOf(call: SlackCall | undefined): string {
  const approve = buttonsOf(call).find((b) => b.action_id === 'approve');
  if (!approve?.value) throw new Error('the preview has no approve button');
  return approve.value;
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

/** Previews the bot posted at the top of channel C1 (not in a thread). */
const c1Previews = (slack: FakeSlack) =>
  slack.callsOf('chat.postMessage').filter((c) => !c.args.thread_ts && c.args.channel === 'C1');

// Deliberately alike: each helper signs one Slack action as its user; they differ in the body they post.
/**
 * Posts the signed `/net <text>` as `userId` in C1, waits for the preview the bot posts there,
 * and returns its Approve button's change id.
 */
export async function proposeInC1(
  slack: FakeSlack,
  post: (body: string) => Promise<unknown>,
  text: string,
  userId = 'U1',
): Promise<string> {
  const before = c1Previews(slack).length;
  await post(commandBody({ text, user_id: userId, channel_id: 'C1', response_url: slack.responseUrl() }));
  await slack.waitFor(() => c1Previews(slack).length > before, 20_000);
  return buttonsOf(c1Previews(slack).at(-1)).find((b) => b.action_id === 'approve')?.value ?? '';
}

/** Clicks Approve on change `id` as `userId`, a signed request; waits for nothing. */
export async function clickApprove(
  slack: FakeSlack,
  post: (body: string) => Promise<unknown>,
  id: string,
  userId = 'U2',
): Promise<void> {
  await post(buttonBody({ actionId: 'approve', value: id, userId, response_url: slack.responseUrl() }));
}
