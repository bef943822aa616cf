import { describe, expect, it } from 'vitest';
import { MAX_NAMES } from '../../../src/policy/risk.js';
import { createPrng } from '../../../src/simulator/prng.js';
import { affected, affectedBy } from '../../../src/tools/core/guardrails.js';

/** What affected() gave when it sorted every name: the reference it must keep to. */
const bySorting = (names: readonly string[]) => ({
  count: names.length,
  names: [...names].sort((a, b) => a.localeCompare(b)).slice(0, MAX_NAMES),
});

describe('affected', () => {
  it('names the first few in locale order and counts them all, as sorting every name did', () => {
    const prng = createPrng(5).next;
    const words = [
      'AP',
      'ap',
      'Äpfel',
      'apple',
      'Zebra',
      'zebra',
      'Ölfeld',
      'Office',
      'office',
      '10',
      '9',
      'Ünder',
    ];
    for (let round = 0; round < 200; round += 1) {
      const length = Math.floor(prng() * 40);
      const names = Array.from(
        { length },
        () =>
          `${words[Math.floor(prng() * words.length)]}${prng() < 0.5 ? '' : ` ${Math.floor(prng() * 20)}`}`,
      );
      expect(affected(names)).toEqual(bySorting(names));
    }
  });

  it('keeps only MAX_NAMES names of a large set and counts it whole', () => {
    const names = Array.from({ length: 50_000 }, (_, i) => `client-${(i * 7919) % 50_000}`);
    const result = affected(names);
    expect(result.count).toBe(50_000);
    expect(result).toEqual(bySorting(names));
    expect(affected([])).toEqual({ count: 0, names: [] });
  });

  it('affectedBy names items by their label as affected() names the labels', () => {
    const clients = Array.from({ length: 300 }, (_, i) => ({
      mac: `m${i}`,
      name: i % 7 === 0 ? undefined : `Phone ${(i * 31) % 97}`,
    }));
    const label = (c: { mac: string; name: string | undefined }) => c.name ?? c.mac;
    expect(affectedBy(clients, label)).toEqual(bySorting(clients.map(label)));
  });
});
