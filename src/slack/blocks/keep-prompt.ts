import type { types } from '@slack/bolt';
import { type PendingRevert, type TimerEvent, timeLeftText } from '../../changes/timers.js';
import type { SlackMessage } from './read-result.js';
import { code, humanize, mrkdwn, mrkdwnSection, plainText, slackDate } from './text.js';

/** The Keep button (value: the change id), in the thread of a keep-or-revert change and on App Home. */
export const KEEP_ACTION = 'keep_change';
/** App Home's Revert now (value: the change id): the automatic revert, at once. */
export const REVERT_NOW_ACTION = 'revert_now';

function keepButton(changeId: string): types.Button {
  return {
    type: 'button',
    action_id: KEEP_ACTION,
    text: plainText('Keep'),
    style: 'primary',
    value: changeId,
  };
}

function revertNowButton(changeId: string): types.Button {
  return {
    type: 'button',
    action_id: REVERT_NOW_ACTION,
    text: plainText('Revert now'),
    value: changeId,
    confirm: {
      title: plainText('Revert this change now?'),
      text: plainText('The change is undone at once, under its original approval.'),
      confirm: plainText('Revert now'),
      deny: plainText('Back'),
      style: 'danger',
    },
  };
}

function changeLine(pending: PendingRevert): string {
  const { deadline, change } = pending;
  const what = change
    ? `*${mrkdwn(humanize(change.tool))}* on ${code(change.site)}`
    : code(deadline.changeId);
  return `${what} (${code(deadline.changeId)})`;
}

/**
 * Posted in the thread of a change made with revert_after=: the deadline, the time left, and Keep.
 * The time left is as of posting; Slack's date shows the deadline in each reader's own time.
 */
export function keepPromptMessage(pending: PendingRevert): SlackMessage {
  const text =
    `:hourglass_flowing_sand: ${changeLine(pending)} reverts itself ${slackDate(pending.deadline.dueAt)} ` +
    `(in ${timeLeftText(pending.msLeft)}) unless someone with approval rights keeps it.`;
  return {
    text,
    blocks: [
      mrkdwnSection(text),
      {
        type: 'actions',
        block_id: `keep:${pending.deadline.changeId}`,
        elements: [keepButton(pending.deadline.changeId)],
      },
    ],
  };
}

const EVENT_ICON: Record<TimerEvent['kind'], string> = {
  scheduled: ':hourglass_flowing_sand:',
  kept: ':white_check_mark:',
  reverted: ':leftwards_arrow_with_hook:',
  revert_failed: ':warning:',
  revert_stopped: ':no_entry:',
  refused: ':rotating_light:',
  unsettled: ':grey_question:',
};

/** A timer event (kept, reverted, revert failed) for the change's thread and AUDIT_CHANNEL. */
export function timerEventMessage(event: TimerEvent): SlackMessage {
  const text = `${EVENT_ICON[event.kind]} ${mrkdwn(event.text)}`;
  return { text, blocks: [mrkdwnSection(text)] };
}

/**
 * App Home's "Temporary and pending-revert changes": each with its time left, Keep (keep-or-revert
 * changes only: a temporary one is meant to end) and Revert now. Empty when nothing is pending.
 */
export function pendingRevertBlocks(pending: readonly PendingRevert[]): types.KnownBlock[] {
  if (pending.length === 0) return [];
  const blocks: types.KnownBlock[] = [
    { type: 'header', text: plainText('Temporary and pending-revert changes') },
  ];
  for (const item of pending.slice(0, 20)) {
    const kind = item.deadline.kind === 'temporary' ? 'temporary' : 'reverts unless kept';
    blocks.push(mrkdwnSection(`${changeLine(item)}: ${kind}, ${timeLeftText(item.msLeft)} left`));
    const elements: types.Button[] = [];
    if (item.deadline.kind === 'keep_or_revert') elements.push(keepButton(item.deadline.changeId));
    elements.push(revertNowButton(item.deadline.changeId));
    blocks.push({ type: 'actions', block_id: `pending_revert:${item.deadline.changeId}`, elements });
  }
  if (pending.length > 20) blocks.push(mrkdwnSection(`…and ${pending.length - 20} more.`));
  return blocks;
}
