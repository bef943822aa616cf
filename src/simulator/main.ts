/**
 * `npm run simulator [-- --port N] [--flavor self-hosted] [--firewall legacy] [--seed N]`: runs
 * the simulated controller alone and prints how to point the bot at it. With `--consoles N
 * [--sites M]` it runs a fleet instead and prints each console and a consoles file for it.
 */
import { parseArgs } from 'node:util';
import { API_VERSION_PATTERN } from './api-version.js';
import { type FleetOptions, startFleet } from './fleet.js';
import { FLEET_LIMITS } from './fleet-seed.js';
import { startSimulator } from './server.js';
import { SIMULATOR_FIREWALLS, type SimulatorFirewall, type SimulatorOptions } from './types.js';

const USAGE = [
  'usage: npm run simulator -- [--port N] [--flavor unifi-os|self-hosted] [--firewall zone-based|legacy] [--seed N] [--api-version 9.0|10.1]',
  '       npm run simulator -- --consoles N [--sites M] [--seed N]',
].join('\n');

const FLEET_FLAGS = ['consoles', 'sites'] as const;
const SINGLE_ONLY = ['port', 'flavor', 'firewall', 'api-version'] as const;

function count(text: string, flag: string, max: number): number {
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > max)
    throw new Error(`--${flag} must be 1–${max}`);
  return Number(text);
}

/** Fleet options from argv, or undefined when argv asks for one console. */
function fleetFromArgv(argv: readonly string[]): FleetOptions | undefined {
  const { values } = parseArgs({
    args: [...argv],
    options: Object.fromEntries(
      [...FLEET_FLAGS, ...SINGLE_ONLY, 'seed'].map((name) => [name, { type: 'string' as const }]),
    ),
    strict: true,
  });
  if (values.consoles === undefined) {
    if (values.sites !== undefined) throw new Error('--sites needs --consoles');
    return undefined;
  }
  const clash = SINGLE_ONLY.find((name) => values[name] !== undefined);
  if (clash !== undefined)
    throw new Error(`--${clash} is for one console; a fleet's consoles each pick their own`);
  const options: FleetOptions = {
    consoles: count(String(values.consoles), 'consoles', FLEET_LIMITS.consoles),
    sites: values.sites === undefined ? 2 : count(String(values.sites), 'sites', FLEET_LIMITS.sites),
  };
  if (values.seed !== undefined) {
    if (!/^\d+$/.test(String(values.seed))) throw new Error('--seed must be a whole number');
    options.seed = Number(values.seed);
  }
  return options;
}

/** Turns argv into simulator options; throws with a usage hint on bad input. */
function optionsFromArgv(argv: readonly string[]): SimulatorOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      port: { type: 'string' },
      flavor: { type: 'string' },
      firewall: { type: 'string' },
      seed: { type: 'string' },
      'api-version': { type: 'string' },
    },
    strict: true,
  });
  const options: SimulatorOptions = {};
  if (values.port !== undefined) {
    if (!/^\d+$/.test(values.port) || Number(values.port) > 65535) throw new Error('--port must be 0–65535');
    options.port = Number(values.port);
  }
  if (values.flavor !== undefined) {
    if (values.flavor !== 'unifi-os' && values.flavor !== 'self-hosted') {
      throw new Error('--flavor must be unifi-os or self-hosted');
    }
    options.flavor = values.flavor;
  }
  if (values.firewall !== undefined) {
    if (!SIMULATOR_FIREWALLS.includes(values.firewall as SimulatorFirewall)) {
      throw new Error('--firewall must be zone-based or legacy');
    }
    options.firewall = values.firewall as SimulatorFirewall;
  }
  const apiVersion = values['api-version'];
  if (apiVersion !== undefined) {
    if (!API_VERSION_PATTERN.test(apiVersion))
      throw new Error('--api-version must be a version such as 9.0 or 10.1');
    options.apiVersion = apiVersion;
  }
  if (values.seed !== undefined) {
    if (!/^\d+$/.test(values.seed)) throw new Error('--seed must be a whole number');
    options.seed = Number(values.seed);
  }
  return options;
}

async function runFleet(options: FleetOptions): Promise<void> {
  const fleet = await startFleet(options);
  const file = fleet.consolesFile();
  const lines = [
    `UniFi fleet simulator: ${fleet.consoles.length} consoles, cloud (Site Manager and connector) on ${fleet.cloud.url}`,
    ...fleet.consoles.map(
      (each) =>
        `  ${each.name.padEnd(12)} Network ${each.version.padEnd(5)} ${each.url ?? 'connector only'}  sites: ${each.siteNames.join(', ')}`,
    ),
    '',
    'Consoles file (CONSOLES_FILE):',
    file.text.trimEnd(),
    '',
    'Its secrets:',
    ...Object.entries(file.env).map(([name, value]) => `  export ${name}=${value}`),
    '',
    'Ctrl+C to stop.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  stopOnSignal(() => fleet.close(), 'the fleet');
}

function stopOnSignal(close: () => Promise<void>, what: string): void {
  const stop = (signal: string) => {
    process.stdout.write(`\n${signal}: stopping ${what}\n`);
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

async function main(): Promise<void> {
  let options: SimulatorOptions;
  try {
    const fleet = fleetFromArgv(process.argv.slice(2));
    if (fleet !== undefined) return await runFleet(fleet);
    options = optionsFromArgv(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.stderr.write(`${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  const simulator = await startSimulator(options);
  const lines = [
    `UniFi controller simulator (${simulator.flavor}, ${simulator.firewall} firewall) listening on ${simulator.url}`,
    `  API key:  ${simulator.apiKey}`,
    `  Login:    ${simulator.username} / ${simulator.password}`,
    `  Console:  ${simulator.consoleId} (cloud connector at ${simulator.url}/v1/connector/consoles/…)`,
    `  Network:  ${simulator.apiVersion} (which official API operations exist; --api-version)`,
    '',
    'Point the bot at it:',
    `  GATEWAY_URL=${simulator.url} GATEWAY_API_KEY=${simulator.apiKey} npm start`,
    '',
    'Ctrl+C to stop.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  stopOnSignal(() => simulator.close(), 'the simulator');
}

await main();
