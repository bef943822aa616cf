import { z } from 'zod';
import { Approvals } from './approvals/approvals.js';
import type { ChangeNotifier } from './approvals/notifier.js';
import { PagerDutyOnCall } from './approvals/oncall.js';
import { ApprovalPeople } from './approvals/people.js';
import { ChangeTimers } from './changes/timers.js';
import { resolveToolCall } from './commands/aliases.js';
import type { Config } from './config.js';
import { type Consoles, singleConsole } from './consoles/consoles.js';
import type { Gateway } from './gateway/types.js';
import { createHttpServer } from './http-server.js';
import type { IdentityKit } from './identity/kit.js';
import type { Logger } from './log.js';
import type { McpFrontEnd } from './mcp/mcp-front-end.js';
import type { McpKit } from './mcp/mcp-kit.js';
import type { Policy } from './policy/index.js';
import { policyWithoutFile } from './policy-startup.js';
import type { SlackFrontEnd } from './slack/slack-app.js';
import type { SlackKit } from './slack/slack-kit.js';
import { FileStore } from './store/file/file-store.js';
import type { Store } from './store/types.js';
import { FleetTelemetry, Telemetry } from './telemetry/index.js';
import type { KeepPort } from './tools/bot/keep-tools.js';
import type { DigestPort } from './tools/bot/watch-tools.js';
import type { ToolContext } from './tools/core/define-tool.js';
import type { Guardrails } from './tools/core/guardrails.js';
import type { ToolRegistry } from './tools/core/registry.js';
import type { SiteRecordsPort } from './tools/fleet/fleet-status.js';
import { createRegistry } from './tools/index.js';
import type { FleetDigestNotifier, WatchNotifier } from './watch/index.js';
import {
  FleetWatcher,
  readDigest,
  readFleetDigest,
  staggerOffset,
  Watcher,
  webhookHandler,
} from './watch/index.js';
import { openIncidentCount, scopeOf } from './watch/watch-state.js';

/** Everything the app is built from; tests inject the simulator's gateway, a fake Slack URL and a clock. */
export interface AppDeps {
  config: Config;
  logger: Logger;
  gateway: Gateway;
  /**
   * The consoles served, each with its gateway (CONSOLES_FILE); unset: the one `gateway` above,
   * named `default`. `close()` closes them.
   */
  consoles?: Consoles;
  /**
   * Where change requests, the journal and bot data live, already opened (`openStore`, which
   * main.ts awaits). Defaults to the file store in DATA_DIR. `close()` closes it.
   */
  store?: Store;
  /** Clock for approval expiry (ms since the epoch). */
  now?: () => number;
  /** How often expired change requests are swept [15 s]. */
  sweepIntervalMs?: number;
  /** How often due deadlines are claimed [5 s]; tests shorten it. */
  timerTickMs?: number;
  /** Slack's SDK-backed parts (`slackKit`); needed when SLACK_BOT_TOKEN is set, so a console run never loads the SDK. */
  slackKit?: SlackKit;
  /** Step-up sign-in's parts; needed with OIDC_ISSUER in the Slack bot, loaded only then. */
  identityKit?: IdentityKit;
  /**
   * The MCP SDK-backed parts (`mcpKit`): given, the app has an MCP front end (`netops mcp`, or
   * POST /mcp on the bot's port when MCP_TOKEN is set).
   */
  mcpKit?: McpKit;
  /**
   * This process records change requests though it runs no Slack bot: `netops mcp` over stdio,
   * whose writes are journaled (and, in approval mode, left in the shared store for the bot).
   */
  ownsChanges?: boolean;
  /** The policy in effect (main.ts loads it at start); unset: loaded here from POLICY_FILE. */
  policy?: Policy;
  /** The controller's URL as the gateway reaches it (the simulator's when it is used), for self-lockout. */
  controllerUrl?: string;
}

/**
 * The assembled bot. `approvals` exist only when SLACK_BOT_TOKEN is set or the process owns the
 * change requests (`netops mcp`): the journal has one owner, and a console run beside the bot on
 * the same DATA_DIR must not append to (and so fork) its hash chain.
 */
export interface App {
  registry: ToolRegistry;
  context: ToolContext;
  approvals?: Approvals;
  slack?: SlackFrontEnd;
  mcp?: McpFrontEnd;
  store: Store;
  /** The sampler of live counters (started here, stopped by close). */
  telemetry: Telemetry | FleetTelemetry;
  /**
   * The network's watcher, built with the Slack bot; main.ts starts it in the long-running
   * bot only (never in a console run), and close stops it.
   */
  watcher?: Watcher | FleetWatcher;
  /**
   * Deadlines of keep-or-revert and temporary changes, built with approvals. They follow
   * this process's changes from the start; main.ts starts the ticker that fires them in the
   * long-running bot only, and close stops it.
   */
  timers?: ChangeTimers;
  close(): Promise<void>;
}

// The finished changes the fleet status looks through for each site's last one.
const RECENT_CHANGES = 200;

/** Builds the bot from injected parts; `main.ts` only wires real ones in. */
export function createApp(deps: AppDeps): App {
  const { config, logger } = deps;
  const registry = createRegistry(config.defaultSite, () => deps.gateway.knownConsole?.());
  const store =
    deps.store ??
    new FileStore(config.dataDir, {
      logger,
      ...(config.store.journalKey !== undefined ? { key: config.store.journalKey } : {}),
    });
  const consoles = deps.consoles ?? singleConsole(deps.gateway, config.gateway.readBudgetMs);
  // A fleet (CONSOLES_FILE), even of one console: every console is sampled and watched.
  const fromFile = consoles.list().some((entry) => entry.via !== 'single');
  // Samples the live network while the process runs; tools read windows from it. A fleet's
  // consoles are each sampled, at their own offset in the interval like their watch.
  const sampling = {
    samples: store.samples(),
    logger: logger.child({ component: 'telemetry' }),
    intervalMs: config.telemetry.intervalSeconds * 1000,
    defaultSite: config.defaultSite,
    ...(deps.now ? { now: deps.now } : {}),
  };
  const telemetry = fromFile
    ? new FleetTelemetry({ ...sampling, consoles, offsetOf: staggerOffset })
    : new Telemetry({ ...sampling, gateway: deps.gateway });
  // The policy and what blast radius and self-lockout are measured against.
  const guardrails: Guardrails = {
    policy: deps.policy ?? policyWithoutFile(config),
    ...(config.gateway.apiType === 'local' && (deps.controllerUrl ?? config.gateway.url)
      ? { controllerUrl: deps.controllerUrl ?? config.gateway.url }
      : {}),
    ...(config.policy.sourceAddress ? { sourceAddress: config.policy.sourceAddress } : {}),
    resolve: (line) => resolveToolCall(line, registry),
    now: deps.now ?? Date.now,
  };
  // The registry picks a call's console (`console=`) here; fleet-wide tools read every one.
  registry.useConsoles(consoles);
  const context: ToolContext = {
    gateway: deps.gateway,
    logger,
    store: store.data,
    telemetry,
    guardrails,
    consoles,
  };
  // get_digest reads the day from the store in any process (the console beside the bot
  // sees what the bot's watcher recorded); tools/ reaches it through the context, like the timers.
  (context as ToolContext & { digests?: DigestPort }).digests = digestPort(
    deps,
    store,
    registry,
    context,
    consoles,
    fromFile,
  );
  // The watcher keeps a fleet's incidents under console and site, a single console's under the site.
  const openAlerts = (console: string, site: string) =>
    openIncidentCount(store.data, fromFile ? scopeOf({ site, console }) : site);
  const siteRecords: SiteRecordsPort = {
    openAlerts,
    recentChanges: async () =>
      (
        await store
          .changeHistory()
          .list({ state: ['succeeded', 'failed', 'unknown'], withoutSetSteps: true, limit: RECENT_CHANGES })
      ).map((request) => ({
        id: request.id,
        tool: request.tool,
        state: request.state,
        at: request.decidedAt ?? request.createdAt,
        ...(typeof request.args.console === 'string' ? { console: request.args.console } : {}),
        site: request.site,
      })),
  };
  (context as ToolContext & { siteRecords?: SiteRecordsPort }).siteRecords = siteRecords;
  let parts: ReturnType<typeof buildFrontEnds>;
  try {
    parts = buildFrontEnds(deps, store, registry, context);
  } catch (error) {
    void store.close();
    throw error;
  }
  telemetry.start();
  return {
    registry,
    context,
    store,
    telemetry,
    ...parts,
    async close() {
      await parts.timers?.stop();
      await parts.watcher?.stop();
      await telemetry.stop();
      await parts.slack?.stop();
      await parts.mcp?.close();
      await store.close();
      await consoles.close();
    },
  };
}

/**
 * get_digest's port over the store. A fleet's site digest is its console's: what that console's
 * watcher keeps, under its name; a fleet's digest without a console is the one its watcher posts.
 */
function digestPort(
  deps: AppDeps,
  store: Store,
  registry: ToolRegistry,
  context: ToolContext,
  consoles: Consoles,
  fromFile: boolean,
): DigestPort {
  const { config, logger } = deps;
  const entryOf = (name: string | undefined) =>
    fromFile ? consoles.list().find((entry) => name === undefined || entry.name === name) : undefined;
  return {
    read: (site, console) => {
      const entry = entryOf(console);
      const watched = entry?.sites?.includes(site) ? site : (entry?.sites?.[0] ?? config.defaultSite);
      return readDigest(
        {
          site,
          watchedSite: watched,
          ...(entry ? { console: entry.name } : {}),
          data: store.data,
          changes: store.changeHistory(),
          registry,
          context,
          logger: logger.child({ component: 'watch' }),
          ...(config.watch.timeZone ? { timeZone: config.watch.timeZone } : {}),
        },
        (deps.now ?? Date.now)(),
      );
    },
    // A fleet's get_digest without `console=`: the one digest the fleet's watcher posts.
    ...(fromFile
      ? {
          readFleet: () =>
            readFleetDigest(
              {
                sites: consoles
                  .list()
                  .flatMap((entry) =>
                    (entry.sites ?? [config.defaultSite]).map((site) => ({ console: entry.name, site })),
                  ),
                data: store.data,
                changes: store.changeHistory(),
                registry,
                context,
                logger: logger.child({ component: 'watch' }),
                timeoutMs: consoles.readBudgetMs,
                ...(config.watch.timeZone ? { timeZone: config.watch.timeZone } : {}),
              },
              (deps.now ?? Date.now)(),
            ),
        }
      : {}),
  };
}

function buildFrontEnds(deps: AppDeps, store: Store, registry: ToolRegistry, context: ToolContext) {
  const { config, logger, slackKit, mcpKit } = deps;
  const withSlack = Boolean(config.slack.botToken);
  if (withSlack && !slackKit)
    throw new Error('SLACK_BOT_TOKEN is set: createApp needs the slackKit (src/slack/slack-kit.ts)');
  // The MCP front end posts proposals through Slack in this process, which is built after it.
  let slack: SlackFrontEnd | undefined;
  // Step-up sign-in needs the Slack face for its callback and the approver's profile email.
  if (withSlack && config.identity && !deps.identityKit)
    throw new Error('OIDC_ISSUER is set: createApp needs the identityKit (src/identity/kit.ts)');
  const kit = withSlack && config.identity ? deps.identityKit : undefined;
  const stepUp =
    kit && config.identity
      ? new kit.StepUp({
          config: config.identity,
          data: store.data,
          ...(store.leases ? { leases: store.leases() } : {}),
          mapping: {
            ...(config.identity.usersFile ? { usersFile: kit.readUsersFile(config.identity.usersFile) } : {}),
            slackEmail: async (userId) => slack?.userEmail(userId),
          },
          logger: logger.child({ component: 'step-up' }),
          ...(deps.now ? { now: deps.now } : {}),
        })
      : undefined;
  const approvals =
    withSlack || deps.ownsChanges ? buildApprovals(deps, store, registry, context, stepUp) : undefined;
  const timers = approvals ? buildTimers(deps, store, approvals, () => slack) : undefined;
  if (timers) {
    // keep_change reaches them through the context (tools/ imports nothing above it).
    (context as ToolContext & { changeTimers?: KeepPort }).changeTimers = timers;
    timers.follow();
  }
  const notifier: ChangeNotifier | undefined = withSlack
    ? {
        announce: async (request) => slack?.notifier.announce(request),
        link: async (message) => slack?.notifier.link(message),
        refresh: async (request) => slack?.notifier.refresh?.(request),
      }
    : undefined;
  const mcp = mcpKit
    ? mcpKit.createMcpFrontEnd({
        registry,
        context,
        logger: logger.child({ component: 'mcp' }),
        defaultSite: config.defaultSite,
        writes: config.mcp.writes,
        ...(approvals ? { approvals } : {}),
        ...(config.mcp.approvalChannel ? { approvalChannel: config.mcp.approvalChannel } : {}),
        ...(notifier ? { notifier } : {}),
        tokens: config.mcp.tokens,
      })
    : undefined;
  const watcher =
    withSlack && approvals && config.watch
      ? buildWatcher(deps, store, registry, context, approvals, () => slack)
      : undefined;
  if (withSlack && slackKit && approvals) {
    // The bot's port carries `/mcp` and the Alarm Manager webhooks in both modes, beside /healthz.
    const server = createHttpServer();
    if (mcp && config.mcp.tokens.length > 0)
      server.route({ path: '/mcp', methods: ['POST', 'GET', 'DELETE'], handler: mcp.handleHttp });
    if (watcher && config.watch.webhookSecret)
      server.route({
        path: '/webhooks/unifi',
        methods: ['POST'],
        handler: webhookHandler({
          secret: config.watch.webhookSecret,
          logger: logger.child({ component: 'webhook' }),
          receive: (alarm) => watcher.receiveAlarm(alarm),
        }),
      });
    slack = slackKit.createSlackFrontEnd({
      config,
      logger,
      registry,
      context,
      approvals,
      storeHealth: () => store.health(),
      controllerStatus: (site) => deps.gateway.status(site),
      controllerInfo: () => deps.gateway.knownConsole?.(),
      server,
      ...(stepUp ? { stepUp } : {}),
      ...(watcher ? { watch: watcher } : {}),
      ...(timers ? { timers } : {}),
      // Every console is watched on each of its sites: its open alerts are their sum.
      openAlerts: async (console) => {
        const records = (context as ToolContext & { siteRecords?: SiteRecordsPort }).siteRecords;
        const entry = context.consoles?.list().find((each) => each.name === console);
        if (!entry || !records) return undefined;
        const counts = await Promise.all(
          (entry.sites ?? [config.defaultSite]).map((site) => records.openAlerts(console, site)),
        );
        const known = counts.filter((count) => count !== undefined);
        return known.length === 0 ? undefined : known.reduce((sum, count) => sum + count, 0);
      },
      ...(deps.sweepIntervalMs ? { sweepIntervalMs: deps.sweepIntervalMs } : {}),
    });
    if (config.approvals.approvers.length === 0) {
      logger.warn('APPROVERS is unset: anyone in the channel except the requester may approve changes');
    }
  }
  return {
    ...(approvals ? { approvals } : {}),
    ...(slack ? { slack } : {}),
    ...(mcp ? { mcp } : {}),
    ...(watcher ? { watcher } : {}),
    ...(timers ? { timers } : {}),
  };
}

function buildTimers(
  deps: AppDeps,
  store: Store,
  approvals: Approvals,
  slack: () => SlackFrontEnd | undefined,
): ChangeTimers {
  const { logger } = deps;
  return new ChangeTimers({
    deadlines: store.deadlines(),
    revert: approvals,
    getChange: (id) => approvals.get(id),
    replicaId: store.changes().replicaId,
    logger: logger.child({ component: 'timers' }),
    onChange: (listener) => approvals.onChange(listener),
    gate: approvals,
    // Revert deadlines are part of their change's journal: the store is checked against it.
    ledger: store.changes(),
    keepers: store.timerKeepers(),
    // Slack is built after the timers: events go through it once it exists.
    notifier: { report: async (event) => slack()?.timerNotifier.report(event) },
    // A fresh read (never the cache, nor the status kept for App Home): can the bot still reach it?
    probe: async (site, console) => {
      try {
        // A fleet's change is probed on the console it was made on.
        const gateway =
          console === undefined || !deps.consoles ? deps.gateway : deps.consoles.gateway(console);
        await gateway.classicRead(site, 'stat/sysinfo', z.unknown(), { fresh: true });
        return true;
      } catch (error) {
        logger.warn({ err: error, site }, 'the controller did not answer the probe after a timed change');
        return false;
      }
    },
    ...(deps.now ? { now: deps.now } : {}),
    tickMs: deps.timerTickMs ?? deps.config.changeTimers.tickSeconds * 1000,
    // A `window` deadline runs its scheduled change (fresh checks first), shown in Slack.
    runScheduled: async (changeId) => {
      const outcome = await approvals.runScheduled(changeId);
      await slack()?.showScheduledOutcome(outcome);
      return outcome;
    },
  });
}

function buildWatcher(
  deps: AppDeps,
  store: Store,
  registry: ToolRegistry,
  context: ToolContext,
  approvals: Approvals,
  slack: () => SlackFrontEnd | undefined,
): Watcher | FleetWatcher {
  const { config, logger } = deps;
  // Slack is built after the watcher (its buttons call it): messages go through it once it exists.
  const via = <K extends keyof (WatchNotifier & FleetDigestNotifier)>(name: K) =>
    (async (...args: unknown[]) => {
      const notifier = slack()?.watchNotifier;
      if (!notifier) return undefined;
      return (notifier[name] as (...a: unknown[]) => Promise<unknown>)(...args);
    }) as (WatchNotifier & FleetDigestNotifier)[K];
  const common = {
    config: config.watch,
    data: store.data,
    changes: store.changes(),
    holder: store.changes().replicaId,
    notifier: {
      postIncident: via('postIncident'),
      updateIncident: via('updateIncident'),
      postAlarmSummary: via('postAlarmSummary'),
      postDrift: via('postDrift'),
      updateDrift: via('updateDrift'),
      postDigest: via('postDigest'),
      postFleetDigest: via('postFleetDigest'),
    },
    logger: logger.child({ component: 'watch' }),
    approvals,
    registry,
    context,
    ...(deps.now ? { now: deps.now } : {}),
  };
  // A fleet (CONSOLES_FILE): every console watched, each under its own lease. The one GATEWAY_*
  // console keeps the single `watch` lease, so a replica of the previous version beside this one
  // during a rolling deploy never watches it at the same time.
  const consoles = context.consoles;
  if (consoles?.list().some((entry) => entry.via !== 'single')) {
    const consoleLeases = store.consoleLeases?.();
    const digestLeases = store.leases?.();
    return new FleetWatcher({
      ...common,
      consoles,
      defaultSite: config.defaultSite,
      ...(consoleLeases ? { leases: consoleLeases } : {}),
      ...(digestLeases ? { digestLeases } : {}),
    });
  }
  const leases = store.leases?.();
  return new Watcher({
    ...common,
    site: config.defaultSite,
    gateway: deps.gateway,
    ...(leases ? { leases } : {}),
  });
}

function buildApprovals(
  deps: AppDeps,
  store: Store,
  registry: ToolRegistry,
  context: ToolContext,
  stepUp: InstanceType<IdentityKit['StepUp']> | undefined,
) {
  const { config, logger, slackKit } = deps;
  const groups =
    config.slack.botToken && slackKit ? slackKit.userGroups(config, logger, deps.now) : undefined;
  const policy = new ApprovalPeople({
    approvers: config.approvals.approvers,
    allowSelfApproval: config.approvals.allowSelfApproval,
    requesters: config.approvals.requesters,
    writeChannels: config.approvals.writeChannels,
    groupMembers: async (groupId) => {
      if (!groups) throw new Error(`user group ${groupId} cannot be resolved without Slack in this process`);
      return groups.members(groupId);
    },
    ...(config.onCall && groups
      ? {
          onCallMembers: onCallResolver(config.onCall, groups, logger),
        }
      : {}),
    logger,
  });
  return new Approvals({
    store: store.changes(),
    registry,
    context,
    policy,
    ttlSeconds: config.approvals.ttlSeconds,
    logger,
    ...(deps.now ? { now: deps.now } : {}),
    // Changes approved outside their window wait on a `window` deadline.
    deadlines: store.deadlines(),
    timerKeeper: () => store.timerKeepers().find(),
    ...(stepUp ? { stepUp } : {}),
  });
}

/** Who is on call in a PagerDuty schedule, as Slack users (matched by email through Slack). */
function onCallResolver(
  onCall: NonNullable<AppDeps['config']['onCall']>,
  groups: { userByEmail(email: string): Promise<string | undefined> },
  logger: AppDeps['logger'],
): (scheduleId: string) => Promise<string[]> {
  const pagerDuty = new PagerDutyOnCall({
    apiUrl: onCall.apiUrl,
    token: onCall.token,
    slackUserByEmail: (email) => groups.userByEmail(email),
    logger,
  });
  return (scheduleId) => pagerDuty.members(scheduleId);
}
