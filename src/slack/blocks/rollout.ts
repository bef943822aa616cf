import type { types } from '@slack/bolt';
import type { ChangeRequest } from '../../approvals/types.js';
import { REVERT_ACTION } from './revert.js';
import { plainText } from './text.js';

/** action_id of Continue on a halted rollout: its value is the rollout's request id. */
export const ROLLOUT_CONTINUE_ACTION = 'rollout_continue';
/** action_id of Stop on a halted rollout. */
export const ROLLOUT_STOP_ACTION = 'rollout_stop';

/**
 * The choices a halted rollout offers in its thread: continue on the sites not yet written, revert
 * every done site as one, or stop where it is. None once it was stopped, reverted or went on.
 */
export function haltedRolloutBlocks(request: ChangeRequest): types.KnownBlock[] {
  const set = request.set;
  const rollout = set?.rollout;
  if (!set || !rollout || request.state !== 'failed' || rollout.stoppedBy || request.revertedBy) return [];
  const left = set.steps.some((step) => step.status === undefined || step.status === 'not_run');
  const done = set.steps.some((step) => step.status === 'done');
  const button = (action: string, text: string, style?: 'primary' | 'danger'): types.Button => ({
    type: 'button',
    action_id: action,
    text: plainText(text),
    value: request.id,
    ...(style ? { style } : {}),
  });
  const elements: types.Button[] = [
    ...(left ? [button(ROLLOUT_CONTINUE_ACTION, 'Continue', 'primary')] : []),
    ...(done ? [button(REVERT_ACTION, 'Revert the done sites', 'danger')] : []),
    ...(left ? [button(ROLLOUT_STOP_ACTION, 'Stop')] : []),
  ];
  return elements.length > 0 ? [{ type: 'actions', block_id: `rollout-halt-${request.id}`, elements }] : [];
}
