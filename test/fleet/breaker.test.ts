import { describe, expect, it } from 'vitest';
import { ConsoleNotAnsweringError, GatewayRejectedError, GatewayUnavailableError } from '../../src/errors.js';
import { ConsoleBreaker } from '../../src/fleet/breaker.js';
import type { RequestOutcome } from '../../src/lib/request-guard.js';

const READ = {
  method: 'GET',
  url: 'https://10.1.0.1/proxy/network/api/s/default/stat/device',
  timeoutMs: 8000,
} as const;
const WRITE = { ...READ, method: 'PUT' } as const;
const DOWN: RequestOutcome = {
  kind: 'failed',
  error: new GatewayUnavailableError('10.1.0.1 did not answer'),
};
const OK: RequestOutcome = { kind: 'answered', status: 200 };

/** 10:42:00 UTC on a fixed day, advanced by hand. */
function fakeClock() {
  let now = Date.UTC(2026, 11, 7, 10, 42, 0);
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

async function run(breaker: ConsoleBreaker, outcome: RequestOutcome, request = READ): Promise<void> {
  const settle = await breaker.admit(request);
  settle(outcome);
}

function breakerWith(clock: ReturnType<typeof fakeClock>) {
  return new ConsoleBreaker({ console: 'berlin', failures: 3, coolDownMs: 30_000, now: clock.now });
}

describe('a console’s circuit breaker', () => {
  it('opens after three failures in a row and then refuses at once, naming the console and the time', async () => {
    const clock = fakeClock();
    const breaker = breakerWith(clock);
    await run(breaker, DOWN);
    clock.advance(1000);
    await run(breaker, DOWN);
    expect(breaker.state).toBe('closed');
    await run(breaker, DOWN);
    expect(breaker.state).toBe('open');
    const refused = await breaker.admit(READ).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ConsoleNotAnsweringError);
    expect((refused as Error).message).toBe(
      'berlin: not answering since 10:42 (10.1.0.1 did not answer), retrying in 30s',
    );
    expect((refused as ConsoleNotAnsweringError).code).toBe('gateway_unavailable');
    clock.advance(12_000);
    await expect(breaker.admit(READ)).rejects.toThrow('retrying in 18s');
  });

  it('counts 5xx answers and failed connections; any other answer, even one too large to read, starts again', async () => {
    const clock = fakeClock();
    const breaker = breakerWith(clock);
    await run(breaker, { kind: 'answered', status: 503 });
    await run(breaker, { kind: 'answered', status: 502 });
    await run(breaker, { kind: 'answered', status: 404 });
    await run(breaker, DOWN);
    await run(breaker, DOWN);
    await run(breaker, {
      kind: 'failed',
      error: new GatewayRejectedError('InvalidResponse', 'too large', 200),
    });
    await run(breaker, DOWN);
    await run(breaker, { kind: 'answered', status: 500 });
    expect(breaker.state).toBe('closed');
    await run(breaker, DOWN);
    expect(breaker.state).toBe('open');
  });

  it('lets one read through after the cool-down; its answer closes the breaker', async () => {
    const clock = fakeClock();
    const breaker = breakerWith(clock);
    for (let i = 0; i < 3; i += 1) await run(breaker, DOWN);
    clock.advance(30_000);
    expect(breaker.state).toBe('half-open');
    const probe = await breaker.admit(READ);
    // While the probe is out, everything else still fails at once.
    await expect(breaker.admit(READ)).rejects.toThrow(
      'berlin: not answering since 10:42 (10.1.0.1 did not answer), retrying now',
    );
    probe(OK);
    expect(breaker.state).toBe('closed');
    await expect(breaker.admit(READ)).resolves.toBeTypeOf('function');
  });

  // Deliberately alike: each breaker case drives its own sequence of outcomes on a fresh fake clock.
  it('opens again for a whole cool-down when the probe fails, keeping the time it went down', async () => {
    const clock = fakeClock();
    const breaker = breakerWith(clock);
    for (let i = 0; i < 3; i += 1) await run(breaker, DOWN);
    clock.advance(31_000);
    await run(breaker, DOWN);
    expect(breaker.state).toBe('open');
    clock.advance(29_000);
    await expect(breaker.admit(READ)).rejects.toThrow(
      'berlin: not answering since 10:42 (10.1.0.1 did not answer), retrying in 1s',
    );
    clock.advance(1_000);
    expect(breaker.state).toBe('half-open');
  });

  it('never sends a write while not closed, not even as the probe, and says it was not sent', async () => {
    const clock = fakeClock();
    const breaker = breakerWith(clock);
    for (let i = 0; i < 3; i += 1) await run(breaker, DOWN);
    await expect(breaker.admit(WRITE)).rejects.toThrow('retrying in 30s; the change was not sent');
    clock.advance(30_000);
    await expect(breaker.admit(WRITE)).rejects.toThrow('the change was not sent');
    // The refused write took no probe slot: a read still may go.
    const probe = await breaker.admit(READ);
    probe(OK);
    await expect(breaker.admit(WRITE)).resolves.toBeTypeOf('function');
  });

  it('a probe that was never sent (a later guard refused it) frees the slot for the next read', async () => {
    const clock = fakeClock();
    const breaker = breakerWith(clock);
    for (let i = 0; i < 3; i += 1) await run(breaker, DOWN);
    clock.advance(30_000);
    const probe = await breaker.admit(READ);
    probe({ kind: 'not-sent' });
    expect(breaker.state).toBe('half-open');
    await expect(breaker.admit(READ)).resolves.toBeTypeOf('function');
  });

  it('by default opens on the fifth failure, so one read and its retries alone never open it; names the last failure', async () => {
    const clock = fakeClock();
    const breaker = new ConsoleBreaker({ console: 'oslo', now: clock.now });
    for (let i = 0; i < 4; i += 1) await run(breaker, DOWN);
    expect(breaker.state).toBe('closed');
    await run(breaker, { kind: 'answered', status: 503 });
    expect(breaker.state).toBe('open');
    await expect(breaker.admit(READ)).rejects.toThrow(
      'oslo: not answering since 10:42 (answered HTTP 503), retrying in 30s',
    );
  });

  it('an answer between failures starts the count again', async () => {
    const clock = fakeClock();
    const breaker = breakerWith(clock);
    await run(breaker, DOWN);
    await run(breaker, DOWN);
    await run(breaker, OK);
    await run(breaker, DOWN);
    await run(breaker, DOWN);
    expect(breaker.state).toBe('closed');
    expect(breaker.view()).toEqual({ state: 'closed' });
  });
});
