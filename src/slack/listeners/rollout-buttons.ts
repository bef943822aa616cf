import { ROLLOUT_CONTINUE_ACTION, ROLLOUT_STOP_ACTION } from '../blocks/rollout.js';
import { code } from '../blocks/text.js';
import type { SlackDeps } from '../deps.js';
import type { SlackRoutes } from '../slack-routes.js';
import { actorOf, onClick } from './change-buttons.js';

/** The clicks these listeners answer (the guards refuse any action without a listener). */
export const ROLLOUT_ACTIONS = [ROLLOUT_CONTINUE_ACTION, ROLLOUT_STOP_ACTION];

/**
 * Continue and Stop on a halted rollout's thread (Revert the done sites is the Revert button):
 * acknowledged at once, decided by the approvals module (the gate), shown by the presenter.
 */
export function registerRolloutButtons(routes: SlackRoutes, deps: SlackDeps): void {
  routes.action(
    ROLLOUT_CONTINUE_ACTION,
    onClick(deps, async (click, whisper) => {
      const outcome = await deps.approvals.continueRollout(click.actions[0]?.value ?? '', actorOf(click));
      await deps.presenter.showApproval(outcome, whisper);
    }),
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
