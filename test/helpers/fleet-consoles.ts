import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { FleetConsoles, fleetGatewayOptions } from '../../src/consoles/fleet-consoles.js';
import { parseConsolesFile } from '../../src/fleet/consoles-file.js';
import { resolveConsoles } from '../../src/fleet/resolve.js';
import { createGateway } from '../../src/gateway/index.js';
import { silentLogger } from '../../src/log.js';
import { type Fleet, type FleetOptions, startFleet } from '../../src/simulator/fleet.js';

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
