import { describe, expect, it } from 'vitest';
import { GatewayUnavailableError, RateBudgetSpentError } from '../../src/errors.js';
import { guardTransport } from '../../src/gateway/request-guard.js';
import type { OutgoingRequest, RawResponse, Transport } from '../../src/gateway/transport.js';
import type { RequestGuard, RequestOutcome } from '../../src/lib/request-guard.js';

const OK: RawResponse = { status: 200, headers: {}, contentType: 'application/json', text: '{}', json: {} };

function fakeTransport(answer: () => Promise<RawResponse>) {
  const sent: OutgoingRequest[] = [];
  const transport: Transport = {
    async send(request) {
      sent.push(request);
      return answer();
    },
    close: () => undefined,
  };
  return { transport, sent };
}

function recordingGuard(name: string, log: string[], options: { refuse?: Error; waitMs?: number } = {}) {
  const told: RequestOutcome[] = [];
  const guard: RequestGuard = {
    async admit(request) {
      log.push(`${name} ${request.method} ${request.timeoutMs > 0 ? 'timed' : 'untimed'}`);
      if (options.waitMs) await new Promise((resolve) => setTimeout(resolve, options.waitMs));
      if (options.refuse) throw options.refuse;
      return (outcome) => told.push(outcome);
    },
  };
  return { guard, told };
}

describe('guardTransport', () => {
  it('passes every guard in order, then tells each how the request ended', async () => {
    const log: string[] = [];
    const first = recordingGuard('breaker', log);
    const second = recordingGuard('budget', log);
    const { transport, sent } = fakeTransport(async () => ({ ...OK, status: 503 }));
    const guarded = guardTransport(transport, [first.guard, second.guard], 10_000);
    const response = await guarded.send({ method: 'GET', url: 'https://api.ui.com/v1/hosts', headers: {} });
    expect(response.status).toBe(503);
    expect(log).toEqual(['breaker GET timed', 'budget GET timed']);
    expect(sent).toHaveLength(1);
    expect(first.told).toEqual([{ kind: 'answered', status: 503 }]);
    expect(second.told).toEqual([{ kind: 'answered', status: 503 }]);
  });

  it('a refusal keeps the request from leaving and tells the guards already passed it was not sent', async () => {
    const log: string[] = [];
    const first = recordingGuard('breaker', log);
    const refusal = new RateBudgetSpentError('spent', 3);
    const second = recordingGuard('budget', log, { refuse: refusal });
    const { transport, sent } = fakeTransport(async () => OK);
    const guarded = guardTransport(transport, [first.guard, second.guard], 10_000);
    await expect(guarded.send({ method: 'PUT', url: 'https://x/y', headers: {} })).rejects.toBe(refusal);
    expect(sent).toEqual([]);
    expect(first.told).toEqual([{ kind: 'not-sent' }]);
  });

  it('reports a failure on the way, and takes a guard’s wait out of the request’s own timeout', async () => {
    const log: string[] = [];
    const slow = recordingGuard('budget', log, { waitMs: 60 });
    const failure = new GatewayUnavailableError('10.1.0.1 refused the connection');
    const { transport, sent } = fakeTransport(async () => Promise.reject(failure));
    const guarded = guardTransport(transport, [slow.guard], 10_000);
    await expect(
      guarded.send({ method: 'GET', url: 'https://x/y', headers: {}, timeoutMs: 1000 }),
    ).rejects.toBe(failure);
    expect(slow.told).toEqual([{ kind: 'failed', error: failure }]);
    expect(sent[0]?.timeoutMs).toBeLessThanOrEqual(945);
    expect(sent[0]?.timeoutMs).toBeGreaterThan(500);
  });

  it('with no guards is the transport itself', () => {
    const { transport } = fakeTransport(async () => OK);
    expect(guardTransport(transport, [], 1000)).toBe(transport);
  });
});
