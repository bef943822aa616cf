import type { webApi } from '@slack/bolt';
import type { Approvals } from '../approvals/approvals.js';
import type { Logger } from '../log.js';
import type { ToolContext } from '../tools/core/define-tool.js';
import type { ToolRegistry } from '../tools/core/registry.js';
import type { ChangePresenter } from './change-presenter.js';
import type { HomeService } from './home/home.js';
import type { WatchActions } from './listeners/watch-buttons.js';

/** What the Slack listeners work with; built once by the Slack front end. */
export interface SlackDeps {
  registry: ToolRegistry;
  context: ToolContext;
  approvals: Approvals;
  presenter: ChangePresenter;
  logger: Logger;
  defaultSite: string;
  /** App Home (unset in tests that build listeners without it). */
  home?: HomeService;
  /** The watcher (`/net digest`, its buttons); unset when the app runs none. */
  watch?: WatchActions;
}

/** A client method bag the listeners use for uploads. */
export type SlackClient = webApi.WebClient;
