import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/errors.js';
import { formatFilter, parseAclFilter, toControllerFilter } from '../../../src/tools/firewall/acl-filter.js';

const noNetworks = async (ref: string) => {
  throw new Error(`unexpected network lookup ${ref}`);
};

describe('parseAclFilter and formatFilter', () => {
  it.each([
    "name.eq('it''s')",
    "and(enabled.eq(true), or(action.eq('BLOCK'), index.ge(2)))",
    'not(sourceFilter.networkIds.containsAny([105d70c6-d0c6-464b-b972-ce7509dddcfb, eebdb547-7347-4c17-b2c0-3f61eb899b25]))',
    'destinationFilter.portFilter.contains(443)',
    'description.isNull()',
  ])('reads %s and writes it back unchanged', (text) => {
    expect(formatFilter(parseAclFilter(text))).toBe(text);
  });

  it.each([
    ["name.eq('open", 'a quoted value is not closed'],
    ["name.sounds('x')", 'unknown function sounds'],
    ["name.eq('a', 'b')", 'eq takes 1 value(s)'],
    ['action.in()', 'in takes one or more values'],
    ["name.eq('a') extra", 'unexpected text after the expression'],
    ["eq('a')", 'expected <property>.<function>(…), got eq'],
  ])('refuses %s with the reason on filter_expr', (text, rule) => {
    expect(() => parseAclFilter(text)).toThrow(ValidationError);
    try {
      parseAclFilter(text);
    } catch (error) {
      expect((error as ValidationError).issues).toEqual([
        { field: 'filter_expr', rule: expect.stringContaining(rule) },
      ]);
    }
  });
});

describe('toControllerFilter', () => {
  it.each([
    ["action.eq('Deny')", "action.eq('BLOCK')"],
    ["action.ne('allow')", "not(action.eq('ALLOW'))"],
    ["action.in('allow', 'deny')", "or(action.eq('ALLOW'), action.eq('BLOCK'))"],
    ["source_type.eq('any')", "or(sourceFilter.type.isNull(), sourceFilter.type.eq('PORTS'))"],
    [
      "destination_type.notIn(['ip', 'mac'])",
      "not(or(destinationFilter.type.eq('IP_ADDRESSES_OR_SUBNETS'), destinationFilter.type.eq('MAC_ADDRESSES')))",
    ],
    ["protocol.eq('all')", 'protocolFilter.isNull()'],
    ["protocol.eq('tcp')", "protocolFilter.containsExactly('TCP')"],
    ["source_network.eq('10.0.0.0/8')", "sourceFilter.ipAddressesOrSubnets.contains('10.0.0.0/8')"],
    ["destination_network.eq('10.0.0.0/8')", "destinationFilter.ipAddressesOrSubnets.contains('10.0.0.0/8')"],
    ['src_port.eq(22)', 'sourceFilter.portFilter.contains(22)'],
    ['dst_port.eq(443)', 'destinationFilter.portFilter.contains(443)'],
    ["origin.eq('user_defined')", "metadata.origin.eq('USER_DEFINED')"],
    ["sourceFilter.type.eq('NETWORKS')", "sourceFilter.type.eq('NETWORKS')"],
  ])('translates %s to %s', async (given, sent) => {
    expect(await toControllerFilter(given, noNetworks)).toBe(sent);
  });

  it('resolves a network named in source_id to its Integration UUID', async () => {
    const lookups: string[] = [];
    const sent = await toControllerFilter("source_id.eq('IoT')", async (ref) => {
      lookups.push(ref);
      return '105d70c6-d0c6-464b-b972-ce7509dddcfb';
    });

    expect(sent).toBe('sourceFilter.networkIds.contains(105d70c6-d0c6-464b-b972-ce7509dddcfb)');
    expect(lookups).toEqual(['IoT']);
  });

  it.each([
    ["enabled.eq('yes')", 'enabled takes eq or ne with true or false'],
    ["dst_port.eq('ssh')", 'dst_port values are port numbers'],
    ["protocol.eq('icmp')", 'protocol is tcp, udp, tcp_udp or all, not icmp'],
    ['name.eq(42)', 'name values are quoted text'],
  ])('refuses %s: the controller would answer it with no rows', async (given, rule) => {
    await expect(toControllerFilter(given, noNetworks)).rejects.toMatchObject({
      issues: [{ field: 'filter_expr', rule: expect.stringContaining(rule) }],
    });
  });
});
