import { describe, expect, it } from 'vitest';
import { aclEndpointSchema, aclRuleRecordSchema } from '../../../src/records/acl-rule-record.js';
import {
  decodeEndpoint,
  encodeEndpoint,
  endpointIssues,
  placeInOrdering,
  positionFor,
  priorityOf,
  sortAclRules,
  toAclRule,
  toControllerAction,
  toProtocolFilter,
} from '../../../src/tools/firewall/acl-rule-model.js';

const classic = (uuid: string) => `classic-of-${uuid}`;

describe('endpoints', () => {
  it.each([
    [null, { type: 'any', ports: null }, null],
    [
      { type: 'PORTS', portFilter: [53] },
      { type: 'any', ports: [53] },
      { type: 'PORTS', portFilter: [53] },
    ],
    [
      { type: 'NETWORKS', networkIds: ['u1'], portFilter: null },
      { type: 'network', networkUuids: ['u1'], ports: null },
      { type: 'NETWORKS', networkIds: ['u1'] },
    ],
    [
      { type: 'IP_ADDRESSES_OR_SUBNETS', ipAddressesOrSubnets: ['10.0.0.0/8'], portFilter: [22, 443] },
      { type: 'ip', addresses: ['10.0.0.0/8'], ports: [22, 443] },
      { type: 'IP_ADDRESSES_OR_SUBNETS', ipAddressesOrSubnets: ['10.0.0.0/8'], portFilter: [22, 443] },
    ],
  ])('decodes %o and encodes it back', (filter, endpoint, encoded) => {
    const decoded = decodeEndpoint(filter === null ? null : aclEndpointSchema.parse(filter));
    expect(decoded).toEqual(endpoint);
    if (decoded.type === 'mac' || decoded.type === 'other') throw new Error('not an IPV4 endpoint');
    expect(encodeEndpoint(decoded)).toStrictEqual(encoded);
  });

  it('leaves portFilter out when there are no ports', () => {
    expect(encodeEndpoint({ type: 'network', networkUuids: ['u1'], ports: null })).toEqual({
      type: 'NETWORKS',
      networkIds: ['u1'],
    });
  });

  it('keeps MAC and unknown filters recognisable', () => {
    expect(decodeEndpoint({ type: 'MAC_ADDRESSES', macAddresses: ['aa:bb:cc:dd:ee:ff'] })).toEqual({
      type: 'mac',
      macs: ['aa:bb:cc:dd:ee:ff'],
    });
    expect(decodeEndpoint({ type: 'REGIONS' })).toEqual({ type: 'other', name: 'REGIONS' });
  });
});

describe('actions and protocols', () => {
  it('maps allow/deny to ALLOW/BLOCK and protocols to the filter', () => {
    expect([toControllerAction('allow'), toControllerAction('deny')]).toEqual(['ALLOW', 'BLOCK']);
    expect([toProtocolFilter('tcp'), toProtocolFilter('udp'), toProtocolFilter('all')]).toEqual([
      ['TCP'],
      ['UDP'],
      null,
    ]);
  });

  it('reads protocols, actions, ports and priorities back in spec terms', () => {
    const record = aclRuleRecordSchema.parse({
      id: 'r1',
      type: 'IPV4',
      name: 'x',
      action: 'BLOCK',
      enabled: false,
      sourceFilter: { type: 'NETWORKS', networkIds: ['u1', 'u2'] },
      destinationFilter: { type: 'PORTS', portFilter: [22] },
      protocolFilter: ['UDP', 'TCP'],
      metadata: { origin: 'USER_DEFINED' },
    });
    expect(toAclRule(record, 7, classic)).toMatchObject({
      action: 'deny',
      enabled: false,
      source_type: 'network',
      source_id: 'classic-of-u1,classic-of-u2',
      destination_type: 'any',
      dst_port: 22,
      src_port: null,
      protocol: 'tcp_udp',
      priority: 7,
      description: null,
    });
  });
});

describe('priority', () => {
  it('is a 1-based position: p goes to index min(p-1, n) among the other rules', () => {
    const order = ['a', 'b', 'c'];
    expect(placeInOrdering(order, 'new', 1)).toEqual(['new', 'a', 'b', 'c']);
    expect(placeInOrdering(order, 'new', 3)).toEqual(['a', 'b', 'new', 'c']);
    expect(placeInOrdering(order, 'new', 100)).toEqual(['a', 'b', 'c', 'new']);
    expect(placeInOrdering(order, 'a', 3)).toEqual(['b', 'c', 'a']);
    expect(placeInOrdering(order, 'c', 1)).toEqual(['c', 'a', 'b']);
    expect([positionFor(order, 2), positionFor(order, 100), positionFor(order, 100, 'a')]).toEqual([2, 4, 3]);
  });

  it('reads the position in the ordering, else the index, and sorts unknown last', () => {
    const rule = (id: string, index?: number) => aclRuleRecordSchema.parse({ id, name: id, index });
    expect(priorityOf(rule('b'), ['a', 'b'])).toBe(2);
    expect(priorityOf(rule('z', 5), ['a'])).toBe(6);
    expect(priorityOf(rule('z'), ['a'])).toBeNull();
    const views = [
      toAclRule(rule('z'), null, classic),
      toAclRule(rule('b'), 2, classic),
      toAclRule(rule('a'), 1, classic),
    ];
    expect(sortAclRules(views).map((r) => r.id)).toEqual(['a', 'b', 'z']);
  });
});

describe('endpointIssues', () => {
  it('requires the id for network and device, the address for ip, and nothing for any', () => {
    expect(endpointIssues('source', { type: 'device', id: false, network: false })).toEqual([
      { field: 'source_id', rule: 'is required when source_type is device', missing: true },
    ]);
    expect(endpointIssues('destination', { type: 'any', id: true, network: true })).toEqual([
      { field: 'destination_id', rule: 'only applies when destination_type is network or device' },
      { field: 'destination_network', rule: 'only applies when destination_type is ip' },
    ]);
    expect(endpointIssues('source', { type: 'ip', id: false, network: true })).toEqual([]);
  });

  it('checks only contradictions when the stored rule may supply what is missing', () => {
    expect(endpointIssues('source', { type: 'ip', id: false, network: false }, false)).toEqual([]);
    expect(endpointIssues('source', { type: 'ip', id: true, network: false }, false)).toHaveLength(1);
  });
});
