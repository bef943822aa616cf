import type { Actor } from './types.js';

/** Prefix of the user id of a change made at the terminal console: `console:<OS user>`. */
export const CONSOLE_REQUESTER_PREFIX = 'console:';

/** What the records say of a console change's approval: the operator approved it at the prompt (or with --yes). */
export const APPROVED_AT_CONSOLE = 'approved at the console';

/**
 * The operator of a console run, as requester and approver of its writes (the prompt's yes, or
 * --yes, is the approval): the OS user, so every face can tell where the change was made.
 */
export function consoleActor(username: string): Actor {
  const name = username.trim() === '' ? 'unknown' : username.trim();
  return { userId: `${CONSOLE_REQUESTER_PREFIX}${name}`, name: `${name} at the console` };
}

/** Who approved a request, in words: a console change says it was approved at the console. */
export function approverText(approver: Actor | undefined): string | undefined {
  if (!approver) return undefined;
  if (isConsoleActor(approver)) {
    return `${APPROVED_AT_CONSOLE} (${approver.userId.slice(CONSOLE_REQUESTER_PREFIX.length)})`;
  }
  return approver.name ?? approver.userId;
}

/** Whether a change was requested (and so approved) at the console. */
export function isConsoleActor(actor: Actor): boolean {
  return actor.userId.startsWith(CONSOLE_REQUESTER_PREFIX);
}
