import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GatewayUnavailableError, RateLimitedError, WriteOutcomeUnknownError } from '../../src/errors.js';
import { createGateway } from '../../src/gateway/gateway.js';
import type { GatewayOptions } from '../../src/gateway/options.js';
import type { Gateway } from '../../src/gateway/types.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { type ClosedPort, closedPort } from '../helpers/ports.js';
import { type FakeServer, networkSchema, sendClassic, sendJson, startFake, timed } from './support.js';

// Per read. Small so the suite stays fast, but not so small that an answering fake misses it on a
// loaded 2-core CI machine (100 ms did, now and then).
const BUDGET_MS = 2_000;
// Per attempt, for scripts that hang: only a hang should meet it. Scripts that answer (a 503, a
// 429, a dropped connection, data) get ROOMY_TIMEOUT_MS, so a slow machine never turns an answer
// into a timeout and changes which error a test sees.
const TIMEOUT_MS = 300;
const ROOMY_TIMEOUT_MS = 10_000;

/** Per-route scripts: each request takes the next answer; the last one repeats. */
type Answer = 'ok' | 'hang' | 'drop' | 503 | { status: 429; retryAfter: string };
let scripts = new Map<string, Answer[]>();
const hanging: ServerResponse[] = [];

let server: FakeServer;
/** For scripts that answer. */
let gateway: Gateway;
/** For scripts that hang: TIMEOUT_MS per attempt. */
let impatient: Gateway;

function answer(res: ServerResponse, next: Answer): void {
  if (next === 'ok') {
    sendClassic(res, [{ _id: 'a', name: 'LAN' }]);
    return;
  }
  if (next === 'hang') {
    hanging.push(res);
    return;
  }
  if (next === 'drop') {
    res.socket?.destroy();
    return;
  }
  if (next === 503) {
    res.writeHead(503, { 'content-type': 'text/html' });
    res.end('<html>503 Service Unavailable</html>');
    return;
  }
  sendJson(
    res,
    429,
    { meta: { rc: 'error', msg: 'api.err.RateLimit' }, data: [] },
    { 'retry-after': next.retryAfter },
  );
}

function gatewayWith(overrides: Partial<GatewayOptions> = {}): Gateway {
  return createGateway({
    apiType: 'local',
    url: server.url,
    apiKey: 'k-retry',
    deployment: 'unifi-os',
    timeoutMs: ROOMY_TIMEOUT_MS,
    retry: { attempts: 3, budgetMs: BUDGET_MS, baseDelayMs: 20, maxDelayMs: 100 },
    ...overrides,
  });
}

beforeAll(async () => {
  server = await startFake((req, res) => {
    const route = req.path.replace(/^\/proxy\/network\/api\/s\/default\//, '');
    const script = scripts.get(route) ?? ['ok'];
    const next = script.length > 1 ? script.shift() : script[0];
    answer(res, next ?? 'ok');
  });
  gateway = gatewayWith();
  impatient = gatewayWith({ timeoutMs: TIMEOUT_MS });
  // One read that answers, with room to spare, so the first test's attempts are not spent on
  // loading the HTTP client and opening the first connection on a busy machine.
  await gatewayWith({ retry: { attempts: 3, budgetMs: 10_000 } }).classicRead(
    'default',
    'stat/warm-up',
    networkSchema,
  );
});

beforeEach(() => {
  scripts = new Map();
  server.requests.length = 0;
});

afterAll(async () => {
  await gateway.close();
  await impatient.close();
  for (const res of hanging) res.destroy();
  await server.close();
});

describe('reads are retried on transient faults within the budget', () => {
  it('retries a read that times out, then fails as GatewayUnavailableError within the budget', async () => {
    // Arrange
    scripts.set('stat/slow', ['hang']);

    // Act
    const { error } = await timed(() => impatient.classicRead('default', 'stat/slow', networkSchema));

    // Assert
    expect(error).toBeInstanceOf(GatewayUnavailableError);
    // The wait is said once, as the whole read's, with the attempts it took.
    expect((error as Error).message).toMatch(/did not answer within \d+\.\d s \(3 attempts\)$/);
    expect(server.seen('/stat/slow')).toHaveLength(3);
  });

  it('retries a 503 and fails after the configured attempts', async () => {
    scripts.set('stat/busy', [503]);

    const { error } = await timed(() => gateway.classicRead('default', 'stat/busy', networkSchema));

    expect(error).toBeInstanceOf(GatewayUnavailableError);
    expect(error).toMatchObject({ status: 503 });
    expect(server.seen('/stat/busy')).toHaveLength(3);
  });

  it('succeeds when a retry gets through after a 503 and a dropped connection', async () => {
    scripts.set('rest/networkconf', [503, 'drop', 'ok']);

    const list = await gateway.classicRead('default', 'rest/networkconf', networkSchema);

    expect(list.items).toEqual([{ _id: 'a', name: 'LAN' }]);
    expect(server.seen('/rest/networkconf')).toHaveLength(3);
  });

  it('stops at the budget even when more attempts are allowed, clamping the last timeout', async () => {
    const timeoutMs = 100;
    const budgetMs = 1_500;
    const patient = gatewayWith({
      timeoutMs,
      retry: { attempts: 50, budgetMs, baseDelayMs: 20, maxDelayMs: 40 },
    });
    scripts.set('stat/slow2', ['hang']);

    const { error } = await timed(() => patient.classicRead('default', 'stat/slow2', networkSchema));
    await patient.close();

    // 50 attempts allowed, a few made: the budget, not the attempts, ended the read. Each hanging
    // attempt lasts its whole timeout, so the budget holds at most budget / timeout of them however
    // slow the machine; the budget leaves room for a retry even on a busy one.
    expect(error).toBeInstanceOf(GatewayUnavailableError);
    expect(server.seen('/stat/slow2').length).toBeGreaterThanOrEqual(2);
    expect(server.seen('/stat/slow2').length).toBeLessThanOrEqual(budgetMs / timeoutMs);
  });

  it('honours Retry-After on a 429: the retry is planned after at least that long', async () => {
    const logs = captureLogger();
    const waiting = gatewayWith({ retry: { attempts: 3, budgetMs: 3000 }, logger: logs.logger });
    // Fractional seconds, as the Site Manager reports them ("retry after 5.372786998s").
    scripts.set('stat/limited', [{ status: 429, retryAfter: '0.6' }, 'ok']);

    const list = await waiting.classicRead('default', 'stat/limited', networkSchema);
    await waiting.close();

    expect(list.items).toHaveLength(1);
    expect(server.seen('/stat/limited')).toHaveLength(2);
    // The wait the retry planned (logged with each retry), not a measured time.
    const retries = logs.lines().filter((l) => l.delayMs !== undefined);
    expect(retries).toHaveLength(1);
    expect(retries[0]?.delayMs).toBeGreaterThanOrEqual(600);
  });

  it('gives up at once with RateLimitedError when Retry-After exceeds the budget', async () => {
    scripts.set('stat/limited-long', [{ status: 429, retryAfter: '30' }]);

    const { error } = await timed(() => gateway.classicRead('default', 'stat/limited-long', networkSchema));

    // No retry was made (one request), and the test's own time limit is far below the 30 s asked.
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ retryAfterSeconds: 30 });
    expect(server.seen('/stat/limited-long')).toHaveLength(1);
  });

  it('retries a classic POST read (stat/sitedpi with a body)', async () => {
    scripts.set('stat/sitedpi', [503, 'ok']);

    const list = await gateway.classicRead('default', 'stat/sitedpi', networkSchema, {
      body: { type: 'by_app' },
    });

    expect(list.items).toHaveLength(1);
    const posts = server.seen('/stat/sitedpi', 'POST');
    expect(posts).toHaveLength(2);
    expect(posts[1]?.body).toEqual({ type: 'by_app' });
  });
});

describe('writes are never retried', () => {
  it.each([
    ['a 503', 503 as const, GatewayUnavailableError],
    ['a timeout', 'hang' as const, GatewayUnavailableError],
    ['a dropped connection', 'drop' as const, GatewayUnavailableError],
    ['a 429', { status: 429, retryAfter: '0' } as const, RateLimitedError],
  ])('sends a POST that fails with %s exactly once', async (_name, failure, errorClass) => {
    scripts.set('rest/networkconf', [failure]);
    const writer = failure === 'hang' ? impatient : gateway;

    const { error } = await timed(() =>
      writer.classicWrite('default', 'POST', 'rest/networkconf', { name: 'IoT', vlan: 30 }),
    );

    expect(error).toBeInstanceOf(errorClass);
    expect(server.seen('/rest/networkconf', 'POST')).toHaveLength(1);
  });

  it.each([
    ['a timeout', 'hang' as const, `did not answer within ${(TIMEOUT_MS / 1000).toFixed(1)} s`],
    ['a dropped connection', 'drop' as const, 'dropped the connection (ECONNRESET)'],
  ])(
    'says a POST sent and unanswered (%s) may have been made, never that it was not',
    async (_name, failure, what) => {
      scripts.set('rest/networkconf', [failure]);
      const writer = failure === 'hang' ? impatient : gateway;

      const { error } = await timed(() =>
        writer.classicWrite('default', 'POST', 'rest/networkconf', { name: 'IoT', vlan: 30 }),
      );

      expect(error).toBeInstanceOf(WriteOutcomeUnknownError);
      // The read back meets the same fault, so it proves nothing either way.
      const message = (error as Error).message;
      expect(
        message.startsWith(
          `${new URL(server.url).host} ${what} after the POST to rest/networkconf was sent, `,
        ),
      ).toBe(true);
      expect(message).toContain(', and a read afterwards to check failed too (');
      expect(
        message.endsWith(
          ': the change may or may not have been made; check the controller before trying again',
        ),
      ).toBe(true);
    },
  );

  it('keeps a 503 answer a plain failure: the controller said it did not take the write', async () => {
    scripts.set('rest/networkconf', [503]);

    const { error } = await timed(() =>
      gateway.classicWrite('default', 'POST', 'rest/networkconf', { name: 'IoT', vlan: 30 }),
    );

    expect(error).toBeInstanceOf(GatewayUnavailableError);
    expect(error).not.toBeInstanceOf(WriteOutcomeUnknownError);
  });

  it('sends a PUT and a DELETE that get 503 exactly once each', async () => {
    scripts.set('rest/networkconf/64ab0c9e8f1a2b3c4d5e6f70', [503]);

    const put = await timed(() =>
      gateway.classicWrite('default', 'PUT', 'rest/networkconf/64ab0c9e8f1a2b3c4d5e6f70', { name: 'x' }),
    );
    const del = await timed(() =>
      gateway.classicWrite('default', 'DELETE', 'rest/networkconf/64ab0c9e8f1a2b3c4d5e6f70'),
    );

    expect(put.error).toBeInstanceOf(GatewayUnavailableError);
    expect(del.error).toBeInstanceOf(GatewayUnavailableError);
    expect(server.seen('/rest/networkconf/64ab0c9e8f1a2b3c4d5e6f70', 'PUT')).toHaveLength(1);
    expect(server.seen('/rest/networkconf/64ab0c9e8f1a2b3c4d5e6f70', 'DELETE')).toHaveLength(1);
  });
});

describe('an unreachable controller', () => {
  let closed: ClosedPort;
  beforeEach(async () => {
    closed = await closedPort();
  });
  afterEach(() => closed.release());

  /** A gateway pointed at the closed port; the caller closes it. */
  const offlineGateway = (options: Partial<GatewayOptions>) =>
    createGateway({ apiType: 'local', url: closed.url, timeoutMs: TIMEOUT_MS, ...options });

  it('reports a refused connection as GatewayUnavailableError naming the host', async () => {
    const { url } = closed;
    const offline = offlineGateway({
      apiKey: 'k-secret-offline',
      retry: { attempts: 2, budgetMs: 500, baseDelayMs: 10 },
    });

    const { error } = await timed(() => offline.classicRead('default', 'rest/networkconf', networkSchema));
    await offline.close();

    expect(error).toBeInstanceOf(GatewayUnavailableError);
    expect((error as Error).message).toMatch(
      new RegExp(`^${new URL(url).host} refused the connection \\(ECONNREFUSED\\)`),
    );
    expect((error as Error).message).not.toContain('k-secret-offline');
  });

  it('says a write to a refused connection was not sent (no "may have been made")', async () => {
    const { url } = closed;
    const offline = offlineGateway({
      apiKey: 'k-offline',
      deployment: 'unifi-os',
      retry: { attempts: 1, budgetMs: 500, baseDelayMs: 10 },
    });

    const { error } = await timed(() =>
      offline.classicWrite('default', 'POST', 'rest/networkconf', { name: 'IoT', vlan: 30 }),
    );
    await offline.close();

    expect(error).toBeInstanceOf(GatewayUnavailableError);
    expect(error).not.toBeInstanceOf(WriteOutcomeUnknownError);
    expect((error as Error).message).toBe(`${new URL(url).host} refused the connection (ECONNREFUSED)`);
  });
});
