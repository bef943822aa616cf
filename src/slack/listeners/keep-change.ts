import type { ChangeTimers } from '../../changes/timers.js';
import { KEEP_ACTION, REVERT_NOW_ACTION } from '../blocks/keep-prompt.js';
import { noticeMessage } from '../blocks/notice.js';
import type { SlackClient, SlackDeps } from '../deps.js';
import { slackErrorText } from '../error-text.js';
import { type ButtonClick, buttonClickSchema, parsePayload } from '../payloads.js';
import { answerPrivately } from '../private-answer.js';
import { type Respond, respondTo } from '../response-url.js';
import type { SlackRoutes } from '../slack-routes.js';

/** The action ids this file listens to (the lead adds them to the request guard's list). */
export const KEEP_ACTIONS: readonly string[] = [KEEP_ACTION, REVERT_NOW_ACTION];

/**
 * Keep and Revert now, in a change's thread or on App Home: acknowledged at once; the timers check
 * the approval policy (only someone who may approve the change may keep or revert it), and the
 * outcome is said to the clicker privately (the thread and AUDIT_CHANNEL hear it from the timers'
 * notifier).
 */
export function registerKeepButtons(
  routes: SlackRoutes,
  deps: SlackDeps,
  timers: Pick<ChangeTimers, 'keep' | 'revertNow'>,
): void {
  // The app has no token of its own (Bolt's `authorize` supplies it per request), so an answer
  // goes through the click's response_url, else the listener's client, which carries the token.
  const tell = async (
    click: ButtonClick,
    to: { client: SlackClient; respond: Respond | undefined },
    text: string,
  ) => {
    if (click.container?.type === 'view' && deps.home) {
      await deps.home.notify(click.user.id, text);
      return;
    }
    await answerPrivately(
      {
        respond: to.respond,
        client: to.client,
        channel: click.channel?.id ?? click.container?.channel_id,
        user: click.user.id,
        logger: deps.logger,
      },
      noticeMessage(text),
    );
  };
  const handle =
    (act: (changeId: string, click: ButtonClick) => Promise<string>) =>
    async ({ ack, body, client }: { ack: () => Promise<void>; body: unknown; client: SlackClient }) => {
      await ack();
      const to = { client, respond: respondTo(body) };
      let click: ButtonClick | undefined;
      try {
        click = parsePayload(buttonClickSchema, body, 'action');
        await tell(click, to, await act(click.actions[0]?.value ?? '', click));
      } catch (error) {
        const text = slackErrorText(error, deps.logger);
        if (click)
          await tell(click, to, text).catch((e: unknown) =>
            deps.logger.error({ err: e }, 'could not answer a click'),
          );
      }
    };
  routes.action(
    KEEP_ACTION,
    handle(async (changeId, click) => {
      await timers.keep(changeId, actorOf(click));
      return `Kept: change ${changeId} will not be reverted.`;
    }),
  );
  routes.action(
    REVERT_NOW_ACTION,
    handle(async (changeId, click) => (await timers.revertNow(changeId, actorOf(click))).text),
  );
}

function actorOf(click: ButtonClick) {
  const name = click.user.username ?? click.user.name;
  return { userId: click.user.id, ...(name ? { name } : {}) };
}
