/**
 * `npm run simulator [-- --port N] [--flavor self-hosted] [--firewall legacy] [--seed N]`: runs
 * the simulated controller alone and prints how to point the bot at it.
 */
import { parseArgs } from 'node:util';
import { API_VERSION_PATTERN } from './api-version.js';
import { startSimulator } from './server.js';
import { SIMULATOR_FIREWALLS, type SimulatorFirewall, type SimulatorOptions } from './types.js';

const USAGE =
  'usage: npm run simulator -- [--port N] [--flavor unifi-os|self-hosted] [--firewall zone-based|legacy] [--seed N] [--api-version 9.0|10.1]';

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

async function main(): Promise<void> {
  let options: SimulatorOptions;
  try {
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
  const stop = (signal: string) => {
    process.stdout.write(`\n${signal}: stopping the simulator\n`);
    simulator.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

await main();
