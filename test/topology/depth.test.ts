import { describe, expect, it } from 'vitest';
import { placeNodes, uplinkDepth } from '../../src/topology/depth.js';
import { macId } from '../../src/topology/mac.js';

function levels(entries: [string, string | undefined][]): Record<string, [string | null, number]> {
  const placed = placeNodes(new Map(entries));
  return Object.fromEntries([...placed].map(([id, p]) => [id, [p.parent, p.level]]));
}

describe('placeNodes', () => {
  it('walks each chain to its root, whatever the order of the entries', () => {
    const chain: [string, string | undefined][] = [
      ['d', 'c'],
      ['b', 'a'],
      ['a', undefined],
      ['c', 'b'],
      ['e', 'b'],
    ];
    const expected = { a: [null, 0], b: ['a', 1], c: ['b', 2], d: ['c', 3], e: ['b', 2] };

    expect(levels(chain)).toEqual(expected);
    expect(levels([...chain].reverse())).toEqual(expected);
  });

  it.each<{ name: string; entries: [string, string | undefined][]; expected: Record<string, unknown> }>([
    {
      name: 'treats a node whose parent is unknown as a root',
      entries: [
        ['x', 'not-listed'],
        ['y', 'x'],
      ],
      expected: { x: [null, 0], y: ['x', 1] },
    },
    {
      name: 'makes a node that names itself as its uplink a root',
      entries: [
        ['self', 'self'],
        ['child', 'self'],
      ],
      expected: { self: [null, 0], child: ['self', 1] },
    },
  ])('$name', ({ entries, expected }) => {
    expect(levels(entries)).toEqual(expected);
  });

  it('breaks a cycle at its smallest id, from whichever node the walk starts', () => {
    const ring: [string, string | undefined][] = [
      ['m', 'k'],
      ['k', 'z'],
      ['z', 'm'],
      ['tail', 'z'],
    ];
    const expected = { k: [null, 0], m: ['k', 1], z: ['m', 2], tail: ['z', 3] };

    expect(levels(ring)).toEqual(expected);
    expect(levels([...ring].reverse())).toEqual(expected);
    expect(levels([ring[3], ring[1], ring[0], ring[2]] as [string, string | undefined][])).toEqual(expected);
  });

  it('places a long chain without deep recursion', () => {
    const entries: [string, string | undefined][] = [];
    for (let i = 0; i < 20_000; i++) entries.push([`n${i}`, i === 0 ? undefined : `n${i - 1}`]);

    const placed = placeNodes(new Map(entries.reverse()));

    expect(placed.get('n19999')).toEqual({ parent: 'n19998', level: 19_999 });
  });
});

describe('uplinkDepth', () => {
  it('counts the devices between a node and the gateway: 0 for the gateway and what hangs directly off it', () => {
    expect([0, 1, 2, 3].map(uplinkDepth)).toEqual([0, 0, 1, 2]);
  });
});

describe('macId', () => {
  it('uses the normalised MAC, and keeps an id that is no MAC lower-cased rather than dropping it', () => {
    expect(macId('F0-9F-11-22-33-44')).toBe('f0:9f:11:22:33:44');
    expect(macId('Odd-ID')).toBe('odd-id');
  });
});
