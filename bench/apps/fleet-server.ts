/**
 * A simulated fleet in a process of its own (`child_process.fork`, IPC), so that fifty consoles
 * answering do not run on the bot's event loop and the bench measures the bot alone. Started with
 * `--consoles <JSON list of FleetConsoleOptions> --sites N`; sends `{ type: 'ready', text, env }`
 * (the consoles file and its secrets) and exits when the channel closes.
 */
import { parseArgs } from 'node:util';
import { type FleetConsoleOptions, startFleet } from '../../src/simulator/fleet.js';

/** What the child sends once the fleet listens. */
export type FleetServerMessage = { type: 'ready'; text: string; env: Record<string, string> };

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { consoles: { type: 'string' }, sites: { type: 'string' } } });
  const consoles = JSON.parse(values.consoles ?? '3') as number | FleetConsoleOptions[];
  const fleet = await startFleet({ consoles, sites: Number(values.sites ?? 2) });
  const file = fleet.consolesFile();
  process.on('disconnect', () => {
    void fleet.close().then(() => process.exit(0));
  });
  process.send?.({ type: 'ready', text: file.text, env: file.env } satisfies FleetServerMessage);
}

main().catch((error: unknown) => {
  process.stderr.write(`fleet server: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
