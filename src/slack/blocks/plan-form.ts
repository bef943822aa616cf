import type { types } from '@slack/bolt';
import { MAX_SET_STEPS } from '../../changes/change-set.js';
import { plainText as text } from './text.js';

/** callback_id of the modal `/net plan` alone opens. */
export const PLAN_FORM_CALLBACK = 'plan_form';
/** The multi-line input with one write per line. */
export const PLAN_STEPS_BLOCK = 'steps';
export const PLAN_TITLE_BLOCK = 'title';
export const PLAN_FAILURE_BLOCK = 'on_failure';
export const PLAN_VALUE_ACTION = 'value';

/** The modal for a change set: the steps, one write per line, an optional title, what a failure does. */
export function planFormView(channel: string, prefill = ''): types.View {
  const rollback = { text: text('Revert the steps done before it'), value: 'rollback' };
  const stop = { text: text('Leave the steps done before it'), value: 'stop' };
  return {
    type: 'modal',
    callback_id: PLAN_FORM_CALLBACK,
    private_metadata: JSON.stringify({ channel }),
    title: text('Change set'),
    submit: text('Preview'),
    close: text('Cancel'),
    blocks: [
      {
        type: 'input',
        block_id: PLAN_STEPS_BLOCK,
        label: text('Steps, one write per line'),
        hint: text(
          `As after /net, e.g. create_network name=Lab vlan_id=40 subnet=10.70.0.0/24, then assign_network_to_zone zone_id=Dmz network_id=Lab. At most ${MAX_SET_STEPS} steps, run in order.`,
        ),
        element: {
          type: 'plain_text_input',
          action_id: PLAN_VALUE_ACTION,
          multiline: true,
          ...(prefill !== '' ? { initial_value: prefill } : {}),
        },
      },
      {
        type: 'input',
        block_id: PLAN_TITLE_BLOCK,
        optional: true,
        label: text('Title'),
        element: { type: 'plain_text_input', action_id: PLAN_VALUE_ACTION, max_length: 120 },
      },
      {
        type: 'input',
        block_id: PLAN_FAILURE_BLOCK,
        label: text('If a step fails'),
        element: {
          type: 'static_select',
          action_id: PLAN_VALUE_ACTION,
          initial_option: rollback,
          options: [rollback, stop],
        },
      },
    ],
  };
}
