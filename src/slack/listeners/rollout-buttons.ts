import { ROLLOUT_CONTINUE_ACTION, ROLLOUT_STOP_ACTION } from '../blocks/rollout.js';
import { code } from '../blocks/text.js';
import type { SlackDeps } from '../deps.js';
import { type ButtonClick, buttonClickSchema, parsePayload } from '../payloads.js';
import { respondTo } from '../response-url.js';
import type { SlackRoutes } from '../slack-routes.js';
import { actorOf, report, whisperTo } from './change-buttons.js';

/** The clicks these listeners answer (the guards refuse any action without a listener). */
export const ROLLOUT_ACTIONS = [ROLLOUT_CONTINUE_ACTION, ROLLOUT_STOP_ACTION];

/**
 * Continue and Stop on a halted rollout's thread (Revert the done sites is the Revert button):
 * acknowledged at once, decided by the approvals module (the gate), shown by the presenter.
 */
export function registerRolloutButtons(routes: SlackRoutes, deps: SlackDeps): void {
  routes.action(ROLLOUT_CONTINUE_ACTION, async ({ ack, body, client }) => {
    await ack();
    const respond = respondTo(body);
    let click: ButtonClick | undefined;
    try {
      click = parsePayload(buttonClickSchema, body, 'action');
      const outcome = await deps.approvals.continueRollout(click.actions[0]?.value ?? '', actorOf(click));
      await deps.presenter.showApproval(outcome, whisperTo(click, client, respond, deps));
    } catch (error) {
      await report(error, click, client, respond, deps);
    }
  });
  routes.action(ROLLOUT_STOP_ACTION, async ({ ack, body, client }) => {
    await ack();
    const respond = respondTo(body);
    let click: ButtonClick | undefined;
    try {
      click = parsePayload(buttonClickSchema, body, 'action');
      const actor = actorOf(click);
      const stopped = await deps.approvals.stopRollout(click.actions[0]?.value ?? '', actor);
      const text = `:octagonal_sign: Rollout ${code(stopped.id)} stopped by <@${actor.userId}>: the done sites stay as they are, nothing more is written.`;
      await deps.presenter.threadNote(stopped, text);
      await whisperTo(click, client, respond, deps)(text);
    } catch (error) {
      await report(error, click, client, respond, deps);
    }
  });
}
