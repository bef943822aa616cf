import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/errors.js';
import type { Gateway } from '../../../src/gateway/types.js';
import { MemoryStore } from '../../../src/lib/json-file-store.js';
import { silentLogger } from '../../../src/log.js';
import { scopePlanToChannel, scopeToChannel } from '../../../src/slack/listeners/channel-scope.js';
import type { ChannelScope, ConsolePort, ToolContext } from '../../../src/tools/core/context.js';
import { createRegistry } from '../../../src/tools/index.js';

const BINDINGS: Record<string, ChannelScope> = {
  C0BERLIN1: { consoles: ['berlin'], site: undefined },
  C0BERLIN2: { consoles: ['berlin'], site: 'default' },
  C0EUROPE1: { consoles: ['berlin', 'munich'], site: undefined },
  C0ACMEEU1: { consoles: ['berlin', 'munich'], site: undefined, labels: { customer: 'acme', region: 'eu' } },
};

const consoles: ConsolePort = {
  fleet: true,
  readBudgetMs: 1000,
  list: () =>
    ['berlin', 'munich', 'boston'].map((name) => ({ name, labels: {}, via: 'local', sites: undefined })),
  gateway: () => ({}) as Gateway,
  channel: (id) => BINDINGS[id],
};
const context: ToolContext = {
  gateway: {} as Gateway,
  logger: silentLogger(),
  store: new MemoryStore(),
  consoles,
};
const deps = { context, registry: createRegistry('default') };

function refusal(run: () => unknown): ValidationError | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  return undefined;
}

describe('a command in a channel bound in the consoles file', () => {
  it('runs on the bound console and site unless it names others; an unbound channel is left alone', () => {
    expect(scopeToChannel('list_vlans', {}, 'C0BERLIN2', deps)).toEqual({
      console: 'berlin',
      site_id: 'default',
    });
    expect(scopeToChannel('list_vlans', { site: 'lab' }, 'C0BERLIN2', deps)).toEqual({
      console: 'berlin',
      site: 'lab',
    });
    expect(scopeToChannel('list_vlans', { console: 'munich' }, 'C0BERLIN1', deps)).toEqual({
      console: 'munich',
    });
    // A label binding reaches several consoles: the call still names one.
    expect(scopeToChannel('list_vlans', {}, 'C0EUROPE1', deps)).toEqual({});
    expect(scopeToChannel('list_vlans', {}, 'C0OTHER01', deps)).toEqual({});
    // Fleet-wide reads keep their own console= filter.
    expect(scopeToChannel('find_client', { client: 'tv' }, 'C0BERLIN1', deps)).toEqual({ client: 'tv' });
  });

  it('reads what is down on what the channel is bound to, unless the command names others', () => {
    expect(scopeToChannel('get_fleet_status', {}, 'C0BERLIN1', deps)).toEqual({ console: 'berlin' });
    expect(scopeToChannel('get_fleet_status', {}, 'C0ACMEEU1', deps)).toEqual({
      label: 'customer=acme,region=eu',
    });
    expect(scopeToChannel('get_fleet_status', { console: 'boston' }, 'C0ACMEEU1', deps)).toEqual({
      console: 'boston',
    });
    expect(scopeToChannel('get_fleet_status', { label: 'customer=initech' }, 'C0BERLIN1', deps)).toEqual({
      label: 'customer=initech',
    });
    expect(scopeToChannel('get_fleet_status', {}, 'C0OTHER01', deps)).toEqual({});
  });

  it('refuses a write naming another console or site, by console', () => {
    const args = { name: 'Lab', vlan_id: '40', subnet: '10.70.0.0/24' };
    expect(scopeToChannel('create_network', args, 'C0BERLIN2', deps)).toMatchObject({
      console: 'berlin',
      site_id: 'default',
    });
    const other = refusal(() =>
      scopeToChannel('create_network', { ...args, console: 'munich' }, 'C0BERLIN1', deps),
    );
    expect(other?.issues).toEqual([
      { field: 'console', rule: 'this channel is bound to berlin: a write here cannot reach munich' },
    ]);
    const site = refusal(() =>
      scopeToChannel('create_network', { ...args, site_id: 'lab' }, 'C0BERLIN2', deps),
    );
    expect(site?.issues[0]?.field).toBe('console');
    expect(site?.issues[0]?.rule).toContain('cannot reach site lab');
    const outside = refusal(() =>
      scopeToChannel('create_network', { ...args, console: 'boston' }, 'C0EUROPE1', deps),
    );
    expect(outside?.issues[0]?.rule).toBe(
      'this channel is bound to berlin, munich: a write here cannot reach boston',
    );
    expect(scopeToChannel('create_network', { ...args, console: 'munich' }, 'C0EUROPE1', deps)).toMatchObject(
      {
        console: 'munich',
      },
    );
  });

  it('scopes every step of a plan, naming the line of a step aimed elsewhere', () => {
    const steps = [
      { tool: 'create_network', args: { name: 'Lab', vlan_id: '40', subnet: '10.70.0.0/24' }, line: 1 },
      { tool: 'delete_network', args: { network_id: 'Lab', console: 'munich' }, line: 3 },
    ];
    const first = steps[0];
    if (!first) throw new Error('two steps');
    expect(scopePlanToChannel([first], 'C0BERLIN1', deps)).toEqual([
      { ...first, args: { ...first.args, console: 'berlin' } },
    ]);
    const refused = refusal(() => scopePlanToChannel(steps, 'C0BERLIN1', deps));
    expect(refused?.issues).toEqual([
      { field: 'line 3 console', rule: 'this channel is bound to berlin: a write here cannot reach munich' },
    ]);
  });
});
