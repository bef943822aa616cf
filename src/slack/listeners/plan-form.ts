import { z } from 'zod';
import { parsePlan } from '../../commands/plan.js';
import { ValidationError } from '../../errors.js';
import { settle, settledWithin } from '../../lib/settle-within.js';
import {
  PLAN_FAILURE_BLOCK,
  PLAN_FORM_CALLBACK,
  PLAN_STEPS_BLOCK,
  PLAN_TITLE_BLOCK,
  PLAN_VALUE_ACTION,
} from '../blocks/plan-form.js';
import { plain } from '../blocks/text.js';
import type { SlackDeps } from '../deps.js';
import { slackErrorText } from '../error-text.js';
import { parsePayload, viewSubmissionSchema } from '../payloads.js';
import type { SlackRoutes } from '../slack-routes.js';
import { scopePlanToChannel } from './channel-scope.js';
import { FORM_ACK_BUDGET_MS, postFormProposal } from './tool-form-submission.js';

const metadataSchema = z.object({ channel: z.string().min(1) });

/**
 * The change-set modal (`/net plan` alone). A plan with a bad line or step keeps the
 * modal open with the reason under the steps; a good one closes it and posts the set's preview.
 */
export function registerPlanForm(routes: SlackRoutes, deps: SlackDeps): void {
  routes.view(PLAN_FORM_CALLBACK, async ({ ack, body, client }) => {
    let channel: string;
    let user: string;
    let proposal: ReturnType<typeof settle<Awaited<ReturnType<SlackDeps['approvals']['proposeSet']>>>>;
    try {
      const submission = parsePayload(viewSubmissionSchema, body, 'view');
      user = submission.user.id;
      try {
        channel = metadataSchema.parse(JSON.parse(submission.view.private_metadata)).channel;
      } catch {
        throw new ValidationError([{ field: PLAN_STEPS_BLOCK, rule: 'is not a form this bot opened' }]);
      }
      const values = submission.view.state.values;
      const value = (block: string) => values[block]?.[PLAN_VALUE_ACTION];
      const title = value(PLAN_TITLE_BLOCK)?.value?.trim();
      const onFailure = value(PLAN_FAILURE_BLOCK)?.selected_option?.value === 'stop' ? 'stop' : 'rollback';
      // A channel bound in CONSOLES_FILE: each step on its console, none aimed elsewhere.
      const steps = scopePlanToChannel(
        parsePlan(value(PLAN_STEPS_BLOCK)?.value ?? '', deps.registry),
        channel,
        deps,
      );
      proposal = settle(
        deps.approvals.proposeSet({
          steps,
          ...(title ? { title } : {}),
          onFailure,
          requester: { userId: user },
          channel,
        }),
      );
    } catch (error) {
      await ack({
        response_action: 'errors',
        errors: { [PLAN_STEPS_BLOCK]: plain(slackErrorText(error, deps.logger)) },
      });
      return;
    }
    // Within the budget, a step the preview refuses is told under the steps, the modal still open.
    const early = await settledWithin(proposal, FORM_ACK_BUDGET_MS);
    if (early && !early.ok) {
      await ack({
        response_action: 'errors',
        errors: { [PLAN_STEPS_BLOCK]: plain(slackErrorText(early.error, deps.logger)) },
      });
      return;
    }
    await ack();
    await postFormProposal(early ?? (await proposal), channel, user, client, deps);
  });
}
