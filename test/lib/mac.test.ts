import { describe, expect, it } from 'vitest';
import { normalizeMac } from '../../src/lib/mac.js';

describe('normalizeMac', () => {
  // Deliberately alike: an it.each table of inputs and the answers expected; the rows are the test data.
  it.each([
    ['aa:bb:cc:dd:ee:ff', 'aa:bb:cc:dd:ee:ff'],
    ['AA-BB-CC-DD-EE-FF', 'aa:bb:cc:dd:ee:ff'],
    ['aabb.ccdd.eeff', 'aa:bb:cc:dd:ee:ff'],
    ['AABBCCDDEEFF', 'aa:bb:cc:dd:ee:ff'],
    [' f0:9f:11:22:33:44 ', 'f0:9f:11:22:33:44'],
  ])('reads %s', (input, expected) => {
    expect(normalizeMac(input)).toBe(expected);
  });

  it.each(['aa:bb:cc:dd:ee', 'aa:bb-cc:dd:ee:ff', 'aabb.ccdd.eef', 'gg:bb:cc:dd:ee:ff', ''])(
    'refuses %j',
    (input) => {
      expect(normalizeMac(input)).toBeUndefined();
    },
  );
});
