import { ROLLOUT_CONTINUE_ACTION, ROLLOUT_STOP_ACTION } from '../blocks/rollout.js';
import { code } from '../blocks/text.js';
import type { SlackDeps } from '../deps.js';
import type { SlackRoutes } from '../slack-routes.js';
import { actorOf, onApprovalClick, onClick } from './change-buttons.js';

/** The clicks these listeners answer (the guards refuse any action without a listener). */
export const ROLLOUT_ACTIONS = [ROLLOUT_CONTINUE_ACTION, ROLLOUT_STOP_ACTION];

/**
 * Continue and Stop on a halted rollout's thread (Revert the done sites is the Revert button):
 * acknowledged at once, decided by the approvals module (the gate), shown by the presenter.
 */
export function registerRolloutButtons(routes: SlackRoutes, deps: SlackDeps): void {
  // Deliberately alike: buttons are registered one by one by action_id; what they share is in onClick.
  routes.action(
    ROLLOUT_CONTINUE_ACTION,
    onApprovalClick(deps, (id, actor) => deps.approvals.continueRollout(id, actor)),
  );
  routes.action(
    ROLLOUT_STOP_ACTION,
    onClick(deps, async (click, whisper) => {
      const actor = actorOf(click);
      const stopped = await deps.approvals.stopRollout(click.actions[0]?.value ?? '', actor);
      const text = `:octagonal_sign: Rollout ${code(stopped.id)} stopped by <@${actor.userId}>: the done sites stay as they are, nothing more is written.`;
      await deps.presenter.threadNote(stopped, text);
      await whisper(text);
    }),
  );
}
