import { describe, expect, it } from 'vitest';
import { resolveCommand, resolveCommandOnSite } from '../../src/commands/aliases.js';
import { parseCommandLine } from '../../src/commands/parse-command-line.js';
import type { Gateway } from '../../src/gateway/types.js';
import { scopeToChannel } from '../../src/slack/listeners/channel-scope.js';
import type { ConsolePort } from '../../src/tools/core/context.js';
import { createRegistry } from '../../src/tools/index.js';

function registryServing(names: readonly string[]) {
  const registry = createRegistry('default');
  const port: ConsolePort = {
    fleet: names.length > 1,
    readBudgetMs: 1000,
    list: () => names.map((name) => ({ name, labels: {}, via: 'local', sites: undefined })),
    gateway: () => ({}) as Gateway,
    channel: () => undefined,
  };
  registry.useConsoles(port);
  return registry;
}

const resolve = (line: string, names: readonly string[]) =>
  resolveCommand(parseCommandLine(line), registryServing(names));

describe('`where` in a fleet', () => {
  it('asks every console (find_client) when the bot serves several and the line names none', () => {
    expect(resolve('where is Apple TV', ['berlin', 'munich'])).toEqual({
      tool: 'find_client',
      args: { client: 'Apple TV' },
    });
  });

  it('reads one console’s client when console= names it, and with one console as before', () => {
    expect(resolve('where Apple TV console=munich', ['berlin', 'munich'])).toEqual({
      tool: 'get_client',
      args: { client: 'Apple TV', console: 'munich' },
    });
    expect(resolve('where is Apple TV', ['default'])).toEqual({
      tool: 'get_client',
      args: { client: 'Apple TV' },
    });
  });
});

/** A console's gateway that answers only the firewall-generation question, counting the asks. */
function firewallGateway(generation: 'zone-based' | 'legacy') {
  const asked: string[] = [];
  const gateway = {
    apiType: 'local',
    async v2Read(site: string) {
      asked.push(site);
      return { items: generation === 'zone-based' ? [{ feature: 'ZONE_BASED_FIREWALL' }] : [] };
    },
  } as unknown as Gateway;
  return { gateway, asked };
}

describe('the firewall shortcut in a fleet: the console the command goes to decides', () => {
  // berlin (10.1, zone-based) is the default console; munich (9.x) runs traditional rules.
  const berlin = firewallGateway('zone-based');
  const munich = firewallGateway('legacy');
  const gateways: Record<string, Gateway> = { berlin: berlin.gateway, munich: munich.gateway };
  const registry = createRegistry('default');
  const port: ConsolePort = {
    fleet: true,
    readBudgetMs: 1000,
    list: () => ['berlin', 'munich'].map((name) => ({ name, labels: {}, via: 'local', sites: undefined })),
    gateway: (name) => gateways[name] ?? ({} as Gateway),
    channel: (id) =>
      id === 'C0MUNICH' ? { consoles: ['munich'], site: undefined } : { consoles: ['berlin'], site: 'lab' },
  };
  registry.useConsoles(port);
  const inChannel = (channel: string) => (tool: string, args: Record<string, unknown>) =>
    scopeToChannel(tool, args, channel, { context: { consoles: port } as never, registry });
  const route = (line: string, scope?: ReturnType<typeof inChannel>) =>
    resolveCommandOnSite(parseCommandLine(line), registry, berlin.gateway, scope);

  it('runs the rules tool in a channel bound to the 9.x console, though the default console is zone-based', async () => {
    munich.asked.length = 0;
    berlin.asked.length = 0;
    expect(await route('firewall', inChannel('C0MUNICH'))).toEqual({
      tool: 'list_firewall_rules',
      args: { console: 'munich' },
    });
    expect(munich.asked).toEqual(['default']);
    expect(berlin.asked).toEqual([]);
  });

  it('runs the policies tool in a channel bound to the zone-based console, on the bound site', async () => {
    expect(await route('rules', inChannel('C0BERLIN'))).toEqual({
      tool: 'list_firewall_policies',
      args: { console: 'berlin', site_id: 'lab' },
    });
  });

  it('follows console= when the line names the console, and asks no console when a fleet call names none', async () => {
    expect((await route('firewall console=munich')).tool).toBe('list_firewall_rules');
    expect((await route('firewall console=berlin')).tool).toBe('list_firewall_policies');
    munich.asked.length = 0;
    berlin.asked.length = 0;
    expect(await route('firewall')).toEqual({ tool: 'list_firewall_rules', args: {} });
    expect([...munich.asked, ...berlin.asked]).toEqual([]);
  });
});
