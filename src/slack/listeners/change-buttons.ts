import { APPROVE_ACTION, CANCEL_ACTION, shownPreviewHash } from '../blocks/change-request.js';
import { RUN_SCHEDULED_ACTION } from '../blocks/home.js';
import { noticeMessage } from '../blocks/notice.js';
import { REVERT_ACTION } from '../blocks/revert.js';
import type { Whisper } from '../change-presenter.js';
import type { SlackClient, SlackDeps } from '../deps.js';
import { slackErrorText } from '../error-text.js';
import { type ButtonClick, buttonClickSchema, parsePayload } from '../payloads.js';
import { answerPrivately } from '../private-answer.js';
import { type Respond, respondTo } from '../response-url.js';
import type { SlackRoutes } from '../slack-routes.js';

export function whisperTo(
  click: ButtonClick,
  client: SlackClient,
  respond: Respond | undefined,
  deps: SlackDeps,
): Whisper {
  return async (text) => {
    // A click on App Home: the answer goes on top of the clicker's refreshed Home.
    if (click.container?.type === 'view' && deps.home) {
      await deps.home.notify(click.user.id, text);
      return;
    }
    const channel = click.channel?.id ?? click.container?.channel_id;
    await answerPrivately(
      { respond, client, channel, user: click.user.id, logger: deps.logger },
      noticeMessage(text),
    );
  };
}

/**
 * Approve and Cancel, on a channel message or on App Home (same action_ids, same path): acknowledged
 * at once, decided by the approvals module, shown by the presenter (which edits the channel message).
 */
export function registerChangeButtons(routes: SlackRoutes, deps: SlackDeps): void {
  routes.action(
    APPROVE_ACTION,
    onClick(deps, async (click, whisper) => {
      const action = click.actions[0];
      const outcome = await deps.approvals.approve(
        action?.value ?? '',
        actorOf(click),
        { onClaimed: (claimed) => deps.presenter.showRunning(claimed) },
        // The preview hash of the message that was clicked, from its actions block's block_id.
        shownPreviewHash(action?.block_id),
      );
      await deps.presenter.showApproval(outcome, whisper);
    }),
  );
  // Revert proposes the undoing change, previewed and approved like any other.
  routes.action(
    REVERT_ACTION,
    onClick(deps, async (click, whisper) => {
      const fromHome = click.container?.type === 'view';
      const channel = fromHome ? undefined : (click.channel?.id ?? click.container?.channel_id);
      const request = await deps.approvals.proposeRevert({
        changeId: click.actions[0]?.value ?? '',
        requester: actorOf(click),
        ...(channel ? { channel } : {}),
      });
      const where = request.channel;
      if (!where) {
        await whisper(
          `:leftwards_arrow_with_hook: Revert proposed as ${request.id}, but the original change names no channel to post it in; use \`/net change ${request.id}\` in a channel.`,
        );
        return;
      }
      await deps.presenter.postProposal(request, where);
      await whisper(
        `:leftwards_arrow_with_hook: Revert proposed in <#${where}>: it runs once someone approves it.`,
      );
    }),
  );
  // App Home's Run now of a scheduled change (the approvals module checks the policy).
  routes.action(
    RUN_SCHEDULED_ACTION,
    onApprovalClick(deps, (id, actor) => deps.approvals.runScheduledNow(id, actor)),
  );
  routes.action(
    CANCEL_ACTION,
    onClick(deps, async (click, whisper) => {
      const outcome = await deps.approvals.cancel(click.actions[0]?.value ?? '', actorOf(click));
      await deps.presenter.showCancel(outcome, whisper);
    }),
  );
}

/**
 * A button's listener: acknowledged at once, the payload parsed, then `run` with the way to answer
 * the clicker alone; whatever it throws is told to the clicker.
 */
export function onClick(deps: SlackDeps, run: (click: ButtonClick, whisper: Whisper) => Promise<void>) {
  return async ({ ack, body, client }: { ack: () => Promise<void>; body: unknown; client: SlackClient }) => {
    await ack();
    const respond = respondTo(body);
    let click: ButtonClick | undefined;
    try {
      click = parsePayload(buttonClickSchema, body, 'action');
      await run(click, whisperTo(click, client, respond, deps));
    } catch (error) {
      await report(error, click, client, respond, deps);
    }
  };
}

/** A click the approvals module decides on the request whose id the button carries; the presenter shows how it went. */
export function onApprovalClick(
  deps: SlackDeps,
  decide: (
    id: string,
    actor: ReturnType<typeof actorOf>,
  ) => Promise<Parameters<SlackDeps['presenter']['showApproval']>[0]>,
) {
  return onClick(deps, async (click, whisper) => {
    const outcome = await decide(click.actions[0]?.value ?? '', actorOf(click));
    await deps.presenter.showApproval(outcome, whisper);
  });
}

export function actorOf(click: ButtonClick) {
  const name = click.user.username ?? click.user.name;
  return { userId: click.user.id, ...(name ? { name } : {}) };
}

export async function report(
  error: unknown,
  click: ButtonClick | undefined,
  client: SlackClient,
  respond: Respond | undefined,
  deps: SlackDeps,
) {
  const text = slackErrorText(error, deps.logger);
  if (!click) return;
  try {
    await whisperTo(click, client, respond, deps)(text);
  } catch (secondary) {
    deps.logger.error({ err: secondary }, 'could not tell the clicker about an error');
  }
}
