import { describe, expect, it } from 'vitest';
import { formatBytesShort, formatRate } from '../../../src/tools/core/live-format.js';

describe('formatRate', () => {
  it.each([
    [0, '0 bps'],
    [-5, '0 bps'],
    [Number.NaN, '0 bps'],
    [999, '999 bps'],
    [1500, '1.5 kbps'],
    [12_345_678, '12.3 Mbps'],
    [123_456_789, '123 Mbps'],
    [5e12, '5000 Gbps'],
  ])('%s bits per second reads %s', (rate, text) => {
    expect(formatRate(rate)).toBe(text);
  });
});

describe('formatBytesShort', () => {
  // Deliberately alike: each unit's boundary cases, the same table shape as the rates above.
  it.each([
    [0, '0 B'],
    [999, '999 B'],
    [1234, '1.2 kB'],
    [1_200_000_000, '1.2 GB'],
    [2.5e15, '2500 TB'],
  ])('%s bytes read %s', (bytes, text) => {
    expect(formatBytesShort(bytes)).toBe(text);
  });
});
