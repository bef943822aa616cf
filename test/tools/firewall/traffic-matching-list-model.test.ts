import { describe, expect, it } from 'vitest';
import { itemText, parseItem } from '../../../src/tools/firewall/traffic-matching-list-model.js';

describe('parseItem', () => {
  it.each([
    ['443', 'PORTS', { type: 'PORT_NUMBER', value: 443 }],
    ['8000 - 8100', 'PORTS', { type: 'PORT_NUMBER_RANGE', start: 8000, stop: 8100 }],
    ['65535', 'PORTS', { type: 'PORT_NUMBER', value: 65535 }],
    ['10.0.0.0/8', 'IPV4_ADDRESSES', { type: 'SUBNET', value: '10.0.0.0/8' }],
    [
      '192.168.1.10-192.168.1.20',
      'IPV4_ADDRESSES',
      { type: 'IP_ADDRESS_RANGE', start: '192.168.1.10', stop: '192.168.1.20' },
    ],
    [' 192.168.1.5 ', 'IPV4_ADDRESSES', { type: 'IP_ADDRESS', value: '192.168.1.5' }],
    ['2001:db8::1', 'IPV6_ADDRESSES', { type: 'IP_ADDRESS', value: '2001:db8::1' }],
    ['2001:db8::/32', 'IPV6_ADDRESSES', { type: 'SUBNET', value: '2001:db8::/32' }],
  ] as const)('reads %s in a %s list', (text, type, expected) => {
    expect(parseItem(text, type)).toEqual(expected);
  });

  it.each([
    ['443', 'IPV4_ADDRESSES'],
    ['10.0.0.1', 'PORTS'],
    ['65536', 'PORTS'],
    ['1-2-3', 'PORTS'],
    ['10.0.0.1/40', 'IPV4_ADDRESSES'],
    ['2001:db8::1', 'IPV4_ADDRESSES'],
    ['2001:db8::/129', 'IPV6_ADDRESSES'],
  ] as const)('refuses %s in a %s list with a reason', (text, type) => {
    expect(typeof parseItem(text, type)).toBe('string');
  });
});

describe('itemText', () => {
  it('writes typed items back as the spec strings, and an unknown kind whole', () => {
    expect(itemText({ type: 'PORT_NUMBER_RANGE', start: 1, stop: 9 })).toBe('1-9');
    expect(itemText({ type: 'IP_ADDRESS', value: '10.0.0.1' })).toBe('10.0.0.1');
    expect(itemText({ type: 'COUNTRY' })).toBe('{"type":"COUNTRY"}');
  });
});
