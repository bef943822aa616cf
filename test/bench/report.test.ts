import { describe, expect, it } from 'vitest';
import { budgetRows } from '../../bench/lib/report.js';
import type { BurstRow } from '../../bench/parts/burst.js';

const burst = (over: Partial<BurstRow>): BurstRow => ({
  people: 50,
  latencyMs: 300,
  requests: 26,
  distinct: 26,
  repeats: [],
  lookups: 11,
  failed: 0,
  failures: [],
  ms: 2000,
  ...over,
});

describe('the burst budget row (issue 26: requests in a burst = distinct resources)', () => {
  it('is met when the controller saw each distinct resource once and every lookup answered', () => {
    const [row] = budgetRows({ burst: burst({}) });
    expect(row?.met).toBe(true);
    expect(row?.floor).toBe('26 distinct resources');
  });

  it('is not met when a resource was asked for twice', () => {
    const [row] = budgetRows({ burst: burst({ requests: 27 }) });
    expect(row?.met).toBe(false);
    expect(row?.ratio).toMatch(/1\.04×/);
  });

  it('is not met when lookups failed, however few requests went out', () => {
    const [row] = budgetRows({ burst: burst({ requests: 20, distinct: 20, failed: 4 }) });
    expect(row?.met).toBe(false);
    expect(row?.now).toContain('4 lookups failed');
  });
});
