import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/gateway/types.js';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { silentLogger } from '../../src/log.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { changeBehindBot } from '../../src/simulator/scenario-controls.js';
import { createRegistry } from '../../src/tools/index.js';
import { compareSnapshots, KIND_SPECS, revertCall } from '../../src/watch/drift.js';
import type { Drift, WatchNotifier } from '../../src/watch/types.js';
import { testGateway } from '../helpers/test-gateway.js';
import { testWatcher } from './watcher-harness.js';

// Drift on a classic (9.x) console: every field update_network can set is offered a Revert, and
// the revert puts the network back as it was; a field no tool sets says why.

const quiet: WatchNotifier = {
  postIncident: async () => undefined,
  updateIncident: async () => undefined,
  postDrift: async () => undefined,
  updateDrift: async () => undefined,
  postDigest: async () => undefined,
  postAlarmSummary: async () => undefined,
};

/** What update_network can set: its arguments, less the target and how it is run. */
function settableArguments(): string[] {
  const tool = createRegistry('default').require('update_network');
  return Object.keys(tool.args.shape).filter(
    (arg) => !['site_id', 'network_id', 'confirm', 'dry_run'].includes(arg),
  );
}

type RevertFields = NonNullable<(typeof KIND_SPECS.networks)['revert']>['fields'];

/** The tool arguments a revert reaches when each mapped field of `before` changes. */
function argumentsReached(fields: RevertFields, before: Record<string, unknown>): Set<string> {
  const reached = new Set<string>();
  for (const [field, mapping] of Object.entries(fields)) {
    if ('arg' in mapping) reached.add(mapping.arg);
    else {
      const args = mapping.args(before, { ...before, [field]: 'changed' }) ?? {};
      for (const arg of 'cannot' in args ? [] : Object.keys(args)) reached.add(arg);
    }
  }
  return reached;
}

describe('the classic network revert', () => {
  it('maps every argument update_network takes back from a classic record field', () => {
    const fields = KIND_SPECS.networks.revert?.fields ?? {};
    const before = {
      name: 'IoT',
      purpose: 'corporate',
      vlan: 20,
      vlan_enabled: true,
      ip_subnet: '10.20.0.1/24',
      dhcpd_enabled: true,
      dhcpd_start: '10.20.0.6',
      dhcpd_stop: '10.20.0.254',
      dhcpd_dns_enabled: true,
      dhcpd_dns_1: '1.1.1.1',
      domain_name: 'iot.lan',
    };
    const reached = argumentsReached(fields, before);
    expect(settableArguments().filter((arg) => !reached.has(arg))).toEqual([]);
  });

  it('maps every argument update_network takes back from an official network field', () => {
    const fields = KIND_SPECS.networks.official?.revert?.fields ?? {};
    const dhcp = {
      mode: 'SERVER',
      ipAddressRange: { start: '10.20.0.6', stop: '10.20.0.254' },
      leaseTimeSeconds: 86400,
      pingConflictDetectionEnabled: false,
      dnsServerIpAddressesOverride: ['1.1.1.1'],
      domainName: 'iot.lan',
    };
    const before = {
      name: 'IoT',
      management: 'GATEWAY',
      vlanId: 20,
      isolationEnabled: false,
      ipv4Configuration: { hostIpAddress: '10.20.0.1', prefixLength: 24, dhcpConfiguration: dhcp },
    };
    const reached = argumentsReached(fields, before);
    expect(settableArguments().filter((arg) => !reached.has(arg))).toEqual([]);
  });

  it('maps what set_wifi_broadcast_enabled sets back from the classic and the official Wi-Fi record', () => {
    const tool = createRegistry('default').require('set_wifi_broadcast_enabled');
    const settable = Object.keys(tool.args.shape).filter(
      (arg) => !['site_id', 'wifi_id', 'confirm', 'dry_run'].includes(arg),
    );
    for (const read of [KIND_SPECS.wifi, KIND_SPECS.wifi.official]) {
      const args = Object.values(read?.revert?.fields ?? {}).flatMap((m) => ('arg' in m ? [m.arg] : []));
      expect(settable.filter((arg) => !args.includes(arg))).toEqual([]);
    }
  });
});

describe('a field added behind the bot', () => {
  it('is named as one the update tool cannot take away, not reverted by leaving it out', () => {
    const before = { _id: 'p1', name: 'Kids', action: 'BLOCK', enabled: true };
    const [drift] = compareSnapshots(
      'default',
      { policies: { p1: before } },
      { policies: { p1: { ...before, enabled: false, description: 'added' } } },
      0,
      new Set(),
    );
    expect(drift?.revertUnavailable).toBe(
      'description was not set before, and update_firewall_policy cannot remove a stored field',
    );
    expect(drift ? revertCall(drift) : 'no drift').toBeUndefined();
  });
});

describe('drift of each settable network field on a 9.0 console', () => {
  let sim: Simulator;
  let gateway: Gateway;
  beforeAll(async () => {
    sim = await startSimulator({ apiVersion: '9.0' });
    gateway = testGateway(sim);
  });
  afterAll(async () => {
    await gateway?.close();
    await sim?.close();
  });

  const CHANGES: Record<string, Record<string, unknown>> = {
    name: { name: 'Things' },
    purpose: { purpose: 'guest' },
    vlan: { vlan: 29 },
    ip_subnet: { ip_subnet: '10.29.0.1/24', dhcpd_start: '10.29.0.6', dhcpd_stop: '10.29.0.254' },
    dhcpd_enabled: { dhcpd_enabled: false },
    dhcpd_range: { dhcpd_start: '10.20.0.50', dhcpd_stop: '10.20.0.60' },
    dhcpd_dns_1: { dhcpd_dns_enabled: true, dhcpd_dns_1: '9.9.9.9' },
    domain_name: { domain_name: 'elsewhere.lan' },
  };

  for (const [label, change] of Object.entries(CHANGES)) {
    it(`${label}: offers Revert, and reverting restores the record`, async () => {
      sim.reset();
      let now = Date.parse('2026-11-27T02:14:00Z');
      const { watcher } = testWatcher(gateway, quiet, { data: new MemoryStore(), now: () => now });
      await watcher.sweepDrift();
      const original = structuredClone(sim.state.site('default')?.networks.find((n) => n.name === 'IoT'));
      changeBehindBot(sim.state, 'networks', 'IoT', change);
      now += 300_000;
      const found: Drift[] = await watcher.sweepDrift();
      const drift = found.find((d) => d.kind === 'networks');
      expect(drift?.revertUnavailable).toBeUndefined();
      const call = drift ? revertCall(drift) : undefined;
      expect(call?.tool).toBe('update_network');
      const registry = createRegistry('default');
      await registry.run(
        call?.tool ?? '',
        { ...call?.args, confirm: true },
        {
          gateway,
          logger: silentLogger(),
          store: new MemoryStore(),
        },
      );
      const restored = sim.state.site('default')?.networks.find((n) => n._id === original?._id);
      // A DNS slot cleared by update_network is kept as an empty string, as the controller does.
      const filled = (record: object | undefined) =>
        Object.fromEntries(Object.entries(record ?? {}).filter(([, v]) => v !== ''));
      expect(filled(restored)).toEqual(filled(original));
    });
  }
});
