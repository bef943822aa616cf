import { describe, expect, it } from 'vitest';
import { PARTS, parseOptions } from '../../bench/lib/options.js';

describe('bench options', () => {
  it('runs every part with three repeats and the issue load by default', () => {
    const options = parseOptions([]);
    expect(options.parts).toEqual([...PARTS]);
    expect(options).toMatchObject({ repeats: 3, commands: 500, senders: 50, ackLatenciesMs: [300, 5000] });
  });

  it('selects parts with --only and --skip, in the suite order', () => {
    expect(parseOptions(['--only=topology,acks']).parts).toEqual(['acks', 'topology']);
    // Deliberately alike: the order written out, so a part dropped from PARTS or moved fails here.
    expect(parseOptions(['--skip=errors,topology']).parts).toEqual([
      'startup',
      'acks',
      'reads',
      'rounds',
      'telemetry',
      'guardrails',
      'watch',
      'burst',
      'store',
      'fleet',
    ]);
  });

  it('makes --quick one repeat with a lighter load, and lets explicit values win', () => {
    expect(parseOptions(['--quick'])).toMatchObject({ quick: true, repeats: 1, commands: 200, senders: 20 });
    expect(parseOptions(['--quick', '--repeats=2']).repeats).toBe(2);
  });

  it('reads latencies, pace and warm-up', () => {
    expect(parseOptions(['--ack-latency=100,2000', '--pace=0', '--warmup=0'])).toMatchObject({
      ackLatenciesMs: [100, 2000],
      paceMs: 0,
      warmup: 0,
    });
  });

  it('refuses unknown parts, unknown options and bad numbers, naming them', () => {
    expect(() => parseOptions(['--only=acks,speed'])).toThrow(/--only takes parts from .*"acks,speed"/);
    expect(() => parseOptions(['--fast'])).toThrow(/unknown option --fast/);
    expect(() => parseOptions(['--repeats=0'])).toThrow(/--repeats must be a whole number ≥ 1/);
    expect(() => parseOptions(['quick'])).toThrow(/unknown argument "quick"/);
  });
});
