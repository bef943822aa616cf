import { App, webApi } from '@slack/bolt';
import type { Approvals } from '../approvals/approvals.js';
import type { ChangeNotifier } from '../approvals/notifier.js';
import type { ApproveOutcome } from '../approvals/types.js';
import type { ChangeTimers, TimerNotifier } from '../changes/timers.js';
import type { Config } from '../config.js';
import type { HttpServer } from '../http-server.js';
import type { StepUp } from '../identity/step-up.js';
import { settle, settledWithin } from '../lib/settle-within.js';
import type { Logger } from '../log.js';
import type { StoreHealth } from '../store/types.js';
import type { ControllerStatus, ToolContext } from '../tools/core/define-tool.js';
import type { ToolRegistry } from '../tools/core/registry.js';
import type { FleetDigestNotifier } from '../watch/fleet-digest-watch.js';
import type { WatchNotifier } from '../watch/types.js';
import { REVIEW_BREAKGLASS_ACTION } from './blocks/break-glass.js';
import { APPROVE_ACTION, CANCEL_ACTION } from './blocks/change-request.js';
import { RUN_SCHEDULED_ACTION } from './blocks/home.js';
import { PLAN_FORM_CALLBACK } from './blocks/plan-form.js';
import { READ_MORE_ACTION } from './blocks/read-result.js';
import { REVERT_ACTION } from './blocks/revert.js';
import { TOOL_FORM_CALLBACK } from './blocks/tool-form.js';
import { ChangePresenter } from './change-presenter.js';
import type { SlackDeps } from './deps.js';
import { type ControllerInfo, healthzHandler } from './health.js';
import { createAppHome } from './home/app-home.js';
import { SlackHousekeeping, type SweepCount } from './housekeeping.js';
import { registerBreakGlassButtons } from './listeners/break-glass.js';
import { registerChangeButtons } from './listeners/change-buttons.js';
import { HOME_ACTIONS, HOME_OPENED_EVENT, registerHome } from './listeners/home.js';
import { KEEP_ACTIONS, registerKeepButtons } from './listeners/keep-change.js';
import { registerNetCommand } from './listeners/net-command.js';
import { registerPlanForm } from './listeners/plan-form.js';
import { registerReadMore } from './listeners/read-more.js';
import { ROLLOUT_ACTIONS, registerRolloutButtons } from './listeners/rollout-buttons.js';
import { registerToolForm } from './listeners/tool-form-submission.js';
import { registerWatchButtons, WATCH_ACTIONS, type WatchActions } from './listeners/watch-buttons.js';
import { showScheduledOutcome } from './scheduled-outcome.js';
import { boltLogger, slackClientOptions } from './slack-client.js';
import { SlackRoutes } from './slack-routes.js';
import { registerStepUpCallback, slackUserEmail } from './step-up-route.js';
import { slackTimerNotifier } from './timer-notifier.js';
import { registerDrainGuard, WorkTracker } from './transport/drain.js';
import { slackTransport } from './transport/receivers.js';
import type { ServedEnvelopes } from './transport/request-guard.js';
import { SlackTokenCheck, type WantedScope } from './transport/token-check.js';
import { slackWatchNotifier } from './watch-notifier.js';

const STOP_ANCHOR_WAIT_MS = 3_000;

/** The slash command the bot serves. */
const NET_COMMAND = '/net';

/** What the Slack front end is built from. */
export interface SlackFrontEndOptions {
  config: Config;
  logger: Logger;
  registry: ToolRegistry;
  context: ToolContext;
  approvals: Approvals;
  /** Whether the store answers; /healthz is 503 (not ready) when it does not. */
  storeHealth: () => Promise<StoreHealth>;
  /**
   * How often expired and interrupted change requests are swept and their messages edited
   * [15 s, or a third of REPLICA_LEASE_SECONDS when that is shorter].
   */
  sweepIntervalMs?: number;
  /** Waits between auth.test attempts while Slack cannot be reached [1 s doubling to 60 s]. */
  tokenRetryDelaysMs?: readonly number[];
  /**
   * The process's HTTP server on PORT, in both modes: the front end adds /healthz (and in HTTP mode
   * Slack's events) beside the routes already on it (`POST /mcp`, the webhook), starts and stops it.
   */
  server: HttpServer;
  /** Step-up sign-in: GET /oidc/callback is added to the server, and finishes approvals like a click. */
  stepUp?: StepUp;
  /** The controller as App Home shows it (the gateway's read-only status). */
  controllerStatus: (site: string) => Promise<ControllerStatus>;
  /**
   * The console as last read (its version and each tool group's endpoint generations),
   * without a request: /healthz shows it under `controller`.
   */
  controllerInfo?: () => ControllerInfo | undefined;
  /** The watcher's Acknowledge, Accept and Revert buttons and `/net digest`. */
  watch?: WatchActions;
  /** Keep-or-revert and temporary changes (Keep and Revert now buttons, App Home). */
  timers?: ChangeTimers;
  /** A fleet's open alerts per console, for App Home; undefined for a console not watched. */
  openAlerts?: (console: string) => Promise<number | undefined>;
}

/** What `start()` resolves with once the bot listens on its port. */
export interface SlackStarted {
  port: number;
  mode: 'http' | 'socket';
  /**
   * Resolves with true once Slack has answered auth.test (and, in Socket Mode, the connection is
   * open), with false when the bot stopped first; until then /healthz answers 503. While Slack cannot be reached, auth.test is retried in the
   * background. Rejects with a ConfigError naming SLACK_BOT_TOKEN when Slack refuses the token,
   * or with the error when the Socket Mode connection cannot be opened.
   */
  ready: Promise<boolean>;
}

/** The running Slack bot. */
export interface SlackFrontEnd {
  /**
   * Starts listening on PORT (a free port when PORT=0): Slack's requests and /healthz in HTTP mode,
   * /healthz alone in Socket Mode, which then connects to Slack once the bot token is verified.
   * Resolves with the bound port after the first auth.test attempt, whatever its outcome.
   */
  start(): Promise<SlackStarted>;
  /**
   * Stops taking new work (commands and clicks are answered "restarting, try again"; /healthz
   * says 503 "stopping"), waits up to SHUTDOWN_GRACE_SECONDS for running work (a change being
   * written, its message edits), posts a last journal anchor, then disconnects from Slack.
   */
  stop(): Promise<void>;
  /** Expires overdue change requests now and edits their messages; returns how many. */
  sweepExpired(): Promise<number>;
  /** Sweeps now: expired and interrupted requests, their messages edited; returns how many of each. */
  sweep(): Promise<SweepCount>;
  /** Shows change requests proposed outside Slack (by MCP clients) in their channel. */
  notifier: ChangeNotifier;
  /** Posts the watcher's alerts, drift and digest. */
  watchNotifier: WatchNotifier & FleetDigestNotifier;
  /** Says in the change's thread and in AUDIT_CHANNEL what its deadline did. */
  timerNotifier: TimerNotifier;
  /** What a scheduled change did at its window's opening, in its message and thread. */
  showScheduledOutcome(outcome: ApproveOutcome): Promise<void>;
  /** A Slack user's profile email (users.info), for matching a step-up sign-in. */
  userEmail(userId: string): Promise<string | undefined>;
}

/** The commands, clicks, forms and events the bot has listeners for; the guards refuse the rest. */
function servedEnvelopes(options: SlackFrontEndOptions): ServedEnvelopes {
  return {
    commands: [NET_COMMAND],
    actions: [
      APPROVE_ACTION,
      CANCEL_ACTION,
      RUN_SCHEDULED_ACTION,
      REVERT_ACTION,
      REVIEW_BREAKGLASS_ACTION,
      ...ROLLOUT_ACTIONS,
      ...(options.timers ? KEEP_ACTIONS : []),
      READ_MORE_ACTION,
      ...HOME_ACTIONS,
      ...(options.watch ? WATCH_ACTIONS : []),
    ],
    views: [TOOL_FORM_CALLBACK, PLAN_FORM_CALLBACK],
    events: [HOME_OPENED_EVENT],
  };
}

/** Every listener, behind the drain guard: while stopping, new work is refused; until then, all of it is followed. */
function registerListeners(
  app: App,
  work: WorkTracker,
  deps: SlackDeps,
  options: SlackFrontEndOptions,
): void {
  registerDrainGuard(app, work, deps.logger);
  const listeners = new SlackRoutes(app, deps.logger);
  registerNetCommand(listeners, deps);
  registerChangeButtons(listeners, deps);
  registerBreakGlassButtons(listeners, deps);
  registerRolloutButtons(listeners, deps);
  registerReadMore(listeners, deps);
  registerToolForm(listeners, deps);
  registerPlanForm(listeners, deps);
  registerHome(listeners, deps);
  if (options.watch) registerWatchButtons(listeners, deps, options.watch);
  if (options.timers) registerKeepButtons(listeners, deps, options.timers);
  app.error(async (error) => {
    deps.logger.error({ err: error }, 'Slack listener failed');
  });
}

/**
 * A dedicated client for auth.test: no retries of its own (the check retries with its own backoff,
 * in the background), and a rate limit is an answer to wait on, not to sleep in.
 */
function tokenCheck(options: SlackFrontEndOptions, botToken: string): SlackTokenCheck {
  const { config, logger } = options;
  const client = new webApi.WebClient(botToken, {
    ...slackClientOptions(config, logger),
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: 10_000,
  });
  return new SlackTokenCheck(client, botToken, logger, options.tokenRetryDelaysMs, wantedScopes(config));
}

/** The scopes beyond the basic ones that this configuration's features need. */
function wantedScopes(config: SlackFrontEndOptions['config']): WantedScope[] {
  const byEmail = [
    ...(config.identity ? ['step-up sign-in (OIDC_ISSUER)'] : []),
    ...(config.onCall ? ['on-call approvers (PAGERDUTY_TOKEN)'] : []),
  ].join(' and ');
  if (byEmail === '') return [];
  return [
    { scope: 'users:read', for: byEmail },
    { scope: 'users:read.email', for: byEmail },
  ];
}

/**
 * Waits up to SHUTDOWN_GRACE_SECONDS for running work. Slack may be what is failing: what it
 * refused before (edits, thread results) and the last anchor get a few seconds each, not the
 * client's retries. What is still owed then is lost with this process's memory (the journal has
 * the outcome; the channel may lag behind it).
 */
async function finishWork(
  work: WorkTracker,
  presenter: ChangePresenter,
  housekeeping: SlackHousekeeping,
  config: Config,
  logger: Logger,
): Promise<void> {
  const busy = work.size;
  if (busy > 0) {
    logger.info(
      { running: busy, grace_s: config.shutdownGraceSeconds },
      'stopping: waiting for running work (changes being written, their messages) to finish',
    );
  }
  const left = await work.drain(config.shutdownGraceSeconds * 1000);
  if (left > 0) {
    logger.warn(
      { running: left },
      'SHUTDOWN_GRACE_SECONDS is over with work still running: left as it is; a change caught running shows "outcome unknown" after the restart',
    );
  }
  if (presenter.owes) await settledWithin(settle(presenter.payOwed()), STOP_ANCHOR_WAIT_MS);
  await settledWithin(settle(housekeeping.anchor('stop')), STOP_ANCHOR_WAIT_MS);
}

/** Builds the Bolt app (HTTP receiver, or Socket Mode when SLACK_APP_TOKEN is set) and its listeners. */
export function createSlackFrontEnd(options: SlackFrontEndOptions): SlackFrontEnd {
  const { config, logger, approvals, server } = options;
  const { botToken, appToken, port } = config.slack;
  if (!botToken) throw new Error('the Slack front end needs SLACK_BOT_TOKEN');
  const socketMode = Boolean(appToken);
  const mode = socketMode ? 'socket' : 'http';
  const work = new WorkTracker();
  const tokens = tokenCheck(options, botToken);
  let connected = !socketMode;
  const slackState = () => {
    if (tokens.refused) return { ok: false, error: `SLACK_BOT_TOKEN refused by Slack (${tokens.refused})` };
    if (!tokens.verified || !connected) return { ok: false, error: 'not ready: waiting for Slack' };
    return { ok: true };
  };
  const healthz = healthzHandler({
    mode,
    logger,
    approvals,
    storeHealth: options.storeHealth,
    slackState,
    draining: () => work.draining,
    ...(options.controllerInfo ? { controllerInfo: options.controllerInfo } : {}),
  });
  const transport = slackTransport(config, logger, servedEnvelopes(options), () => work.draining);
  // HEAD answers as GET does, without the body (Node drops it): load balancers probe with HEAD.
  // Listened on before Slack is dialled, so the port is known (PORT=0) and a taken port fails the
  // start instead of the process.
  server.route({ path: '/healthz', methods: ['GET', 'HEAD'], handler: healthz });
  if (transport.events) server.route(transport.events);
  const app = new App({
    authorize: tokens.authorize,
    logger: boltLogger(logger),
    clientOptions: slackClientOptions(config),
    // The bot defines no workflow functions: a payload never lends Bolt another token.
    attachFunctionToken: false,
    receiver: transport.receiver,
  });
  const client = new webApi.WebClient(botToken, slackClientOptions(config, logger));
  const presenter = new ChangePresenter(client, approvals, logger, config.approvals.auditChannel);
  const appHome = createAppHome({ ...options, client });
  if (options.stepUp) {
    registerStepUpCallback(server, { stepUp: options.stepUp, approvals, presenter, client }, logger);
  }
  registerListeners(
    app,
    work,
    {
      registry: options.registry,
      context: options.context,
      approvals,
      presenter,
      logger,
      defaultSite: config.defaultSite,
      home: appHome.home,
      ...(options.watch ? { watch: options.watch } : {}),
    },
    options,
  );
  const housekeeping = new SlackHousekeeping(presenter, appHome, config, logger, options.sweepIntervalMs);
  let running = false;
  let socketStarted = false;
  // The token check also ends when the bot stops before Slack ever answered: nothing connected then.
  const connect = async (): Promise<boolean> => {
    if (!running || !tokens.verified) return false;
    if (!socketMode) return true;
    await app.start();
    socketStarted = true;
    connected = true;
    return running;
  };
  return {
    async start() {
      // Before taking clicks: runs a previous process left behind become unknown, never re-run.
      await housekeeping.sweep();
      const boundPort = await server.listen(port);
      running = true;
      housekeeping.start();
      const verified = tokens.untilVerified();
      await tokens.firstAnswer();
      const ready = verified.then(connect);
      // main.ts attaches its handlers after start() returns; until then a refusal is not "unhandled".
      ready.catch(() => {});
      return { port: boundPort, mode, ready };
    },
    async stop() {
      housekeeping.stop();
      tokens.stop();
      appHome.stop();
      if (!running) return;
      running = false;
      await finishWork(work, presenter, housekeeping, config, logger);
      if (socketStarted) await app.stop();
      await server.close();
    },
    sweepExpired: async () => (await housekeeping.sweep()).expired,
    sweep: housekeeping.sweep,
    notifier: {
      announce: (request) => presenter.announce(request),
      link: (message) => presenter.link(message),
      refresh: (request) => presenter.refresh(request),
    },
    watchNotifier: slackWatchNotifier(client, logger, config.watch?.timeZone),
    timerNotifier: slackTimerNotifier(client, logger, config.approvals.auditChannel, options.timers),
    showScheduledOutcome: (outcome: ApproveOutcome) => showScheduledOutcome(presenter, outcome),
    userEmail: slackUserEmail(client, logger),
  };
}
