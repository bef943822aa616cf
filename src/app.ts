import { Approvals } from './approvals/approvals.js';
import { ApprovalPolicy } from './approvals/policy.js';
import type { Config } from './config.js';
import type { Gateway } from './gateway/types.js';
import type { Logger } from './log.js';
import type { SlackFrontEnd } from './slack/slack-app.js';
import type { SlackKit } from './slack/slack-kit.js';
import { FileStore } from './store/file/file-store.js';
import type { Store } from './store/types.js';
import type { ToolContext } from './tools/define-tool.js';
import { createRegistry } from './tools/index.js';
import type { ToolRegistry } from './tools/registry.js';

/** Everything the app is built from; tests inject the simulator's gateway, a fake Slack URL and a clock. */
export interface AppDeps {
  config: Config;
  logger: Logger;
  gateway: Gateway;
  /**
   * Where change requests, the journal and bot data live, already opened (`openStore`, which
   * main.ts awaits). Defaults to the file store in DATA_DIR. `close()` closes it.
   */
  store?: Store;
  /** Clock for approval expiry (ms since the epoch). */
  now?: () => number;
  /** How often expired change requests are swept [15 s]. */
  sweepIntervalMs?: number;
  /** Slack's SDK-backed parts (`slackKit`); needed when SLACK_BOT_TOKEN is set, so a console run never loads the SDK. */
  slackKit?: SlackKit;
}

/**
 * The assembled bot. `approvals` and `slack` exist only when SLACK_BOT_TOKEN is set: the journal
 * has one owner, the long-running Slack bot, and a console run beside it on the same DATA_DIR
 * must not append to (and so fork) its hash chain.
 */
export interface App {
  registry: ToolRegistry;
  context: ToolContext;
  approvals?: Approvals;
  slack?: SlackFrontEnd;
  store: Store;
  close(): Promise<void>;
}

/** Builds the bot from injected parts; `main.ts` only wires real ones in. */
export function createApp(deps: AppDeps): App {
  const { config, logger } = deps;
  const registry = createRegistry(config.defaultSite);
  const store = deps.store ?? new FileStore(config.dataDir);
  const context: ToolContext = { gateway: deps.gateway, logger, store: store.data };
  let slackParts: ReturnType<typeof buildSlack> | undefined;
  try {
    slackParts = config.slack.botToken ? buildSlack(deps, store, registry, context) : undefined;
  } catch (error) {
    void store.close();
    throw error;
  }
  return {
    registry,
    context,
    store,
    ...(slackParts ?? {}),
    async close() {
      await slackParts?.slack.stop();
      await store.close();
      await deps.gateway.close();
    },
  };
}

function buildSlack(deps: AppDeps, store: Store, registry: ToolRegistry, context: ToolContext) {
  const { config, logger, slackKit } = deps;
  if (!slackKit)
    throw new Error('SLACK_BOT_TOKEN is set: createApp needs the slackKit (src/slack/slack-kit.ts)');
  const groups = slackKit.userGroups(config, logger);
  const policy = new ApprovalPolicy({
    approvers: config.approvals.approvers,
    allowSelfApproval: config.approvals.allowSelfApproval,
    requesters: config.approvals.requesters,
    writeChannels: config.approvals.writeChannels,
    groupMembers: (groupId) => groups.members(groupId),
    logger,
  });
  const approvals = new Approvals({
    store: store.changes(),
    registry,
    context,
    policy,
    ttlSeconds: config.approvals.ttlSeconds,
    logger,
    ...(deps.now ? { now: deps.now } : {}),
  });
  const slack = slackKit.createSlackFrontEnd({
    config,
    logger,
    registry,
    context,
    approvals,
    storeHealth: () => store.health(),
    controllerStatus: (site) => deps.gateway.status(site),
    ...(deps.sweepIntervalMs ? { sweepIntervalMs: deps.sweepIntervalMs } : {}),
  });
  if (config.approvals.approvers.length === 0) {
    logger.warn('APPROVERS is unset: anyone in the channel except the requester may approve changes');
  }
  return { approvals, slack };
}
