import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, type AuthorizeResult, type Logger as BoltLogger, LogLevel, webApi } from '@slack/bolt';
import type { Approvals } from '../approvals/approvals.js';
import type { Config } from '../config.js';
import type { ControllerStatus } from '../gateway/types.js';
import type { Logger } from '../log.js';
import type { StoreHealth } from '../store/types.js';
import type { ToolContext } from '../tools/define-tool.js';
import type { ToolRegistry } from '../tools/registry.js';
import { createAppHome } from './app-home.js';
import { ChangePresenter } from './change-presenter.js';
import type { SlackDeps } from './deps.js';
import { registerChangeButtons } from './listeners/change-buttons.js';
import { registerHome } from './listeners/home.js';
import { registerNetCommand } from './listeners/net-command.js';
import { registerToolForm } from './listeners/tool-form-submission.js';

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
  /** The controller as App Home shows it (the gateway's read-only status). */
  controllerStatus: (site: string) => Promise<ControllerStatus>;
}

/** The running Slack bot. */
export interface SlackFrontEnd {
  /**
   * Starts listening on PORT (a free port when PORT=0): Slack's requests and /healthz in HTTP mode,
   * /healthz alone in Socket Mode, which then connects to Slack. Resolves with the bound port.
   */
  start(): Promise<{ port: number; mode: 'http' | 'socket' }>;
  stop(): Promise<void>;
  /** Expires overdue change requests now and edits their messages; returns how many. */
  sweepExpired(): Promise<number>;
  /** Sweeps now: expired and interrupted requests, their messages edited; returns how many of each. */
  sweep(): Promise<{ expired: number; interrupted: number }>;
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

/**
 * Bolt's authorization with one auth.test for the process, made when the bot starts or at the
 * first request. Bolt's own (`token`) fires auth.test in its constructor and leaves the promise
 * unhandled: with Slack unreachable at start the process died a few seconds later with a stack
 * trace, and it never retried. Here a failed check is logged, and the next request tries again.
 */
function botAuthorization(client: webApi.WebClient, botToken: string) {
  let identity: Promise<AuthorizeResult> | undefined;
  return (): Promise<AuthorizeResult> => {
    identity ??= client.auth.test().then(
      (answer) => ({ botToken, botId: answer.bot_id, botUserId: answer.user_id }),
      (error: unknown) => {
        identity = undefined;
        throw error;
      },
    );
    return identity;
  };
}

/** Builds the Bolt app (HTTP receiver, or Socket Mode when SLACK_APP_TOKEN is set) and its listeners. */
export function createSlackFrontEnd(options: SlackFrontEndOptions): SlackFrontEnd {
  const { config, logger, approvals } = options;
  const { botToken, signingSecret, appToken, port } = config.slack;
  if (!botToken) throw new Error('the Slack front end needs SLACK_BOT_TOKEN');
  const socketMode = Boolean(appToken);
  const mode = socketMode ? 'socket' : 'http';
  const startedAt = Date.now();
  // A replica whose store does not answer is not ready: the load balancer sends clicks elsewhere.
  const healthBody = async () => {
    const store = await options.storeHealth();
    const pending = store.ok ? await approvals.count({ state: 'pending' }).catch(() => undefined) : undefined;
    const ready = store.ok && pending !== undefined;
    const body = {
      status: ready ? 'ok' : 'unavailable',
      front_end: 'slack',
      mode,
      store: { kind: store.kind, ok: ready, ...(store.error ? { error: store.error } : {}) },
      ...(pending !== undefined ? { pending_changes: pending } : {}),
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
  // Socket Mode has no request URL; /healthz gets a server of its own on PORT, bound before Slack is
  // dialled so the port is known (PORT=0) and a taken port fails the start instead of the process.
  const healthServer = socketMode
    ? createServer((req, res) => {
        if (req.method === 'GET' && (req.url ?? '').split('?')[0] === '/healthz') return healthz(req, res);
        res.writeHead(404).end();
      })
    : undefined;
  const client = new webApi.WebClient(botToken, slackClientOptions(config, logger));
  const authorize = botAuthorization(client, botToken);
  const app = new App({
    authorize,
    logger: boltLogger(logger),
    // Bolt hands these options to the Socket Mode client too, so apps.connections.open honours
    // SLACK_API_URL (the Socket Mode process test relies on it).
    clientOptions: slackClientOptions(config),
    ...(socketMode
      ? { socketMode: true, appToken }
      : {
          signingSecret: signingSecret ?? '',
          customRoutes: [{ path: '/healthz', method: ['GET'], handler: healthz }],
        }),
  });
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
  };
  registerNetCommand(app, deps);
  registerChangeButtons(app, deps);
  registerToolForm(app, deps);
  registerHome(app, deps);
  app.error(async (error) => {
    logger.error({ err: error }, 'Slack listener failed');
  });

  const verifyToken = async () => {
    try {
      const identity = await authorize();
      logger.info({ bot_user_id: identity.botUserId }, 'SLACK_BOT_TOKEN verified (auth.test)');
    } catch (error) {
      logger.warn(
        { err: error },
        'could not verify SLACK_BOT_TOKEN with auth.test; the next Slack request retries',
      );
    }
  };
  let sweeper: NodeJS.Timeout | undefined;
  let running = false;
  const sweep = async () => {
    try {
      return await presenter.sweep();
    } catch (error) {
      logger.error({ err: error }, 'change request sweep failed');
      return { expired: 0, interrupted: 0 };
    } finally {
      // After expiry, so a request that just expired is never reminded about.
      await appHome.reminders.run();
    }
  };
  const sweepEvery =
    options.sweepIntervalMs ??
    Math.min(15_000, Math.max(1_000, (config.store.replicaLeaseSeconds * 1000) / 3));
  const closeHealthServer = () =>
    new Promise<void>((resolve) => {
      if (!healthServer?.listening) return resolve();
      healthServer.closeAllConnections();
      healthServer.close(() => resolve());
    });
  return {
    async start() {
      // Before taking clicks: runs a previous process left behind become unknown, never re-run.
      await sweep();
      let boundPort: number;
      if (healthServer) {
        boundPort = await listen(healthServer, port);
        try {
          await app.start();
        } catch (error) {
          await closeHealthServer();
          throw error;
        }
      } else {
        const server = await app.start(port);
        boundPort = (server.address() as AddressInfo).port;
      }
      running = true;
      void verifyToken();
      sweeper = setInterval(() => void sweep(), sweepEvery);
      sweeper.unref();
      return { port: boundPort, mode };
    },
    async stop() {
      if (sweeper) clearInterval(sweeper);
      appHome.stop();
      if (!running) return;
      running = false;
      await app.stop();
      await closeHealthServer();
    },
    sweepExpired: async () => (await sweep()).expired,
    sweep,
  };
}
