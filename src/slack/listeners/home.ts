import { z } from 'zod';
import { HOME_FORM_ACTION, HOME_PAGE_ACTION, HOME_REFRESH_ACTION } from '../blocks/home.js';
import { toolFormView } from '../blocks/tool-form.js';
import type { SlackDeps } from '../deps.js';
import { SlackStepError, slackErrorText } from '../error-text.js';
import { parsePayload } from '../payloads.js';
import type { SlackRoutes } from '../slack-routes.js';
import { formInputsOf } from './form-inputs.js';

/** What the Home tab listens to; the request guard in front of Bolt serves exactly these. */
export const HOME_OPENED_EVENT = 'app_home_opened';
const HOME_PAGE_PATTERN = new RegExp(`^${HOME_PAGE_ACTION}_`);
const HOME_FORM_PATTERN = new RegExp(`^${HOME_FORM_ACTION}:`);
export const HOME_ACTIONS: readonly (string | RegExp)[] = [
  HOME_REFRESH_ACTION,
  HOME_PAGE_PATTERN,
  HOME_FORM_PATTERN,
];

const homeOpenedSchema = z.object({ user: z.string().min(1), tab: z.string().optional() });

const homeClickSchema = z.object({
  user: z.object({ id: z.string().min(1) }),
  trigger_id: z.string().optional(),
  actions: z.array(z.object({ action_id: z.string(), value: z.string().max(2000).optional() })).min(1),
});

/**
 * App Home: the view is published when the tab is opened, and its own buttons (refresh, pages,
 * quick-action forms) act on it. Approve and Cancel on Home carry the channel buttons' action_ids
 * and go through their listener (change-buttons.ts), the one approval path.
 */
export function registerHome(routes: SlackRoutes, deps: SlackDeps): void {
  const home = deps.home;
  if (!home) return;
  routes.event('app_home_opened', async ({ event }) => {
    const opened = homeOpenedSchema.safeParse(event);
    // The Messages tab fires the same event; only the Home tab has a view to publish.
    if (!opened.success || (opened.data.tab !== undefined && opened.data.tab !== 'home')) return;
    await home.opened(opened.data.user);
  });
  routes.action(HOME_REFRESH_ACTION, async ({ ack, body }) => {
    await ack();
    const click = parsePayload(homeClickSchema, body, 'action');
    await home.refresh(click.user.id);
  });
  routes.action(HOME_PAGE_PATTERN, async ({ ack, body }) => {
    await ack();
    const click = parsePayload(homeClickSchema, body, 'action');
    await home.showPage(click.user.id, Number(click.actions[0]?.value ?? 0) || 0);
  });
  routes.action(HOME_FORM_PATTERN, async ({ ack, body, client }) => {
    await ack();
    const click = parsePayload(homeClickSchema, body, 'action');
    try {
      const tool = click.actions[0]?.value ?? '';
      if (deps.registry.require(tool).access !== 'write') throw new Error(`${tool} is not a write tool`);
      if (!click.trigger_id) throw new Error('the click carried no trigger_id to open a form with');
      const view = toolFormView(
        tool,
        formInputsOf(deps, tool),
        {},
        { tool, channel: '' },
        {
          site: deps.defaultSite,
          pickChannel: home.formChannel === undefined ? {} : { initial: home.formChannel },
        },
      );
      await client.views.open({ trigger_id: click.trigger_id, view }).catch((error: unknown) => {
        throw new SlackStepError('open_form', undefined, error);
      });
    } catch (error) {
      await home.notify(click.user.id, slackErrorText(error, deps.logger));
    }
  });
}
