/**
 * The controller of the telemetry part, in a process of its own: the simulator serving a synthetic
 * site (`--devices`, `--clients`, seeded), so that its `JSON.stringify` of a 44 MB `stat/sta` does
 * not run on the bot's event loop and the bench measures the bot alone. Started with
 * `child_process.fork` (IPC): it sends `{ type: 'ready', url, apiKey }`, answers
 * `{ type: 'advance', seconds }` (counters move on by that much) with `{ type: 'advanced' }`, and
 * exits when the channel closes.
 */
import { parseArgs } from 'node:util';
import { type ClientRecord, type DeviceRecord, startSimulator } from '../../src/simulator/index.js';
import { syntheticSite } from '../synthetic-site.js';

/** What the parent sends. */
export type ControllerCommand = { type: 'advance'; seconds: number };
/** What the child sends. */
export type ControllerMessage = { type: 'ready'; url: string; apiKey: string } | { type: 'advanced' };

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { devices: { type: 'string' }, clients: { type: 'string' }, seed: { type: 'string' } },
  });
  const devices = Number(values.devices ?? 2000);
  const clients = Number(values.clients ?? 50_000);
  const site = syntheticSite({ devices, clients, seed: Number(values.seed ?? 2024) });
  const sim = await startSimulator();
  const state = sim.state.site('default');
  if (!state) throw new Error('the simulator has no default site');
  state.clients = site.clients as ClientRecord[];
  state.devices = site.devices as DeviceRecord[];
  const send = (message: ControllerMessage) => process.send?.(message);
  process.on('message', (command: ControllerCommand) => {
    if (command.type === 'advance') {
      sim.advanceTraffic({ seconds: command.seconds });
      send({ type: 'advanced' });
    }
  });
  process.on('disconnect', () => {
    void sim.close().then(() => process.exit(0));
  });
  send({ type: 'ready', url: sim.url, apiKey: sim.apiKey });
}

main().catch((error: unknown) => {
  process.stderr.write(`synthetic controller: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
