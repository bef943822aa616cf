#!/usr/bin/env node
import { createApp } from './app.js';
import { type Config, loadConfig } from './config.js';
import { consoleErrorJson, runInteractiveConsole, runOneShot } from './console/index.js';
import { ConfigError } from './errors.js';
import { createGateway, type GatewayOptions, gatewayOptionsFromConfig } from './gateway/index.js';
import { createLogger, type Logger, readableLogDestination, scrubSecrets, silentLogger } from './log.js';
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
  const simulator = await startSimulator({ firewall: config.simulator.firewall });
  return {
    overrides: { url: simulator.url, apiKey: simulator.apiKey, username: undefined, password: undefined },
    note: `No GATEWAY_URL set: using the built-in controller simulator at ${simulator.url} (demo site "default", ${simulator.firewall} firewall).`,
    stop: () => simulator.close(),
  };
}

/** A bad environment: every variable on stderr, or as a `--json` error on stdout for a script. */
function reportConfigError(error: ConfigError, argv: readonly string[]): number {
  if (argv.some((word) => word.toLowerCase() === '--json')) {
    process.stdout.write(`${consoleErrorJson(error, silentLogger())}\n`);
  } else {
    process.stderr.write(`${error.message}\n`);
  }
  return 2;
}

function consoleLogger(config: Config): Logger {
  // The console shares the terminal with its output: only warnings unless LOG_LEVEL asks for more,
  // as readable lines on stderr. The Slack bot logs JSON lines for a log collector.
  if (config.slack.botToken) return createLogger(config.logLevel);
  return createLogger(
    config.logLevelExplicit ? config.logLevel : 'warn',
    readableLogDestination(process.stderr),
  );
}

async function main(argv: string[]): Promise<number> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) return reportConfigError(error, argv);
    throw error;
  }
  const logger = consoleLogger(config);
  const controller = await controllerFor(config);
  let gatewayOptions: GatewayOptions;
  try {
    gatewayOptions = gatewayOptionsFromConfig(config, logger, controller.overrides);
  } catch (error) {
    await controller.stop();
    if (error instanceof ConfigError) return reportConfigError(error, argv);
    throw error;
  }
  let store: Store;
  try {
    store = await openStore(config.store, logger);
  } catch (error) {
    await controller.stop();
    process.stderr.write(
      `netops: cannot open the store: ${scrubSecrets(error instanceof Error ? error.message : String(error))}\n`,
    );
    return 1;
  }
  const app = createApp({ config, logger, gateway: createGateway(gatewayOptions), store });
  const shutdown = async () => {
    await app.close();
    await controller.stop();
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void shutdown().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
    });
  }
  if (app.slack) {
    if (controller.note) logger.warn(controller.note);
    const { port, mode } = await app.slack.start();
    logger.info(
      { mode, port },
      mode === 'http'
        ? `listening on port ${port}: POST /slack/events, GET /healthz`
        : 'connected to Slack in Socket Mode',
    );
    // Runs until SIGINT/SIGTERM; the signal handlers above close everything.
    await new Promise<never>(() => {});
  }
  const deps = {
    registry: app.registry,
    context: app.context,
    input: process.stdin,
    output: process.stdout,
    errorOutput: process.stderr,
    logger,
    ...(config.terminalColumns === undefined ? {} : { columns: config.terminalColumns }),
  };
  try {
    if (argv.length > 0) {
      if (controller.note && !argv.includes('--json')) process.stderr.write(`${controller.note}\n`);
      return await runOneShot(argv, deps);
    }
    await runInteractiveConsole({
      ...deps,
      ...(controller.note ? { banner: controller.note } : {}),
    });
    return 0;
  } finally {
    await shutdown();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    // Only bugs reach here; the message goes out without a stack to a user's terminal.
    process.stderr.write(`netops: fatal: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
