import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/errors.js';
import type { Gateway } from '../../../src/gateway/types.js';
import { MemoryStore } from '../../../src/lib/json-file-store.js';
import { silentLogger } from '../../../src/log.js';
import type { ConsolePort, ConsoleSummary, ToolContext } from '../../../src/tools/core/context.js';
import {
  fleetStatusTools,
  type RecentChange,
  type SiteRecordsPort,
} from '../../../src/tools/fleet/fleet-status.js';

const [fleetStatus] = fleetStatusTools;
if (!fleetStatus) throw new Error('get_fleet_status is defined');

type Device = { mac: string; name: string; state: number; wan1?: { up: boolean }; wan2?: { up: boolean } };

/** A gateway whose stat/device answers `devices` for each site, or fails for the sites in `failing`. */
function gatewayServing(devices: Record<string, Device[]>, failing: string[] = []): Gateway {
  return {
    classicRead: async (site: string) => {
      if (failing.includes(site)) throw new Error('connection refused');
      return { items: devices[site] ?? [], dropped: 0 };
    },
  } as unknown as Gateway;
}

const up = (name: string): Device => ({ mac: `aa:${name}`, name, state: 1 });
const down = (name: string): Device => ({ mac: `bb:${name}`, name, state: 0 });

function fleetOf(entries: { summary: ConsoleSummary; gateway: Gateway }[]): ConsolePort {
  return {
    fleet: entries.length > 1,
    readBudgetMs: 500,
    list: () => entries.map((entry) => entry.summary),
    gateway(name) {
      const found = entries.find((entry) => entry.summary.name === name);
      if (!found) throw new ValidationError([{ field: 'console', rule: `no console ${name}` }]);
      return found.gateway;
    },
    channel: () => undefined,
  };
}

const summary = (name: string, labels: Record<string, string>, sites?: string[]): ConsoleSummary => ({
  name,
  labels,
  via: 'local',
  sites,
});

function contextWith(consoles: ConsolePort | undefined, records?: SiteRecordsPort, gateway?: Gateway) {
  const context: ToolContext & { siteRecords?: SiteRecordsPort } = {
    gateway: gateway ?? gatewayServing({}),
    logger: silentLogger(),
    store: new MemoryStore(),
    ...(consoles ? { consoles } : {}),
  };
  if (records) context.siteRecords = records;
  return context;
}

const run = (args: Record<string, unknown>, context: ToolContext) =>
  fleetStatus.run(fleetStatus.args.parse({ site_id: 'default', ...args }), context) as Promise<{
    consoles_asked: number;
    sites_asked: number;
    unreachable: number;
    troubled: number;
    sites: { console?: string; site: string; problem: string; last_change: string | null }[];
    healthy: string;
  }>;

describe('get_fleet_status', () => {
  const gatewayWan = {
    mac: 'cc:gw',
    name: 'Gateway',
    state: 1,
    wan1: { up: false },
    wan2: { up: true },
  };
  const port = fleetOf([
    {
      summary: summary('berlin', { customer: 'acme' }),
      gateway: gatewayServing({ default: [up('AP'), down('Switch')] }),
    },
    {
      summary: summary('munich', { customer: 'acme' }, ['default', 'lab']),
      gateway: gatewayServing({ default: [gatewayWan], lab: [up('Lab AP')] }),
    },
    { summary: summary('hamburg', { customer: 'globex' }), gateway: gatewayServing({}, ['default']) },
    { summary: summary('vienna', { customer: 'globex' }), gateway: gatewayServing({ default: [up('AP')] }) },
  ]);

  it('puts unreachable consoles first, then WAN links down, devices offline and open alerts; the healthy ones are counted', async () => {
    const records: SiteRecordsPort = {
      openAlerts: async (console, site) => (console === 'vienna' && site === 'default' ? 2 : 0),
      recentChanges: async () => [],
    };
    const answer = await run({}, contextWith(port, records));
    expect(answer.consoles_asked).toBe(4);
    expect(answer.sites_asked).toBe(5);
    expect(answer.unreachable).toBe(1);
    expect(answer.troubled).toBe(4);
    expect(answer.sites.map((row) => [row.console, row.site, row.problem])).toEqual([
      ['hamburg', 'default', 'not reachable: connection refused'],
      ['munich', 'default', 'WAN down: Gateway wan1'],
      ['berlin', 'default', '1 of 2 devices offline: Switch'],
      ['vienna', 'default', '2 open alerts'],
    ]);
    expect(answer.healthy).toBe('1 site: munich/lab');
  });

  it('names the last finished change the bot made at each troubled site, on its console', async () => {
    const change = (console: string, site: string, tool: string, at: string): RecentChange => ({
      id: `cr_${tool}`,
      tool,
      state: 'succeeded',
      at,
      console,
      site,
    });
    const records: SiteRecordsPort = {
      openAlerts: async () => undefined,
      // Newest first, as the store lists them: berlin's newest wins; munich's lab change is not its default site's.
      recentChanges: async () => [
        change('berlin', 'default', 'update_network', '2026-12-07T06:10:42.000Z'),
        change('munich', 'lab', 'create_network', '2026-12-07T05:00:00.000Z'),
        change('berlin', 'default', 'create_network', '2026-12-06T09:00:00.000Z'),
      ],
    };
    const answer = await run({}, contextWith(port, records));
    const byConsole = new Map(answer.sites.map((row) => [`${row.console}/${row.site}`, row.last_change]));
    expect(byConsole.get('berlin/default')).toBe('update_network succeeded 2026-12-07T06:10Z');
    expect(byConsole.get('munich/default')).toBeNull();
  });

  it('narrows to one console, or to the consoles carrying a label, and refuses a label none carries', async () => {
    const one = await run({ console: 'berlin' }, contextWith(port));
    expect(one.consoles_asked).toBe(1);
    expect(one.sites.map((row) => row.console)).toEqual(['berlin']);
    const acmeBerlin = await run(
      { label: 'customer=acme,region=eu' },
      contextWith(
        fleetOf([
          { summary: summary('berlin', { customer: 'acme', region: 'eu' }), gateway: gatewayServing({}) },
          { summary: summary('boston', { customer: 'acme', region: 'us' }), gateway: gatewayServing({}) },
        ]),
      ),
    );
    expect(acmeBerlin.consoles_asked).toBe(1);
    const globex = await run({ label: 'customer=globex' }, contextWith(port));
    expect(globex.consoles_asked).toBe(2);
    expect(globex.sites.map((row) => row.console)).toEqual(['hamburg']);
    expect(globex.healthy).toBe('1 site: vienna/default');
    await expect(run({ label: 'customer=initech' }, contextWith(port))).rejects.toThrow(
      'no console has the label customer=initech',
    );
    expect(() => fleetStatus.args.parse({ site_id: 'default', label: 'acme' })).toThrow(
      'must be a console label such as customer=acme',
    );
    expect(() => fleetStatus.args.parse({ site_id: 'default', label: `a=${'x'.repeat(300)}` })).toThrow(
      'must be at most 200 characters',
    );
  });

  it('with one console, shows its sites without a console column', async () => {
    const gateway = gatewayServing({
      default: [up('AP'), down('Garage AP'), down('Shed AP'), down('Barn AP'), down('Attic AP')],
    });
    const answer = await run({}, contextWith(undefined, undefined, gateway));
    expect(answer.consoles_asked).toBe(1);
    expect(answer.sites).toEqual([
      {
        site: 'default',
        problem: '4 of 5 devices offline: Garage AP, Shed AP, Barn AP +1 more',
        last_change: null,
      },
    ]);
    expect(answer.healthy).toBe('none');
  });
});
