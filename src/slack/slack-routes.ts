import type {
  AllMiddlewareArgs,
  App,
  Middleware,
  SlackActionMiddlewareArgs,
  SlackCommandMiddlewareArgs,
  SlackEventMiddlewareArgs,
  SlackViewMiddlewareArgs,
} from '@slack/bolt';
import type { Logger } from '../log.js';

type ActionHandler = (args: SlackActionMiddlewareArgs & AllMiddlewareArgs) => Promise<void>;
type ViewHandler = (args: SlackViewMiddlewareArgs & AllMiddlewareArgs) => Promise<void>;

/** The action_id a click carries (Bolt puts the first of `actions` in `action`). */
function actionIdOf(args: SlackActionMiddlewareArgs): string | undefined {
  const id = (args.action as { action_id?: unknown } | undefined)?.action_id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * The bot's buttons and forms behind one Bolt listener per kind: one for every block action, one for
 * every view submission, routed here by action_id and callback_id. Bolt runs each incoming request
 * through the middleware chain of every listener registered (matching is middleware too): with a
 * listener per button, 17 chains ran for every command: about 30 KB of garbage per request in Bolt's
 * listener map alone, on the event loop that acks Slack. Commands and events,
 * one listener each, go to Bolt as they are.
 */
export class SlackRoutes {
  readonly #actions: { id: string | RegExp; handle: ActionHandler }[] = [];
  readonly #views = new Map<string, ViewHandler>();

  constructor(
    private readonly app: App,
    private readonly logger: Logger,
  ) {
    app.action(/.*/, (args) => this.#dispatchAction(args));
    app.view(/.*/, (args) => this.#dispatchView(args));
  }

  /** A button (or select) by its action_id: exact, or a pattern for ids that carry a value. */
  action(id: string | RegExp, handle: ActionHandler): void {
    this.#actions.push({ id, handle });
  }

  /** A modal's submission by its callback_id. */
  view(callbackId: string, handle: ViewHandler): void {
    this.#views.set(callbackId, handle);
  }

  command(name: string, handle: Middleware<SlackCommandMiddlewareArgs>): void {
    this.app.command(name, handle);
  }

  event<E extends string>(name: E, handle: Middleware<SlackEventMiddlewareArgs<E>>): void {
    this.app.event(name, handle);
  }

  async #dispatchAction(args: SlackActionMiddlewareArgs & AllMiddlewareArgs): Promise<void> {
    const id = actionIdOf(args);
    const route =
      id === undefined
        ? undefined
        : this.#actions.find((r) => (typeof r.id === 'string' ? r.id === id : r.id.test(id)));
    if (route) return route.handle(args);
    // A select inside a modal, or a button of a message posted by an older version: nothing to do.
    await args.ack();
    this.logger.debug({ action_id: id }, 'a Slack action with no handler');
  }

  async #dispatchView(args: SlackViewMiddlewareArgs & AllMiddlewareArgs): Promise<void> {
    const handle = this.#views.get(args.view.callback_id);
    if (handle) return handle(args);
    await args.ack();
    this.logger.debug({ callback_id: args.view.callback_id }, 'a Slack view submission with no handler');
  }
}
