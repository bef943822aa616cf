import type { AllMiddlewareArgs, AnyMiddlewareArgs, App } from '@slack/bolt';
import type { Logger } from '../../log.js';

/** What a command, click or form gets while the bot is stopping. */
export const SHUTTING_DOWN_TEXT =
  ':hourglass: The bot is restarting and takes no new work; nothing was done. Try again in a moment.';

/**
 * The Slack work in flight (every command, click and form submission, from receipt to the last
 * message it edits), so a stopping bot can let running changes finish before it exits.
 */
export class WorkTracker {
  private readonly running = new Set<Promise<unknown>>();
  private stopping = false;

  /** True once drain() was called: new work is refused. */
  get draining(): boolean {
    return this.stopping;
  }

  /** How many pieces of work are running now. */
  get size(): number {
    return this.running.size;
  }

  /** Follows `work` until it settles; it is neither changed nor awaited here. */
  track<T>(work: Promise<T>): Promise<T> {
    const followed = work.finally(() => this.running.delete(followed));
    this.running.add(followed);
    return followed;
  }

  /**
   * Refuses new work from now on and waits up to `ms` for the running work; returns how many
   * were still running at the deadline (left as they are: a change then ends "outcome unknown").
   */
  async drain(ms: number): Promise<number> {
    this.stopping = true;
    const deadline = Date.now() + ms;
    while (this.running.size > 0) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, left);
      });
      await Promise.race([Promise.allSettled([...this.running]), late]);
      clearTimeout(timer);
    }
    return this.running.size;
  }
}

type Incoming = AnyMiddlewareArgs & AllMiddlewareArgs;

/** The first input block of a submitted form: where a form-level refusal can be shown. */
function firstInputBlock(body: unknown): string | undefined {
  const view = (body as { view?: { blocks?: unknown } }).view;
  const blocks = Array.isArray(view?.blocks) ? (view.blocks as { type?: unknown; block_id?: unknown }[]) : [];
  const input = blocks.find((b) => b.type === 'input' && typeof b.block_id === 'string');
  return input?.block_id as string | undefined;
}

/**
 * A global middleware: while the bot is stopping, every command, click and form submission is
 * acknowledged with "restarting, try again" and goes no further; otherwise it is followed by the
 * tracker until its listener is done. Registered before any listener.
 */
export function registerDrainGuard(app: App, tracker: WorkTracker, logger: Logger): void {
  app.use(async (args: Incoming) => {
    if (!tracker.draining) {
      await tracker.track(args.next());
      return;
    }
    const body = args.body as { type?: unknown; command?: unknown };
    const ack = 'ack' in args ? (args.ack as (response?: unknown) => Promise<void>) : undefined;
    const respond = 'respond' in args ? args.respond : undefined;
    try {
      if (typeof body.command === 'string') {
        await ack?.({ response_type: 'ephemeral', text: SHUTTING_DOWN_TEXT });
      } else if (body.type === 'view_submission') {
        const block = firstInputBlock(body);
        await ack?.(
          block ? { response_action: 'errors', errors: { [block]: SHUTTING_DOWN_TEXT } } : undefined,
        );
      } else {
        await ack?.();
        if (body.type === 'block_actions' && respond) {
          await respond({ response_type: 'ephemeral', replace_original: false, text: SHUTTING_DOWN_TEXT });
        }
      }
    } catch (error) {
      logger.warn({ err: error }, 'could not tell a user that the bot is stopping');
    }
  });
}
