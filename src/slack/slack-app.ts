import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, type Logger as BoltLogger, LogLevel, webApi } from '@slack/bolt';
import type { Approvals } from '../approvals/approvals.js';
import type { ChangeNotifier } from '../approvals/notifier.js';
import type { ApproveOutcome } from '../approvals/types.js';
import type { ChangeTimers, TimerNotifier } from '../changes/timers.js';
import type { Config } from '../config.js';
import { settle, settledWithin } from '../lib/settle-within.js';
import type { Logger } from '../log.js';
import type { StoreHealth } from '../store/types.js';
import type { ControllerStatus, ToolContext } from '../tools/core/define-tool.js';
import type { ToolRegistry } from '../tools/core/registry.js';
import type { WatchNotifier } from '../watch/types.js';
import { AckFirstReceiver, slackEarlyAck } from './ack-first-receiver.js';
import { createAppHome } from './app-home.js';
import { APPROVE_ACTION, CANCEL_ACTION } from './blocks/change-request.js';
import { RUN_SCHEDULED_ACTION } from './blocks/home.js';
import { keepPromptMessage, timerEventMessage } from './blocks/keep-prompt.js';
import { PLAN_FORM_CALLBACK } from './blocks/plan-form.js';
import type { SlackMessage } from './blocks/read-result.js';
import { READ_MORE_ACTION } from './blocks/read-result.js';
import { REVERT_ACTION } from './blocks/revert.js';
import { mrkdwn } from './blocks/text.js';
import { TOOL_FORM_CALLBACK } from './blocks/tool-form.js';
import { ChangePresenter } from './change-presenter.js';
import type { SlackDeps } from './deps.js';
import { registerDrainGuard, WorkTracker } from './drain.js';
import { registerChangeButtons } from './listeners/change-buttons.js';
import { HOME_ACTIONS, HOME_OPENED_EVENT, registerHome } from './listeners/home.js';
import { KEEP_ACTIONS, registerKeepButtons } from './listeners/keep-change.js';
import { registerNetCommand } from './listeners/net-command.js';
import { registerPlanForm } from './listeners/plan-form.js';
import { registerReadMore } from './listeners/read-more.js';
import { registerToolForm } from './listeners/tool-form-submission.js';
import { registerWatchButtons, WATCH_ACTIONS, type WatchActions } from './listeners/watch-buttons.js';
import { guardSlackRequests, type ServedEnvelopes } from './request-guard.js';
import { SlackRoutes } from './slack-routes.js';
import { SocketAckFirstReceiver } from './socket-ack-first-receiver.js';
import { SlackTokenCheck } from './token-check.js';
import { slackWatchNotifier } from './watch-notifier.js';

const STOP_ANCHOR_WAIT_MS = 3_000;

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
   * More HTTP routes on PORT, beside /healthz (`POST /mcp`, which app.ts wires), in both modes. A
   * handler gets the request unread (no Slack guard: it checks its own credentials) and must answer it.
   */
  routes?: readonly HttpRoute[];
  /** The controller as App Home shows it (the gateway's read-only status). */
  controllerStatus: (site: string) => Promise<ControllerStatus>;
  /**
   * The console as last read (its version and each tool group's endpoint generations),
   * without a request: /healthz shows it under `controller`.
   */
  controllerInfo?: () =>
    | { version?: string; official: boolean; apis: { group: string; generations: string[] }[] }
    | undefined;
  /** The watcher's Acknowledge, Accept and Revert buttons and `/net digest`. */
  watch?: WatchActions;
  /** Keep-or-revert and temporary changes (Keep and Revert now buttons, App Home). */
  timers?: ChangeTimers;
}

/** One extra HTTP route on the bot's port. */
export interface HttpRoute {
  path: string;
  methods: readonly string[];
  handler: (req: IncomingMessage, res: ServerResponse) => void;
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
  sweep(): Promise<{ expired: number; interrupted: number; announced: number }>;
  /** Shows change requests proposed outside Slack (by MCP clients) in their channel. */
  notifier: ChangeNotifier;
  /** Posts the watcher's alerts, drift and digest. */
  watchNotifier: WatchNotifier;
  /** Says in the change's thread and in AUDIT_CHANNEL what its deadline did. */
  timerNotifier: TimerNotifier;
  /** What a scheduled change did at its window's opening, in its message and thread. */
  showScheduledOutcome(outcome: ApproveOutcome): Promise<void>;
}

/**
 * Web API options: Slack's own URL unless SLACK_API_URL points elsewhere (tests use a fake), and
 * the client's own warnings (retries) in the bot's log rather than as plain lines on stderr.
 */
export function slackClientOptions(config: Config, logger?: Logger): webApi.WebClientOptions {
  return {
    ...(config.slack.apiUrl ? { slackApiUrl: `${config.slack.apiUrl}/` } : {}),
    ...(logger ? { logger: boltLogger(logger) } : {}),
    // A preview that cannot be posted should fail in seconds, not retry silently for 30 minutes.
    retryConfig: { retries: 2, maxRetryTime: 10_000 },
  };
}

function boltLogger(logger: Logger): BoltLogger {
  const log = logger.child({ component: 'bolt' });
  const text = (parts: unknown[]) =>
    parts.map((p) => (typeof p === 'string' ? p : JSON.stringify(p))).join(' ');
  return {
    debug: (...parts: unknown[]) => log.debug(text(parts)),
    info: (...parts: unknown[]) => log.info(text(parts)),
    warn: (...parts: unknown[]) => log.warn(text(parts)),
    error: (...parts: unknown[]) => log.error(text(parts)),
    setLevel: () => {},
    getLevel: () => LogLevel.INFO,
    setName: () => {},
  };
}

/** The slash command the bot serves, and where Slack sends every request in HTTP mode. */
const NET_COMMAND = '/net';
const EVENTS_PATH = '/slack/events';

/** Listens on `port` (0: any free one); rejects on EADDRINUSE and the like instead of crashing. */
function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Builds the Bolt app (HTTP receiver, or Socket Mode when SLACK_APP_TOKEN is set) and its listeners. */
export function createSlackFrontEnd(options: SlackFrontEndOptions): SlackFrontEnd {
  const { config, logger, approvals } = options;
  const { botToken, signingSecret, appToken, port } = config.slack;
  if (!botToken) throw new Error('the Slack front end needs SLACK_BOT_TOKEN');
  const socketMode = Boolean(appToken);
  const mode = socketMode ? 'socket' : 'http';
  const startedAt = Date.now();
  const work = new WorkTracker();
  // A dedicated client for auth.test: no retries of its own (the check retries with its own
  // backoff, in the background), and a rate limit is an answer to wait on, not to sleep in.
  const tokens = new SlackTokenCheck(
    new webApi.WebClient(botToken, {
      ...slackClientOptions(config, logger),
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      timeout: 10_000,
    }),
    botToken,
    logger,
    options.tokenRetryDelaysMs,
  );
  let connected = !socketMode;
  const slackState = () => {
    if (tokens.refused) return { ok: false, error: `SLACK_BOT_TOKEN refused by Slack (${tokens.refused})` };
    if (!tokens.verified || !connected) return { ok: false, error: 'not ready: waiting for Slack' };
    return { ok: true };
  };
  // A replica whose store does not answer, or that Slack has not answered yet, is not ready: the
  // load balancer sends clicks elsewhere. A file journal that cannot be written leaves lookups
  // working: degraded, but still 200.
  const healthBody = async () => {
    if (work.draining) return { ready: false, body: { status: 'stopping', front_end: 'slack', mode } };
    const store = await options.storeHealth();
    const readable = store.ok || store.readOnly === true;
    const pending = readable ? await approvals.count({ state: 'pending' }).catch(() => undefined) : undefined;
    const storeReady = readable && pending !== undefined;
    const slack = slackState();
    const ready = storeReady && slack.ok;
    const body = {
      status: ready ? (store.ok ? 'ok' : 'degraded') : 'unavailable',
      front_end: 'slack',
      mode,
      slack,
      store: {
        kind: store.kind,
        ok: store.ok && storeReady,
        ...(store.readOnly ? { read_only: true } : {}),
        ...(store.error ? { error: store.error } : {}),
      },
      ...(pending !== undefined ? { pending_changes: pending } : {}),
      ...controllerHealth(options.controllerInfo?.()),
      uptime_s: Math.round((Date.now() - startedAt) / 1000),
    };
    return { ready, body };
  };
  const healthz = (_req: IncomingMessage, res: ServerResponse) => {
    void healthBody().then(
      ({ ready, body }) => {
        res.writeHead(ready ? 200 : 503, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      },
      (error: unknown) => {
        logger.error({ err: error }, 'health check failed');
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 'unavailable', front_end: 'slack' }));
      },
    );
  };
  const served: ServedEnvelopes = {
    commands: [NET_COMMAND],
    actions: [
      APPROVE_ACTION,
      CANCEL_ACTION,
      RUN_SCHEDULED_ACTION,
      REVERT_ACTION,
      ...(options.timers ? KEEP_ACTIONS : []),
      READ_MORE_ACTION,
      ...HOME_ACTIONS,
      ...(options.watch ? WATCH_ACTIONS : []),
    ],
    views: [TOOL_FORM_CALLBACK, PLAN_FORM_CALLBACK],
    events: [HOME_OPENED_EVENT],
  };
  // The ack goes out once a request is verified and decoded (HTTP) or an envelope parsed
  // and checked (Socket Mode), before Bolt's authorize, middleware and listeners; a form's
  // submission alone waits for its listener (its ack may carry validation errors). While stopping,
  // a command's ack says so.
  const earlyAck = slackEarlyAck(() => work.draining);
  // HTTP mode: our receiver (ack-first-receiver.ts) behind a guard (size, signature, timestamp, envelope shape: see
  // request-guard.ts), served by our own server with /healthz beside it. Socket Mode has no request
  // URL; the same server carries /healthz alone. Bound before Slack is dialled, so the port is
  // known (PORT=0) and a taken port fails the start instead of the process.
  const httpReceiver = socketMode
    ? undefined
    : new AckFirstReceiver({ logger, boltLogger: boltLogger(logger), earlyAck });
  // Socket Mode: our receiver (socket-ack-first-receiver.ts) on Slack's Socket Mode client, its
  // envelopes checked like the HTTP guard's bodies. apps.connections.open honours SLACK_API_URL
  // (the Socket Mode process tests rely on it).
  const socketReceiver =
    socketMode && appToken
      ? new SocketAckFirstReceiver({
          appToken,
          clientOptions: slackClientOptions(config, logger),
          logger,
          boltLogger: boltLogger(logger),
          earlyAck,
          served,
        })
      : undefined;
  const events = httpReceiver
    ? guardSlackRequests({ signingSecret: signingSecret ?? '', served, logger }, (req, res, envelope) =>
        httpReceiver.handle(req, res, envelope),
      )
    : undefined;
  const routes = options.routes ?? [];
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    // HEAD answers as GET does, without the body (Node drops it): load balancers probe with HEAD.
    if ((req.method === 'GET' || req.method === 'HEAD') && path === '/healthz') return healthz(req, res);
    if (events && req.method === 'POST' && path === EVENTS_PATH) return events(req, res);
    const route = routes.find((r) => r.path === path && r.methods.includes(req.method ?? ''));
    if (route) return route.handler(req, res);
    res.writeHead(404).end();
  });
  const app = new App({
    authorize: tokens.authorize,
    logger: boltLogger(logger),
    clientOptions: slackClientOptions(config),
    // The bot defines no workflow functions: a payload never lends Bolt another token.
    attachFunctionToken: false,
    receiver: socketReceiver ?? httpReceiver,
  });
  // Before any listener: while stopping, new work is refused; until then, all of it is followed.
  registerDrainGuard(app, work, logger);
  const client = new webApi.WebClient(botToken, slackClientOptions(config, logger));
  const presenter = new ChangePresenter(client, approvals, logger, config.approvals.auditChannel);
  const appHome = createAppHome({ ...options, client });
  const deps: SlackDeps = {
    registry: options.registry,
    context: options.context,
    approvals,
    presenter,
    logger,
    defaultSite: config.defaultSite,
    home: appHome.home,
    ...(options.watch ? { watch: options.watch } : {}),
  };
  const listeners = new SlackRoutes(app, logger);
  registerNetCommand(listeners, deps);
  registerChangeButtons(listeners, deps);
  registerReadMore(listeners, deps);
  registerToolForm(listeners, deps);
  registerPlanForm(listeners, deps);
  registerHome(listeners, deps);
  if (options.watch) registerWatchButtons(listeners, deps, options.watch);
  if (options.timers) registerKeepButtons(listeners, deps, options.timers);
  app.error(async (error) => {
    logger.error({ err: error }, 'Slack listener failed');
  });

  let sweeper: NodeJS.Timeout | undefined;
  let anchorer: NodeJS.Timeout | undefined;
  let running = false;
  const anchor = async (reason: 'start' | 'periodic' | 'stop') => {
    try {
      await presenter.postAnchor(reason);
    } catch (error) {
      logger.warn(
        { err: error, channel: config.approvals.auditChannel },
        'could not post a journal anchor to AUDIT_CHANNEL; the next one tries again',
      );
    }
  };
  const sweep = async () => {
    try {
      return await presenter.sweep();
    } catch (error) {
      logger.error({ err: error }, 'change request sweep failed');
      return { expired: 0, interrupted: 0, announced: 0 };
    } finally {
      // After expiry, so a request that just expired is never reminded about.
      await appHome.reminders.run();
    }
  };
  const sweepEvery =
    options.sweepIntervalMs ??
    Math.min(15_000, Math.max(1_000, (config.store.replicaLeaseSeconds * 1000) / 3));
  const closeServer = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.closeAllConnections();
      server.close(() => resolve());
    });
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
      await sweep();
      const boundPort = await listen(server, port);
      running = true;
      sweeper = setInterval(() => void sweep(), sweepEvery);
      sweeper.unref();
      void anchor('start');
      if (config.approvals.anchorMinutes > 0) {
        anchorer = setInterval(() => void anchor('periodic'), config.approvals.anchorMinutes * 60_000);
        anchorer.unref();
      }
      const verified = tokens.untilVerified();
      await tokens.firstAnswer();
      const ready = verified.then(connect);
      // main.ts attaches its handlers after start() returns; until then a refusal is not "unhandled".
      ready.catch(() => {});
      return { port: boundPort, mode, ready };
    },
    async stop() {
      if (sweeper) clearInterval(sweeper);
      if (anchorer) clearInterval(anchorer);
      tokens.stop();
      appHome.stop();
      if (!running) return;
      running = false;
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
      // Slack may be what is failing: what it refused before (edits, thread results) and the last
      // anchor get a few seconds each, not the client's retries. What is still owed then is lost
      // with this process's memory (the journal has the outcome; the channel may lag behind it).
      if (presenter.owes) await settledWithin(settle(presenter.payOwed()), STOP_ANCHOR_WAIT_MS);
      await settledWithin(settle(anchor('stop')), STOP_ANCHOR_WAIT_MS);
      if (socketStarted) await app.stop();
      await closeServer();
    },
    sweepExpired: async () => (await sweep()).expired,
    sweep,
    notifier: {
      announce: (request) => presenter.announce(request),
      link: (message) => presenter.link(message),
    },
    watchNotifier: slackWatchNotifier(client, logger, config.watch?.timeZone),
    timerNotifier: slackTimerNotifier(client, logger, config.approvals.auditChannel, options.timers),
    async showScheduledOutcome(outcome) {
      // Nobody clicked: what a clicker would be told goes into the change's thread instead.
      const request = 'request' in outcome ? outcome.request : undefined;
      const inThread = async (text: string) => {
        if (request) await presenter.threadNote(request, text);
      };
      if (outcome.kind === 'drift') {
        await inThread(
          `:twisted_rightwards_arrows: Not run at the opening of its window: the target changed since it was approved (${mrkdwn(outcome.differences.slice(0, 5).join('; '))}). A new preview was posted; it needs new approvals.`,
        );
      }
      await presenter.showApproval(outcome, outcome.kind === 'drift' ? async () => undefined : inThread);
    },
  };
}

/**
 * Timer events in the change's thread (a new deadline with its Keep button; kept, reverted or a
 * failed revert) and, except the prompt, in AUDIT_CHANNEL. A post that fails is logged: the
 * deadline itself is in the store either way.
 */
function slackTimerNotifier(
  client: webApi.WebClient,
  logger: Logger,
  auditChannel: string | undefined,
  timers: Pick<ChangeTimers, 'pendingRevert'> | undefined,
): TimerNotifier {
  const post = async (channel: string, message: SlackMessage, threadTs?: string) => {
    try {
      await client.chat.postMessage({ channel, ...message, ...(threadTs ? { thread_ts: threadTs } : {}) });
    } catch (error) {
      logger.warn({ err: error, channel }, 'could not post a change timer event');
    }
  };
  return {
    async report(event) {
      const thread = event.change?.message;
      if (event.kind === 'scheduled') {
        const pending = await timers?.pendingRevert(event.deadline.changeId);
        // A temporary change is meant to end: its thread hears when, without a Keep button.
        const message =
          pending && event.deadline.kind === 'keep_or_revert'
            ? keepPromptMessage(pending)
            : timerEventMessage(event);
        if (thread) await post(thread.channel, message, thread.ts);
        return;
      }
      const message = timerEventMessage(event);
      if (thread) await post(thread.channel, message, thread.ts);
      if (auditChannel) await post(auditChannel, message);
    },
  };
}

/** /healthz's `controller`: the version and which generation each tool group uses. */
function controllerHealth(
  info: { version?: string; official: boolean; apis: { group: string; generations: string[] }[] } | undefined,
): { controller?: { version: string | null; official_api: boolean; apis: Record<string, string[]> } } {
  if (info === undefined) return {};
  return {
    controller: {
      version: info.version ?? null,
      official_api: info.official,
      apis: Object.fromEntries(info.apis.map((a) => [a.group, a.generations])),
    },
  };
}
