import type { SlackCall } from './fake-slack.js';

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

/** The buttons of a message the bot posted or updated. */
export function buttonsOf(call: SlackCall | undefined): Button[] {
  return buttonsIn(call?.args.blocks);
}
