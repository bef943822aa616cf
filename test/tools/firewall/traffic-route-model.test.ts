import { describe, expect, it } from 'vitest';
import type { NetworkRecord } from '../../../src/records/network-record.js';
import { trafficRuleRecordSchema } from '../../../src/records/traffic-rule-record.js';
import {
  routeAction,
  targetDevices,
  toTrafficRoute,
} from '../../../src/tools/firewall/traffic-route-model.js';

const rule = (fields: Record<string, unknown>) =>
  trafficRuleRecordSchema.parse({ _id: 'r1', description: 'R', enabled: true, ...fields });

const NETWORKS = [
  {
    _id: 'n-iot',
    name: 'IoT',
    purpose: 'corporate',
    vlan_enabled: true,
    vlan: 20,
    ip_subnet: '10.20.0.1/24',
  },
] as NetworkRecord[];

describe('routeAction', () => {
  it.each([
    [{ action: 'BLOCK' }, 'deny'],
    [{ action: 'ALLOW' }, 'allow'],
    [
      { action: 'ALLOW', bandwidth_limit: { download_limit_kbps: 1, upload_limit_kbps: 1, enabled: true } },
      'shape',
    ],
    // A BLOCK with a leftover limit still blocks.
    [
      { action: 'BLOCK', bandwidth_limit: { download_limit_kbps: 1, upload_limit_kbps: 1, enabled: true } },
      'deny',
    ],
    [{ action: 'QOS_RATE_LIMIT', bandwidth_limit: { enabled: true, download_limit_kbps: 5 } }, 'shape'],
    [{ action: 'REDIRECT' }, 'redirect'],
  ])('maps %j to %s', (fields, expected) => {
    expect(routeAction(rule(fields))).toBe(expected);
  });
});

describe('toTrafficRoute', () => {
  it('shows a port only when every address carries the same single port', () => {
    const one = rule({
      matching_target: 'IP',
      ip_addresses: [
        { ip_or_subnet: '10.0.0.1', ip_version: 'v4', ports: [443], port_ranges: [] },
        { ip_or_subnet: '10.0.0.2', ip_version: 'v4', ports: [443], port_ranges: [] },
      ],
    });
    const many = rule({
      matching_target: 'IP',
      ip_addresses: [{ ip_or_subnet: '10.0.0.1', ip_version: 'v4', ports: [80, 443], port_ranges: [] }],
    });
    const ranged = rule({
      matching_target: 'IP',
      ip_addresses: [
        {
          ip_or_subnet: '10.0.0.1',
          ip_version: 'v4',
          ports: [],
          port_ranges: [{ port_start: 1, port_stop: 9 }],
        },
      ],
    });

    expect(toTrafficRoute(one, []).match_criteria).toEqual({
      destination_port: 443,
      protocol: 'all',
      destination_ip: '10.0.0.1,10.0.0.2',
      vlan_id: null,
    });
    expect(toTrafficRoute(many, []).match_criteria.destination_port).toBeNull();
    expect(toTrafficRoute(ranged, []).match_criteria.destination_port).toBeNull();
  });

  it('names the targets and shows the VLAN of a single network target', () => {
    const route = toTrafficRoute(
      rule({ matching_target: 'DOMAIN', target_devices: [{ type: 'NETWORK', network_id: 'n-iot' }] }),
      NETWORKS,
    );

    expect(route).toMatchObject({
      match_criteria: { destination_port: null, protocol: null, destination_ip: null, vlan_id: 20 },
      applies_to: ['network IoT (VLAN 20)'],
      matching_target: 'DOMAIN',
    });
  });
});

describe('targetDevices', () => {
  const base = { name: 'x', action: 'deny', enabled: true } as const;

  it('takes the network whose subnet is source_ip, in network or gateway form', () => {
    expect(targetDevices({ ...base, source_ip: '10.20.0.0/24' }, NETWORKS, 'default')).toEqual([
      { network_id: 'n-iot', type: 'NETWORK' },
    ]);
    expect(targetDevices({ ...base, source_ip: '10.20.0.1/24', vlan_id: 20 }, NETWORKS, 'default')).toEqual([
      { network_id: 'n-iot', type: 'NETWORK' },
    ]);
  });

  it('means every client when neither vlan_id nor source_ip is given', () => {
    expect(targetDevices(base, NETWORKS, 'default')).toEqual([{ type: 'ALL_CLIENTS' }]);
  });

  it('refuses a wider or narrower subnet than the network has', () => {
    expect(() => targetDevices({ ...base, source_ip: '10.20.0.0/16' }, NETWORKS, 'default')).toThrow(
      /not the subnet of a network/,
    );
  });
});
