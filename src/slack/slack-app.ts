import type { AddressInfo } from 'node:net';
import { App, type Logger as BoltLogger, LogLevel, type webApi } from '@slack/bolt';
import type { Approvals } from '../approvals/approvals.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { StoreHealth } from '../store/types.js';
import type { ToolContext } from '../tools/define-tool.js';
import type { ToolRegistry } from '../tools/registry.js';
import { ChangePresenter } from './change-presenter.js';
import type { SlackDeps } from './deps.js';
import { registerChangeButtons } from './listeners/change-buttons.js';
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
}

/** The running Slack bot. */
export interface SlackFrontEnd {
  /** Starts listening (HTTP mode: on PORT, or a free port when PORT=0); resolves with the port. */
  start(): Promise<{ port: number | undefined; mode: 'http' | 'socket' }>;
  stop(): Promise<void>;
  /** Expires overdue change requests now and edits their messages; returns how many. */
  sweepExpired(): Promise<number>;
  /** Sweeps now: expired and interrupted requests, their messages edited; returns how many of each. */
  sweep(): Promise<{ expired: number; interrupted: number }>;
}

/** Web API options: Slack's own URL unless SLACK_API_URL points elsewhere (tests use a fake). */
export function slackClientOptions(config: Config): webApi.WebClientOptions {
  return {
    ...(config.slack.apiUrl ? { slackApiUrl: `${config.slack.apiUrl}/` } : {}),
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

/** Builds the Bolt app (HTTP receiver, or Socket Mode when SLACK_APP_TOKEN is set) and its listeners. */
export function createSlackFrontEnd(options: SlackFrontEndOptions): SlackFrontEnd {
  const { config, logger, approvals } = options;
  const { botToken, signingSecret, appToken, port } = config.slack;
  if (!botToken) throw new Error('the Slack front end needs SLACK_BOT_TOKEN');
  const socketMode = Boolean(appToken);
  const startedAt = Date.now();
  // A replica whose store does not answer is not ready: the load balancer sends clicks elsewhere.
  const healthBody = async () => {
    const store = await options.storeHealth();
    const pending = store.ok ? await approvals.count({ state: 'pending' }).catch(() => undefined) : undefined;
    const ready = store.ok && pending !== undefined;
    const body = {
      status: ready ? 'ok' : 'unavailable',
      front_end: 'slack',
      mode: socketMode ? 'socket' : 'http',
      store: { kind: store.kind, ok: ready, ...(store.error ? { error: store.error } : {}) },
      ...(pending !== undefined ? { pending_changes: pending } : {}),
      uptime_s: Math.round((Date.now() - startedAt) / 1000),
    };
    return { ready, body };
  };
  const health = {
    path: '/healthz',
    method: ['GET'],
    handler: (_req: unknown, res: import('node:http').ServerResponse) => {
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
    },
  };
  const app = new App({
    token: botToken,
    logger: boltLogger(logger),
    clientOptions: slackClientOptions(config),
    customRoutes: [health],
    ...(socketMode
      ? { socketMode: true, appToken, installerOptions: { port } }
      : { signingSecret: signingSecret ?? '' }),
  });
  const presenter = new ChangePresenter(app.client, approvals, logger, config.approvals.auditChannel);
  const deps: SlackDeps = {
    registry: options.registry,
    context: options.context,
    approvals,
    presenter,
    logger,
    defaultSite: config.defaultSite,
  };
  registerNetCommand(app, deps);
  registerChangeButtons(app, deps);
  registerToolForm(app, deps);
  app.error(async (error) => {
    logger.error({ err: error }, 'Slack listener failed');
  });

  let sweeper: NodeJS.Timeout | undefined;
  let running = false;
  const sweep = async () => {
    try {
      return await presenter.sweep();
    } catch (error) {
      logger.error({ err: error }, 'change request sweep failed');
      return { expired: 0, interrupted: 0 };
    }
  };
  const sweepEvery =
    options.sweepIntervalMs ??
    Math.min(15_000, Math.max(1_000, (config.store.replicaLeaseSeconds * 1000) / 3));
  return {
    async start() {
      // Before taking clicks: runs a previous process left behind become unknown, never re-run.
      await sweep();
      let boundPort: number | undefined;
      if (socketMode) {
        await app.start();
        boundPort = port;
      } else {
        const server = await app.start(port);
        boundPort = (server.address() as AddressInfo | null)?.port;
      }
      running = true;
      sweeper = setInterval(() => void sweep(), sweepEvery);
      sweeper.unref();
      logger.info({ mode: socketMode ? 'socket' : 'http', port: boundPort }, 'Slack front end started');
      return { port: boundPort, mode: socketMode ? 'socket' : 'http' };
    },
    async stop() {
      if (sweeper) clearInterval(sweeper);
      if (!running) return;
      running = false;
      await app.stop();
    },
    sweepExpired: async () => (await sweep()).expired,
    sweep,
  };
}
