import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type App, createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { FleetConsoles, fleetGatewayOptions, loadFleet } from '../../src/consoles/fleet-consoles.js';
import { parseConsolesFile } from '../../src/fleet/consoles-file.js';
import { resolveConsoles } from '../../src/fleet/resolve.js';
import { createGateway } from '../../src/gateway/index.js';
import type { Gateway } from '../../src/gateway/types.js';
import { silentLogger } from '../../src/log.js';
import { type Fleet, type FleetOptions, startFleet } from '../../src/simulator/fleet.js';
import type { ConsolePort } from '../../src/tools/core/context.js';

/**
 * A simulated fleet for the file's tests, and the consoles an in-process bot serves from its own
 * consoles file (short timeouts: a down console answers within about a second). The fleet's file
 * binds C0FLEET01 to its first console.
 */
export function useFleetConsoles(options: FleetOptions): {
  fleet: () => Fleet;
  consoles: () => FleetConsoles;
} {
  let fleet: Fleet | undefined;
  beforeAll(async () => {
    fleet = await startFleet(options);
  });
  afterAll(() => fleet?.close());
  const started = (): Fleet => {
    if (!fleet) throw new Error('the fleet starts in beforeAll');
    return fleet;
  };
  return {
    fleet: started,
    consoles() {
      const { text, env } = started().consolesFile();
      const file = parseConsolesFile(text, join(mkdtempSync(join(tmpdir(), 'netops-fleet-')), 'c.yaml'));
      const config = loadConfig({ GATEWAY_TIMEOUT_MS: '800', GATEWAY_READ_BUDGET_MS: '1200' });
      return new FleetConsoles(
        file,
        resolveConsoles(file, env),
        (entry) => createGateway(fleetGatewayOptions(entry, config, silentLogger())),
        1200,
      );
    },
  };
}

/** A bot app in this process over a simulated fleet, loaded from the fleet's consoles file as main.ts loads it. */
export interface FleetApp {
  fleet: Fleet;
  consoles: Awaited<ReturnType<typeof loadFleet>>;
  app: App;
  close(): Promise<void>;
}

/**
 * Starts `options`' fleet and an app serving it with a 1 s request timeout and a 2 s read budget
 * (a console slower than that is named, not waited for), data in a new directory; `moreYaml` adds
 * top-level keys to the fleet's consoles file.
 */
export async function startFleetApp(options: FleetOptions, prefix: string, moreYaml = ''): Promise<FleetApp> {
  const fleet = await startFleet(options);
  const file = fleet.consolesFile();
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const path = join(dir, 'consoles.yaml');
  writeFileSync(path, `${file.text}${moreYaml}`);
  const config = loadConfig({
    ...file.env,
    CONSOLES_FILE: path,
    DATA_DIR: dir,
    TELEMETRY_INTERVAL_SECONDS: '0',
    GATEWAY_READ_BUDGET_MS: '2000',
    GATEWAY_TIMEOUT_MS: '1000',
  });
  const logger = silentLogger();
  const consoles = await loadFleet(config, logger);
  const app = createApp({ config, logger, gateway: consoles.defaultGateway(), consoles });
  return {
    fleet,
    consoles,
    app,
    async close() {
      await app.close();
      await consoles.close();
      await fleet.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fleet's console port over gateways by name (each on the sites given, else the default site). */
export function consolePortOf(
  gateways: Record<string, Gateway>,
  sites: Record<string, string[]> = {},
  readBudgetMs = 2000,
): ConsolePort {
  return {
    fleet: true,
    readBudgetMs,
    list: () => Object.keys(gateways).map((name) => ({ name, labels: {}, via: 'local', sites: sites[name] })),
    gateway: (name) => {
      const gateway = gateways[name];
      if (!gateway) throw new Error(`no console ${name}`);
      return gateway;
    },
    channel: () => undefined,
  };
}
