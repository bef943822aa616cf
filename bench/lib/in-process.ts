import { type App, type AppDeps, createApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import { createGateway, type Gateway, gatewayOptionsFromConfig } from '../../src/gateway/index.js';
import { type Logger, silentLogger } from '../../src/log.js';

/** Where a controller answers: the simulator, the recording proxy or the synthetic site. */
export interface ControllerAddress {
  url: string;
  apiKey: string;
}

/**
 * Settings for the 50,000-client synthetic site on a shared, loaded machine: the figures are
 * ratios, so a read must not give up on the way; stat/sta of 50,000 clients is 44 MB, over the
 * 32 MiB default response cap.
 */
export const LARGE_SITE_ENV: Readonly<Record<string, string>> = {
  GATEWAY_TIMEOUT_MS: '120000',
  GATEWAY_READ_BUDGET_MS: '120000',
  GATEWAY_MAX_RESPONSE_BYTES: String(512 * 2 ** 20),
};

/** The bot built in this process through createApp, its parts kept for the figures. */
export interface InProcessBot {
  config: Config;
  logger: Logger;
  gateway: Gateway;
  app: App;
}

/** The config the bot reads for `controller`, data in `dataDir`, plus `env`. */
export function benchConfig(
  controller: ControllerAddress,
  dataDir: string,
  env: Record<string, string> = {},
): Config {
  return loadConfig({
    DATA_DIR: dataDir,
    GATEWAY_URL: controller.url,
    GATEWAY_API_KEY: controller.apiKey,
    ...env,
  });
}

/** A silent bot in this process that reaches `controller` over real HTTP; `deps` adds to createApp's. */
export function inProcessBot(
  controller: ControllerAddress,
  dataDir: string,
  env: Record<string, string> = {},
  deps: Partial<Omit<AppDeps, 'config' | 'logger' | 'gateway'>> = {},
): InProcessBot {
  const config = benchConfig(controller, dataDir, env);
  return botFromConfig(config, deps);
}

/** A silent bot in this process from a config already loaded. */
export function botFromConfig(
  config: Config,
  deps: Partial<Omit<AppDeps, 'config' | 'logger' | 'gateway'>> = {},
): InProcessBot {
  const logger = silentLogger();
  const gateway = createGateway(gatewayOptionsFromConfig(config, logger));
  return { config, logger, gateway, app: createApp({ config, logger, gateway, ...deps }) };
}

/** One figure: wall time and CPU time of this process, in ms. */
export interface Timed {
  ms: number;
  cpuMs: number;
}

/** Wall and CPU time of one call, in ms (this process's CPU: a controller in its own process is its own). */
export async function clock(run: () => Promise<unknown> | unknown): Promise<Timed> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await run();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000 };
}

/** The site's gateway in a stat/device body: every device and client is behind it, the largest blast radius there is. */
export function siteGatewayMac(deviceBody: string): string {
  const listed = (JSON.parse(deviceBody) as { data: { mac: string; type?: string }[] }).data;
  const found = listed.find((d) => ['udm', 'ugw', 'uxg'].includes(d.type ?? '')) ?? listed[0];
  return String(found?.mac ?? '');
}
