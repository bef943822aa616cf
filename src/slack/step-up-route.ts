import type { webApi } from '@slack/bolt';
import type { Approvals } from '../approvals/approvals.js';
import type { ApproveOutcome } from '../changes/outcomes.js';
import type { HttpServer } from '../http-server.js';
import { oidcCallbackRoute, type StepUpFinish } from '../identity/callback.js';
import type { StepUp } from '../identity/step-up.js';
import type { Logger } from '../log.js';
import { noticeMessage } from './blocks/notice.js';
import type { ChangePresenter } from './change-presenter.js';

/** The Slack user's profile email (users.info; needs users:read.email), for step-up matching. */
export function slackUserEmail(client: webApi.WebClient, logger: Logger) {
  return async (userId: string): Promise<string | undefined> => {
    try {
      const answer = await client.users.info({ user: userId });
      const email = answer.user?.profile?.email;
      return typeof email === 'string' && email.length > 0 ? email : undefined;
    } catch (error) {
      logger.warn({ err: error, user: userId }, 'users.info failed; the approver cannot be matched by email');
      return undefined;
    }
  };
}

/**
 * GET /oidc/callback on the bot's port: a sign-in that maps to the approver is their Approve click
 * (or a break-glass requester's word), made again with the identity attached and the preview hash
 * bound at click time, so the gate, the guarded transitions and the message edits are the click's own.
 */
export function registerStepUpCallback(
  server: HttpServer,
  parts: { stepUp: StepUp; approvals: Approvals; presenter: ChangePresenter; client: webApi.WebClient },
  logger: Logger,
): void {
  const { stepUp, approvals, presenter, client } = parts;
  server.route(
    oidcCallbackRoute(
      stepUp,
      async (signIn): Promise<StepUpFinish> => {
        const outcome = await approvals.afterSignIn(signIn, {
          onClaimed: (claimed) => presenter.showRunning(claimed),
        });
        const channel =
          'request' in outcome ? (outcome.request.message?.channel ?? outcome.request.channel) : undefined;
        await presenter.showApproval(outcome, async (text) => {
          if (!channel) return;
          await client.chat
            .postEphemeral({ channel, user: signIn.approver.userId, ...noticeMessage(text) })
            .catch((error: unknown) => logger.warn({ err: error }, 'could not tell the approver in Slack'));
        });
        return signIn.purpose === 'run_on_word' ? wordPageText(outcome) : pageText(outcome);
      },
      logger,
    ),
  );
}

/** What the callback page says: the outcome in plain words. */
export function pageText(outcome: ApproveOutcome): StepUpFinish {
  const id = 'request' in outcome ? outcome.request.id : outcome.id;
  switch (outcome.kind) {
    case 'succeeded':
      return { counted: true, text: `Signed in. Your approval of ${id} counted and the change ran.` };
    case 'failed':
      return {
        counted: true,
        text: `Signed in. Your approval of ${id} counted; the change did not succeed: ${outcome.error.message}`,
      };
    case 'endorsed':
      return {
        counted: true,
        text: `Signed in. Your approval of ${id} is recorded: ${outcome.request.approvedBy?.length ?? 1} of ${outcome.needed} approvals.`,
      };
    case 'scheduled':
      return {
        counted: true,
        text: `Signed in. ${id} is approved and scheduled for ${outcome.request.scheduledFor ?? 'its window'}.`,
      };
    case 'mismatch':
      return {
        counted: false,
        text: `The preview of ${id} changed since you clicked Approve; nothing was approved. Look at the change in Slack again.`,
      };
    case 'drift':
      return {
        counted: false,
        text: `The target of ${id} changed since its preview; nothing ran. A new preview is in Slack.`,
      };
    case 'expired':
      return { counted: false, text: `${id} expired before you signed in; nothing ran.` };
    case 'already':
      return {
        counted: false,
        text: `${id} is no longer waiting for approval (${outcome.request.state}); nothing more was done.`,
      };
    case 'refused':
      return { counted: false, text: `Not approved: ${outcome.reason}.` };
    case 'not_found':
      return { counted: false, text: `There is no change ${id}; nothing was approved.` };
    case 'sign_in':
      return { counted: false, text: `${id} still asks for a sign-in; nothing was approved.` };
  }
}

/** What the callback page says after a break-glass requester signed in to run their change. */
export function wordPageText(outcome: ApproveOutcome): StepUpFinish {
  const id = 'request' in outcome ? outcome.request.id : outcome.id;
  if (outcome.kind === 'succeeded')
    return { counted: true, text: `Signed in. Break-glass change ${id} ran on your word.` };
  if (outcome.kind === 'failed')
    return {
      counted: true,
      text: `Signed in. Break-glass change ${id} did not succeed: ${outcome.error.message}`,
    };
  return pageText(outcome);
}
