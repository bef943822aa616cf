import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'vitest';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createGateway, gatewayOptionsFromConfig } from '../src/gateway/index.js';
import { silentLogger } from '../src/log.js';
import { startSimulator, demoReadArguments } from '../src/simulator/index.js';
import { RoundTripCounter } from './helpers/round-trips.js';

it('rounds', async () => {
  for (const v of ['9.0', '10.1']) {
  const sim = await startSimulator({ apiVersion: v });
  const config = loadConfig({ GATEWAY_URL: sim.url, GATEWAY_API_KEY: sim.apiKey, DATA_DIR: mkdtempSync(join(tmpdir(), 'x')) });
  for (const tool of ['list_traffic_routes', 'get_device_connections', 'list_vlans']) {
    for (const mode of ['together', 'none']) {
      const counter = new RoundTripCounter(sim);
      const gateway = createGateway(gatewayOptionsFromConfig(config, silentLogger()));
      const app = createApp({ config, logger: silentLogger(), gateway });
      const req = app.registry.argumentsOf(tool).filter((a) => a.required && a.name !== 'site_id').map((a) => a.name);
      const r = await counter.count(async () => { const w = mode === 'together' ? gateway.warmUp('default') : undefined; const x = await app.registry.run(tool, demoReadArguments(tool, req), app.context); await w; return x; });
      console.log(v, tool, mode, JSON.stringify(r.waves), r.outcome.ok);
      sim.clearFaults();
      await app.close();
    }
  }
  await sim.close();
  }
}, 60000);
