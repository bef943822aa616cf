import type { Actor } from '../../model/change-request.js';
import type { RecordOutcome, RevertOutcome } from '../../watch/types.js';
import { ACK_INCIDENT_ACTION } from '../blocks/alerts.js';
import { ACCEPT_DRIFT_ACTION, REVERT_DRIFT_ACTION } from '../blocks/drift.js';
import { noticeMessage } from '../blocks/notice.js';
import { code, mrkdwn } from '../blocks/text.js';
import type { SlackClient, SlackDeps } from '../deps.js';
import { slackErrorText } from '../error-text.js';
import { type ButtonClick, buttonClickSchema, parsePayload } from '../payloads.js';
import { answerPrivately } from '../private-answer.js';
import { type Respond, respondTo } from '../response-url.js';
import type { SlackRoutes } from '../slack-routes.js';

/** The watcher as the Slack buttons and `/net digest` use it (src/watch/watcher.ts). */
export interface WatchActions {
  acknowledge(id: string, actor: Actor): Promise<RecordOutcome<unknown>>;
  acceptDrift(id: string, actor: Actor): Promise<RecordOutcome<unknown>>;
  revertDrift(id: string, actor: Actor, channel?: string): Promise<RevertOutcome>;
  postDigest(channel?: string): Promise<unknown>;
}

export const WATCH_ACTIONS = [ACK_INCIDENT_ACTION, ACCEPT_DRIFT_ACTION, REVERT_DRIFT_ACTION] as const;

const actorOf = (click: ButtonClick): Actor => {
  const name = click.user.username ?? click.user.name;
  return { userId: click.user.id, ...(name ? { name } : {}) };
};

/**
 * Acknowledge (incidents), Accept and Revert (drift): acknowledged at once, recorded by the watcher
 * (which edits the message); what the clicker needs to know is told to them alone.
 */
export function registerWatchButtons(routes: SlackRoutes, deps: SlackDeps, watch: WatchActions): void {
  const handle =
    (run: (click: ButtonClick, id: string) => Promise<string | undefined>) =>
    async ({ ack, body, client }: { ack: () => Promise<void>; body: unknown; client: SlackClient }) => {
      await ack();
      const respond = respondTo(body);
      let click: ButtonClick | undefined;
      try {
        click = parsePayload(buttonClickSchema, body, 'action');
        const text = await run(click, click.actions[0]?.value ?? '');
        if (text) await whisper(click, client, respond, deps, text);
      } catch (error) {
        if (click) await whisper(click, client, respond, deps, slackErrorText(error, deps.logger));
        else deps.logger.warn({ err: error }, 'a watch button payload was refused');
      }
    };
  // A click the watcher only records: the clicker hears of it only when it was gone or done already.
  const record = (
    recordOf: (id: string, actor: Actor) => Promise<RecordOutcome<unknown>>,
    answers: { notFound: string; already: string },
  ) =>
    handle(async (click, id) => {
      const outcome = await recordOf(id, actorOf(click));
      if (outcome.kind === 'not_found') return answers.notFound;
      if (outcome.kind === 'already') return answers.already;
      return undefined;
    });
  routes.action(
    ACK_INCIDENT_ACTION,
    record((id, actor) => watch.acknowledge(id, actor), {
      notFound: 'That incident is no longer tracked.',
      already: 'Someone acknowledged this incident already.',
    }),
  );
  routes.action(
    ACCEPT_DRIFT_ACTION,
    record((id, actor) => watch.acceptDrift(id, actor), {
      notFound: 'That change is no longer tracked.',
      already: 'This change was accepted already.',
    }),
  );
  routes.action(
    REVERT_DRIFT_ACTION,
    handle(async (click, id) => {
      const channel = click.channel?.id ?? click.container?.channel_id;
      const outcome = await watch.revertDrift(id, actorOf(click), channel);
      if (outcome.kind === 'not_found') return 'That change is no longer tracked.';
      if (outcome.kind === 'already')
        return `A revert was proposed already (${code(outcome.drift.revertRequestId ?? '?')}).`;
      if (outcome.kind === 'unavailable') return `The bot cannot revert this: ${mrkdwn(outcome.reason)}.`;
      // The revert is a change request like any other: its preview, with Approve and Cancel.
      if (channel) await deps.presenter.postProposal(outcome.request, channel);
      return undefined;
    }),
  );
}

async function whisper(
  click: ButtonClick,
  client: SlackClient,
  respond: Respond | undefined,
  deps: SlackDeps,
  text: string,
) {
  await answerPrivately(
    {
      respond,
      client,
      channel: click.channel?.id ?? click.container?.channel_id,
      user: click.user.id,
      logger: deps.logger,
    },
    noticeMessage(text),
  ).catch((error: unknown) => deps.logger.warn({ err: error }, 'could not answer a watch button'));
}
