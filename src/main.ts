#!/usr/bin/env node
import { userInfo } from 'node:os';
import { pino } from 'pino';
import { createApp } from './app.js';
import { consoleActor } from './approvals/console-requester.js';
import { type Config, configWarnings, loadConfig, runningInContainer } from './config.js';
import { consoleErrorJson, runInteractiveConsole, runOneShot } from './console/index.js';
import { type Consoles, singleConsole } from './consoles/consoles.js';
import { ConfigError, GatewayUnavailableError } from './errors.js';
import { CloudBudget } from './fleet/rate-budget.js';
import {
  createGateway,
  type Gateway,
  type GatewayOptions,
  gatewayOptionsFromConfig,
} from './gateway/index.js';
import { packageVersion } from './lib/package-version.js';
import { setConfiguredSecrets } from './lib/secret-text.js';
import {
  configuredSecretValues,
  createLogger,
  type Logger,
  readableLogDestination,
  scrubConfiguredSecrets,
  scrubSecrets,
  silentLogger,
} from './log.js';
import type { Policy } from './policy/index.js';
import { loadPolicy } from './policy-startup.js';
import { installProcessErrorHandlers } from './process-errors.js';
import { openStore } from './store/open-store.js';
import type { Store } from './store/types.js';

/** A controller to talk to: the configured one, or the built-in simulator started for this run. */
async function controllerFor(
  config: Config,
): Promise<{ overrides: Partial<GatewayOptions>; note?: string; stop(): Promise<void> }> {
  if (config.gateway.apiType === 'cloud' || config.gateway.url)
    return { overrides: {}, stop: async () => {} };
  // Loaded only when needed: a deployment against a real controller never starts it.
  const { startSimulator } = await import('./simulator/server.js');
  // Its counters advance every second, so telemetry windows and charts have data in a demo.
  const simulator = await startSimulator({
    firewall: config.simulator.firewall,
    apiVersion: config.simulator.apiVersion,
    trafficIntervalMs: 1000,
    ...(config.simulator.requestLog === undefined ? {} : { requestLog: config.simulator.requestLog }),
  });
  return {
    overrides: { url: simulator.url, apiKey: simulator.apiKey, username: undefined, password: undefined },
    note: `No GATEWAY_URL set: using the built-in controller simulator at ${simulator.url} (demo site "default", ${simulator.firewall} firewall).`,
    stop: () => simulator.close(),
  };
}

/** A bad environment: every variable on stderr, or as a `--json` error on stdout for a script. */
function reportConfigError(error: ConfigError, argv: readonly string[]): 2 {
  if (argv.some((word) => word.toLowerCase() === '--json')) {
    process.stdout.write(`${consoleErrorJson(error, silentLogger())}\n`);
  } else {
    process.stderr.write(`${error.message}\n`);
  }
  return 2;
}

/** The Slack bot is a service: JSON log lines on stdout at LOG_LEVEL, for whatever collects them. */
function serviceLogger(config: Config): Logger {
  return createLogger(config.logLevel, pino.destination({ dest: 1, sync: true }));
}

/** The console shares the terminal with its output: readable warnings on stderr unless LOG_LEVEL asks for more. */
function consoleLogger(config: Config): Logger {
  return createLogger(
    config.logLevelExplicit ? config.logLevel : 'warn',
    readableLogDestination(process.stderr),
  );
}

/** The gateway options, or exit code 2 when the configuration cannot give any. */
function gatewayOptionsOr2(
  config: Config,
  logger: Logger,
  overrides: Partial<GatewayOptions>,
  argv: readonly string[],
): GatewayOptions | 2 {
  try {
    return gatewayOptionsFromConfig(config, logger, overrides);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return reportConfigError(error, argv);
  }
}

/** The store (files in DATA_DIR, or PostgreSQL), or undefined after saying why it cannot be opened. */
async function openStoreOrSay(config: Config, logger: Logger): Promise<Store | undefined> {
  try {
    return await openStore(config.store, logger);
  } catch (error) {
    process.stderr.write(
      `netops: cannot open the store: ${scrubSecrets(error instanceof Error ? error.message : String(error))}\n`,
    );
    return undefined;
  }
}

/** What every face starts from, once opened. */
interface Parts {
  controller: Awaited<ReturnType<typeof controllerFor>>;
  /** The gateway background work (telemetry, watch) uses: the one console's, or a fleet's first. */
  gateway: Gateway;
  /** The controller's URL as reached, for self-lockout; unset in a fleet and in cloud mode. */
  controllerUrl: string | undefined;
  consoles: Consoles;
  store: Store;
}

/** The single console's gateway and controller, or exit code 2 when the configuration cannot give one. */
async function singleParts(
  config: Config,
  logger: Logger,
  argv: readonly string[],
): Promise<Omit<Parts, 'store'> | 2> {
  const controller = await controllerFor(config);
  const gatewayOptions = gatewayOptionsOr2(config, logger, controller.overrides, argv);
  if (gatewayOptions === 2) {
    await controller.stop();
    return 2;
  }
  // Through the cloud, Site Manager counts every request against the key: one budget for the replicas.
  const budget =
    gatewayOptions.apiType === 'cloud' && gatewayOptions.apiKey !== undefined
      ? new CloudBudget(gatewayOptions.apiKey).logTo(logger)
      : undefined;
  const gateway = createGateway(
    budget === undefined ? gatewayOptions : { ...gatewayOptions, guards: [budget] },
  );
  return {
    controller,
    gateway,
    controllerUrl: gatewayOptions.url,
    consoles: singleConsole(gateway, config.gateway.readBudgetMs, budget),
  };
}

/** CONSOLES_FILE's consoles (no simulator), or exit code 2 when the file is invalid. */
async function fleetParts(
  config: Config,
  logger: Logger,
  argv: readonly string[],
): Promise<Omit<Parts, 'store'> | 1 | 2> {
  // Loaded only for a fleet: its file parser (YAML) is no part of a one-console start.
  const { loadFleet } = await import('./consoles/fleet-consoles.js');
  let fleet: Awaited<ReturnType<typeof loadFleet>>;
  try {
    fleet = await loadFleet(config, logger);
  } catch (error) {
    if (error instanceof GatewayUnavailableError) {
      // Discovery's Site Manager stayed silent through its retries: a start without the fleet
      // would answer every console question wrongly, and the process manager restarts with back-off.
      process.stderr.write(`netops: ${scrubSecrets(error.message)}\n`);
      return 1;
    }
    if (!(error instanceof ConfigError)) throw error;
    return reportConfigError(error, argv);
  }
  // The keys read from the environment or files are scrubbed from any text, like GATEWAY_API_KEY.
  setConfiguredSecrets([...configuredSecretValues(config), ...fleet.secretValues()]);
  return {
    controller: { overrides: {}, stop: async () => {} },
    gateway: fleet.defaultGateway(),
    controllerUrl: undefined,
    consoles: fleet,
  };
}

/**
 * What every face starts from: the consoles (the built-in simulator when none is configured) and
 * the store; or the exit code when one of them cannot be had (2: a bad variable or consoles file,
 * 1: Site Manager silent at discovery, or the store cannot be opened), with whatever was started
 * stopped again.
 */
async function openParts(config: Config, logger: Logger, argv: readonly string[]): Promise<Parts | 1 | 2> {
  const served =
    config.consolesFile === undefined
      ? await singleParts(config, logger, argv)
      : await fleetParts(config, logger, argv);
  if (served === 1 || served === 2) return served;
  const store = await openStoreOrSay(config, logger);
  if (!store) {
    await served.consoles.close();
    await served.controller.stop();
    return 1;
  }
  if (store.rateBudget !== undefined) served.consoles.shareBudget?.(store.rateBudget());
  return { ...served, store };
}

/** Runs the Slack bot until SIGINT/SIGTERM; resolves only when it could not start. */
async function runSlack(config: Config, policy: Policy): Promise<number> {
  const logger = serviceLogger(config);
  // Only the service: a one-shot run in the bot's container (`docker exec`) need not hear it each time.
  for (const warning of configWarnings(config, { container: runningInContainer() })) logger.warn(warning);
  // A request or Slack must never stop the bot; only an exception that leaves its state unknown does.
  installProcessErrorHandlers(logger, (code) => process.exit(code));
  const parts = await openParts(config, logger, []);
  if (typeof parts === 'number') return parts;
  const { controller, gateway, store, consoles } = parts;
  const { slackKit } = await import('./slack/slack-kit.js');
  // The OpenID client and the users file's parser are loaded only with an identity provider.
  const identityKit = config.identity ? (await import('./identity/kit.js')).identityKit : undefined;
  // The MCP SDK is loaded only when POST /mcp is served.
  const mcpKit = config.mcp.tokens.length > 0 ? (await import('./mcp/mcp-kit.js')).mcpKit : undefined;
  const app = createApp({
    config,
    logger,
    gateway,
    consoles,
    store,
    slackKit,
    ...(identityKit ? { identityKit } : {}),
    ...(mcpKit ? { mcpKit } : {}),
    policy,
    ...(parts.controllerUrl ? { controllerUrl: parts.controllerUrl } : {}),
  });
  const slack = app.slack;
  if (!slack) throw new Error('SLACK_BOT_TOKEN is set but the app has no Slack front end');
  // The journal copied to a SIEM, by the long-running bot only (one replica at a time: a lease).
  // Loaded only when configured: its webhook client is no part of a bot that exports nothing.
  const exporter = config.audit
    ? (await import('./audit/index.js')).auditExporter(config.audit, store, logger)
    : undefined;
  const shutdown = async () => {
    await exporter?.stop();
    await app.close();
    await controller.stop();
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      logger.info({ signal }, 'stopping');
      // Running changes get SHUTDOWN_GRACE_SECONDS to finish; a connection that will not close
      // after that must not keep a stopping container alive.
      setTimeout(() => process.exit(1), (config.shutdownGraceSeconds + 10) * 1000).unref();
      shutdown().then(
        () => {
          logger.info('stopped');
          process.exit(0);
        },
        (error: unknown) => {
          logger.error({ err: error }, 'stopping failed');
          process.exit(1);
        },
      );
    });
  }
  if (controller.note) logger.warn(controller.note);
  try {
    const { port, mode, ready } = await slack.start();
    const mcp = app.mcp ? `, POST /mcp (MCP_WRITES=${config.mcp.writes})` : '';
    // The network's watcher runs in the long-running bot only (one replica polls: a lease).
    app.watcher?.start();
    // Fires the deadlines of keep-or-revert and temporary changes (once across replicas).
    app.timers?.start();
    exporter?.start();
    // In the background, best effort, once Slack's requests are taken: what the first command
    // would otherwise wait for (detection, login, the site lookup). A failure is logged and tried
    // again by the first command.
    void gateway.warmUp(config.defaultSite);
    logger.info(
      { mode, port },
      mode === 'http'
        ? `listening on port ${port}: POST /slack/events, GET /healthz${mcp}`
        : `GET /healthz${mcp} on port ${port}; connecting to Slack in Socket Mode`,
    );
    // Slack unreachable: auth.test is retried in the background and /healthz says "not ready".
    // A refused SLACK_BOT_TOKEN is a bad variable (exit 2); a refused Socket Mode connection, 1.
    ready.then(
      (connected) => {
        // Stopped before Slack answered: "stopping" and "stopped" are all that happened.
        if (mode === 'socket' && connected)
          logger.info(
            { mode, port },
            `connected to Slack in Socket Mode; GET /healthz${mcp} on port ${port}`,
          );
      },
      (error: unknown) => {
        const refused = error instanceof ConfigError;
        if (refused) logger.fatal(error.issues.map((i) => `${i.field} ${i.rule}`).join('; '));
        else logger.fatal({ err: error }, 'the Slack front end could not start');
        setTimeout(() => process.exit(refused ? 2 : 1), 10_000).unref();
        void shutdown().finally(() => process.exit(refused ? 2 : 1));
      },
    );
  } catch (error) {
    logger.fatal({ err: error }, 'the Slack front end could not start');
    await shutdown();
    return 1;
  }
  // Runs until SIGINT/SIGTERM; the signal handlers above close everything and exit.
  return new Promise<never>(() => {});
}

/** The OS user running the console (the requester of its writes); 'unknown' where none is set. */
function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

/**
 * The app of a process beside the bot (the console, the MCP server): the opened parts, with no Slack
 * bot token, so no Slack parts are built; `shutdown` closes the app, then the controller.
 */
function appBesideTheBot(
  config: Config,
  logger: Logger,
  parts: Parts,
  policy: Policy,
  face: Pick<Parameters<typeof createApp>[0], 'mcpKit' | 'ownsChanges'>,
) {
  const app = createApp({
    config: { ...config, slack: { ...config.slack, botToken: undefined } },
    logger,
    gateway: parts.gateway,
    consoles: parts.consoles,
    store: parts.store,
    ...face,
    policy,
    ...(parts.controllerUrl ? { controllerUrl: parts.controllerUrl } : {}),
  });
  const shutdown = async () => {
    await app.close();
    await parts.controller.stop();
  };
  return { app, shutdown };
}

/** The terminal console: one command from argv, or the interactive loop on stdin. */
async function runConsole(config: Config, argv: string[], policy: Policy): Promise<number> {
  const logger = consoleLogger(config);
  for (const warning of configWarnings(config)) logger.warn(warning);
  const parts = await openParts(config, logger, argv);
  if (typeof parts === 'number') return parts;
  // A console run beside the bot (same environment) builds no Slack parts. Its writes are recorded
  // in the same store: PostgreSQL takes many writers, and the file journal is appended under a
  // cross-process lock after reading what the bot appended (store/file/file-lock.ts).
  const { app, shutdown } = appBesideTheBot(config, logger, parts, policy, { ownsChanges: true });
  const { controller, store } = parts;
  const stop = (signal: 'SIGINT' | 'SIGTERM') => {
    void shutdown().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  // The interactive console takes Ctrl-C itself: at `approve? [y/N]` it means "not run".
  if (argv.length > 0) process.once('SIGINT', () => stop('SIGINT'));
  const deps = {
    registry: app.registry,
    context: app.context,
    input: process.stdin,
    output: process.stdout,
    errorOutput: process.stderr,
    logger,
    changes: store.changeHistory(),
    ...(app.approvals ? { recorder: app.approvals } : {}),
    operator: consoleActor(osUser()),
    ...(config.terminalColumns === undefined ? {} : { columns: config.terminalColumns }),
  };
  try {
    if (argv.length > 0) {
      if (controller.note && !argv.includes('--json')) process.stderr.write(`${controller.note}\n`);
      return await runOneShot(argv, deps);
    }
    await runInteractiveConsole({
      ...deps,
      signals: process,
      abort: () => stop('SIGINT'),
      ...(controller.note ? { banner: controller.note } : {}),
    });
    return 0;
  } finally {
    await shutdown();
  }
}

/**
 * Why `netops mcp` cannot run with this configuration, or undefined when it can. Over stdio it is
 * a process of its own beside the bot: change requests must reach the bot through a store they
 * share, and a journal in DATA_DIR has one writer.
 */
function mcpStdioRefusal(config: Config): string | undefined {
  const { writes, approvalChannel } = config.mcp;
  if (writes === 'approval') {
    if (!config.store.database) {
      // With the Slack bot's token the journal in DATA_DIR is the bot's, so confirm is no way out.
      const otherwise = config.slack.botToken ? 'MCP_WRITES=off (reads only)' : 'MCP_WRITES=confirm or off';
      return `MCP_WRITES=approval over stdio needs the shared store (DATABASE_URL): \`netops mcp\` is a process of its own, and the Slack bot must see its change requests to post and run them. Set DATABASE_URL (the bot’s), or ${otherwise}.`;
    }
    if (!approvalChannel) {
      return 'MCP_WRITES=approval needs MCP_APPROVAL_CHANNEL, the Slack channel where the bot posts change requests from MCP clients.';
    }
  }
  if (writes === 'confirm' && config.slack.botToken && !config.store.database) {
    return 'MCP_WRITES=confirm journals every write, and with SLACK_BOT_TOKEN set the Slack bot owns the journal in DATA_DIR. Set DATABASE_URL to share the bot’s store, or MCP_WRITES=off (or approval, with DATABASE_URL).';
  }
  return undefined;
}

/** `netops mcp`: the MCP front end on stdin/stdout (for desktop assistants) until the client closes it. */
async function runMcp(config: Config, policy: Policy): Promise<number> {
  // stdout carries the protocol: every log line goes to stderr.
  const logger = consoleLogger(config);
  for (const warning of configWarnings(config)) logger.warn(warning);
  const refusal = mcpStdioRefusal(config);
  if (refusal) {
    process.stderr.write(`netops mcp: ${refusal}\n`);
    return 2;
  }
  const parts = await openParts(config, logger, []);
  if (typeof parts === 'number') return parts;
  const { mcpKit } = await import('./mcp/mcp-kit.js');
  // No Slack bot in this process: the bot (sharing the store) posts and runs approval requests.
  const { app, shutdown } = appBesideTheBot(config, logger, parts, policy, {
    mcpKit,
    ownsChanges: config.mcp.writes !== 'off',
  });
  const { controller } = parts;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void shutdown().finally(() => process.exit(0));
    });
  }
  if (controller.note) logger.warn(controller.note);
  try {
    await app.mcp?.serveStdio();
    return 0;
  } finally {
    await shutdown();
  }
}

async function main(argv: string[]): Promise<number> {
  // Answered before any configuration is read: it needs none, and must work where none is set.
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
    process.stdout.write(`netops-bot ${packageVersion()}\n`);
    return 0;
  }
  let config: Config;
  let policy: Policy;
  try {
    config = loadConfig(undefined, { slackBot: argv.length === 0 });
    // A POLICY_FILE that does not parse or type-check stops every face here (exit 2).
    policy = await loadPolicy(config);
  } catch (error) {
    if (error instanceof ConfigError) return reportConfigError(error, argv);
    throw error;
  }
  // Before anything can log or answer: no configured secret leaves the process as text.
  scrubConfiguredSecrets(config);
  // `mcp` is not a tool: it serves MCP on stdio (checked before any console parsing).
  if (argv[0] === 'mcp') {
    if (argv.length > 1) {
      process.stderr.write(
        'usage: netops mcp   (MCP on stdin/stdout; configured by environment variables)\n',
      );
      return 2;
    }
    return runMcp(config, policy);
  }
  // Arguments always mean a one-shot console command, also where the Slack variables are set
  // (`docker exec … node dist/main.js list_vlans` must not start a second bot).
  return config.slack.botToken && argv.length === 0
    ? runSlack(config, policy)
    : runConsole(config, argv, policy);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    // Only bugs reach here; the message goes out without a stack to a user's terminal.
    process.stderr.write(`netops: fatal: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
