import type { types } from '@slack/bolt';
import type { ChangeRequest } from '../../approvals/types.js';
import { timingText, verificationText } from '../../changes/describe.js';
import { revertability } from '../../changes/revert.js';
import { clipMrkdwn, code, mrkdwn, mrkdwnSection, mrkdwnText, plainText } from './text.js';

/** action_id of the Revert button: its value is the id of the change to undo. */
export const REVERT_ACTION = 'revert_change';

/**
 * Revert for a change that ran: a button that proposes the undoing change, or, for a change that
 * cannot be reverted, why not. Nothing for a change that did not run.
 */
export function revertBlocks(request: ChangeRequest, blockId: string): types.KnownBlock[] {
  if (request.state !== 'succeeded') return [];
  if (request.revertedBy) {
    return [context(`:leftwards_arrow_with_hook: Reverted by ${code(request.revertedBy)}.`)];
  }
  const can = revertability(request);
  if (!can.ok) return [context(`:no_entry_sign: Cannot be reverted: ${mrkdwn(can.reason)}`)];
  return [
    {
      type: 'actions',
      block_id: `${blockId}-${request.id}`,
      elements: [
        {
          type: 'button',
          action_id: REVERT_ACTION,
          text: plainText('Revert'),
          value: request.id,
        },
      ],
    },
  ];
}

/** The verification of a change that ran, as one section (none before it was read back). */
export function verificationBlocks(request: ChangeRequest): types.KnownBlock[] {
  const text = verificationText(request.verification);
  if (!text) return [];
  const emoji =
    request.verification?.status === 'verified'
      ? ':mag: *Verified*: the controller holds what was sent.'
      : request.verification?.status === 'not_as_sent'
        ? `:warning: *Applied, not as sent*: ${mrkdwn(text.replace(/^applied, not as sent: /, ''))}`
        : `:grey_question: *Not verified*: ${mrkdwn(text.replace(/^not verified: /, ''))}`;
  return [mrkdwnSection(clipMrkdwn(emoji, 2900))];
}

/** `revert_after` / `for` of a request, as a line for its preview (none when neither was given). */
export function timingBlocks(request: ChangeRequest): types.KnownBlock[] {
  const text = timingText(request);
  return text ? [mrkdwnSection(`:stopwatch: ${mrkdwn(text)}`)] : [];
}

function context(composed: string): types.ContextBlock {
  return { type: 'context', elements: [mrkdwnText(clipMrkdwn(composed, 2900))] };
}
