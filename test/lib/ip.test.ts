import { describe, expect, it } from 'vitest';
import { defaultDhcpRange, formatIpv4, isHostIn, overlaps, parseCidr, parseIpv4 } from '../../src/lib/ip.js';

describe('ipv4', () => {
  it('parses and formats dotted quads, refusing malformed ones', () => {
    expect(parseIpv4('10.30.0.1')).toBe(10 * 2 ** 24 + 30 * 2 ** 16 + 1);
    expect(formatIpv4(parseIpv4('192.168.1.254') ?? 0)).toBe('192.168.1.254');
    for (const bad of ['10.0.0', '10.0.0.256', '10.0.0.01', 'a.b.c.d', '10.0.0.1.2', '']) {
      expect(parseIpv4(bad), bad).toBeUndefined();
    }
  });

  it('parses CIDR in network and gateway form to the same network', () => {
    const a = parseCidr('10.30.0.0/24');
    const b = parseCidr('10.30.0.1/24');
    expect(a?.network).toBe(b?.network);
    expect(formatIpv4(a?.broadcast ?? 0)).toBe('10.30.0.255');
    expect(b?.address).toBe(parseIpv4('10.30.0.1'));
    expect(parseCidr('10.30.0.0/33')).toBeUndefined();
    expect(parseCidr('10.30.0.0')).toBeUndefined();
  });

  it('knows host membership and overlap', () => {
    const net = parseCidr('10.30.0.0/24');
    if (!net) throw new Error('parse failed');
    expect(isHostIn(net, parseIpv4('10.30.0.10') ?? 0)).toBe(true);
    expect(isHostIn(net, parseIpv4('10.30.0.0') ?? 0)).toBe(false);
    expect(isHostIn(net, parseIpv4('10.30.0.255') ?? 0)).toBe(false);
    expect(isHostIn(net, parseIpv4('10.31.0.10') ?? 0)).toBe(false);
    const wide = parseCidr('10.0.0.0/8');
    const other = parseCidr('192.168.0.0/16');
    if (!wide || !other) throw new Error('parse failed');
    expect(overlaps(net, wide)).toBe(true);
    expect(overlaps(net, other)).toBe(false);
  });

  it('proposes a lease range inside the subnet that avoids the gateway', () => {
    const net = parseCidr('10.40.0.0/24');
    if (!net) throw new Error('parse failed');
    expect(defaultDhcpRange(net, net.network + 1)).toEqual({ start: '10.40.0.6', stop: '10.40.0.254' });
    const small = parseCidr('10.40.0.0/29');
    if (!small) throw new Error('parse failed');
    expect(defaultDhcpRange(small, small.network + 1)).toEqual({ start: '10.40.0.2', stop: '10.40.0.6' });
  });
});
