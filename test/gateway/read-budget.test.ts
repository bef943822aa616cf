import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { GatewayUnavailableError } from '../../src/errors.js';
import { createGateway } from '../../src/gateway/gateway.js';
import type { GatewayOptions } from '../../src/gateway/options.js';
import type { Gateway } from '../../src/gateway/types.js';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { silentLogger } from '../../src/log.js';
import { createRegistry } from '../../src/tools/index.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { startSlackBot } from '../helpers/slack-bot.js';
import {
  type FakeServer,
  networkSchema,
  sendClassic,
  sendFirstPage,
  sendJson,
  startFake,
} from './support.js';

const registry = createRegistry('default');

// Small, so the suite stays fast; the default budget (8 s) works the same way. Only reads that are
// meant to run out of budget get it: a read meant to succeed gets ROOMY_MS, because on a loaded
// 2-core CI machine loading the HTTP client and the first connection alone can take longer than 300 ms.
const BUDGET_MS = 300;
const ROOMY_MS = 8_000;
// Larger than the budget, as GATEWAY_TIMEOUT_MS (10 s) is larger than the default budget: an
// attempt then gets whatever is left of the budget.
const TIMEOUT_MS = 10_000;
// The wait a message names is the whole read's: at least the budget, and (no speed is asserted
// here) short of the per-request timeout that a read without one budget would have waited.

/** Which routes never answer. */
let hangs: (req: { method: string; path: string }) => boolean = () => false;
const hanging: ServerResponse[] = [];
let server: FakeServer;
const gateways: Gateway[] = [];

beforeAll(async () => {
  server = await startFake((req, res) => {
    if (hangs(req)) {
      hanging.push(res);
      return;
    }
    if (req.path === '/') return sendJson(res, 200, {});
    if (req.path === '/api/auth/login') {
      return sendJson(res, 200, {}, { 'set-cookie': ['TOKEN=t; path=/'], 'x-csrf-token': 'c' });
    }
    if (req.path.endsWith('/integration/v1/sites')) {
      return sendFirstPage(res, [{ id: 'uuid-default', internalReference: 'default', name: 'Default' }]);
    }
    if (req.path.includes('/integration/v1/sites/')) {
      return sendFirstPage(res, [{ _id: 'n', name: 'LAN' }]);
    }
    sendClassic(res, [{ _id: 'a', name: 'LAN' }]);
  });
  // One read that answers, so the first test's budget is not spent on loading the HTTP client and
  // opening the first connection on a busy machine.
  await roomyGateway().classicRead('default', 'rest/networkconf', networkSchema);
});

beforeEach(() => {
  hangs = () => false;
  server.requests.length = 0;
});

afterAll(async () => {
  for (const g of gateways) await g.close();
  for (const res of hanging) res.destroy();
  await server.close();
});

function gatewayWith(overrides: Partial<GatewayOptions> = {}): Gateway {
  const gateway = createGateway({
    apiType: 'local',
    url: server.url,
    apiKey: 'k-budget',
    timeoutMs: TIMEOUT_MS,
    retry: { attempts: 3, budgetMs: BUDGET_MS, baseDelayMs: 20, maxDelayMs: 50 },
    ...overrides,
  });
  gateways.push(gateway);
  return gateway;
}

/** A gateway for reads that are meant to succeed: the budget is not what such a test measures. */
function roomyGateway(overrides: Partial<GatewayOptions> = {}): Gateway {
  return gatewayWith({
    retry: { attempts: 3, budgetMs: ROOMY_MS, baseDelayMs: 20, maxDelayMs: 50 },
    ...overrides,
  });
}

/** The seconds a "did not answer within N s" message names; every duration it names, to check it says one. */
function statedWait(error: unknown): { seconds: number; durations: number } {
  expect(error).toBeInstanceOf(GatewayUnavailableError);
  const message = (error as Error).message;
  const match = /did not answer within (\d+\.\d) s/.exec(message);
  if (!match?.[1]) throw new Error(`no wait in "${message}"`);
  return { seconds: Number(match[1]), durations: [...message.matchAll(/\d+(?:\.\d+)? ?(?:ms|s)\b/g)].length };
}

const failure = (read: Promise<unknown>) =>
  read.then(
    () => undefined,
    (error: unknown) => error,
  );

/** Checks that the wait an error names is the whole budget's; answers how many durations it names. */
function waitedTheBudget(error: unknown): number {
  const { seconds, durations } = statedWait(error);
  expect(seconds).toBeGreaterThanOrEqual(BUDGET_MS / 1000);
  expect(seconds).toBeLessThan(TIMEOUT_MS / 1000);
  return durations;
}

/** Reads networks through a gateway that runs out of budget; the wait its message names is the budget's. */
async function readPastBudget(gateway: Gateway): Promise<{ error: unknown; durations: number }> {
  const error = await failure(gateway.classicRead('default', 'rest/networkconf', networkSchema));
  return { error, durations: waitedTheBudget(error) };
}

/** Sent before the budget ran out, a request may reach the server after on a busy machine: wait, then count it. */
async function expectSentOnce(suffix: string): Promise<void> {
  await vi.waitFor(() => expect(server.seen(suffix).length).toBeGreaterThan(0), { timeout: 5_000 });
  expect(server.seen(suffix)).toHaveLength(1);
}

describe('one read budget covers every attempt, detection and login included', () => {
  it('reports a controller that never answers GET / once the budget is spent, in one attempt, naming the wait once', async () => {
    // Arrange
    hangs = () => true;
    const gateway = gatewayWith();

    // Act and assert
    const { error, durations } = await readPastBudget(gateway);
    expect(durations).toBe(1);
    expect((error as Error).message).toMatch(/^127\.0\.0\.1:\d+ did not answer within \d+\.\d s$/);
    // Detection and the read (sent where a UniFi OS console serves it) went out together, once.
    // On a busy machine the requests may reach the server after the budget ran out: wait for them.
    await vi.waitFor(() => expect(server.requests.length).toBeGreaterThanOrEqual(2), { timeout: 5_000 });
    expect(server.requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      'GET /',
      'GET /proxy/network/api/s/default/rest/networkconf',
    ]);
  });

  it('gives a hanging read the rest of the budget as one attempt instead of a timeout per attempt', async () => {
    hangs = (req) => req.path.endsWith('/rest/networkconf');
    const gateway = gatewayWith({ deployment: 'unifi-os' });

    await readPastBudget(gateway);

    await expectSentOnce('/rest/networkconf');
  });

  it('counts a hanging login against the read budget', async () => {
    hangs = (req) => req.path === '/api/auth/login';
    // The deployment given: no detection to answer first, so the whole budget falls on the login
    // (with detection in front, a busy machine could spend the budget before the login is sent).
    const gateway = gatewayWith({
      apiKey: undefined,
      username: 'admin',
      password: 'pw-secret',
      deployment: 'unifi-os',
    });

    const { error } = await readPastBudget(gateway);

    await expectSentOnce('/api/auth/login');
    expect(server.seen('/rest/networkconf')).toHaveLength(0);
    expect((error as Error).message).not.toContain('pw-secret');
  });

  it('stops waiting for detection another caller started once its own budget is spent', async () => {
    // Detection started by the warm-up has a whole budget of its own; a read that joins it later
    // still gives up when its own budget ends, saying how long it waited.
    hangs = () => true;
    const gateway = gatewayWith({ retry: { attempts: 3, budgetMs: 600, baseDelayMs: 20, maxDelayMs: 50 } });
    const warming = gateway.warmUp('default');
    // The read joins once the warm-up's detection is under way at the controller.
    await vi.waitFor(() => expect(server.seen('/', 'GET').some((r) => r.path === '/')).toBe(true), {
      timeout: 5_000,
    });

    const error = await failure(gateway.classicRead('default', 'rest/networkconf', networkSchema));
    const warmed = await warming;

    const { seconds } = statedWait(error);
    expect(seconds).toBeGreaterThanOrEqual(0.4);
    expect(seconds).toBeLessThan(TIMEOUT_MS / 1000);
    expect(warmed).toBe(false);
  });

  it('answers a first command sent during the warm-up, on a controller that never answers, with one error naming one wait', async () => {
    // A fresh bot: the warm-up (detection, site, version) and the first command's reads go out
    // together; the version read is shared, so nobody waits for it after their own read gave up.
    hangs = () => true;
    const gateway = gatewayWith();
    const context = { gateway, logger: silentLogger(), store: new MemoryStore() };

    const warming = gateway.warmUp('default');
    const errors = await Promise.all(
      ['list_vlans', 'list_traffic_routes', 'list_acl_rules', 'get_device_connections'].map((tool) =>
        failure(registry.run(tool, {}, context)),
      ),
    );
    const warmed = await warming;

    for (const error of errors) expect(waitedTheBudget(error)).toBe(1);
    expect(warmed).toBe(false);
    await expectSentOnce('/integration/v1/info');
  });

  it('words a hanging controller once in the Slack answer', async () => {
    hangs = () => true;
    const bot = await startSlackBot({
      gateway: {
        url: server.url,
        retry: { attempts: 3, budgetMs: BUDGET_MS, baseDelayMs: 20, maxDelayMs: 50 },
        timeoutMs: TIMEOUT_MS,
      },
    });
    try {
      void bot.app.context.gateway.warmUp('default');
      const { responseUrl } = await bot.command('list_vlans');
      const answer = () => bot.slack.responses.find((r) => responseUrl.endsWith(r.path));
      await bot.slack.waitFor(() => answer() !== undefined, 30_000);

      const body = answer()?.body as { text?: string } | undefined;
      const text = JSON.stringify(body);
      expect(text.match(/Controller unreachable/g)).toHaveLength(2); // the fallback text and its one block
      expect(text.match(/did not answer within/g)).toHaveLength(2);
      expect(body?.text).toMatch(
        /^:electric_plug: Controller unreachable: 127\.0\.0\.1:\d+ did not answer within \d+\.\d s( \(\d attempts\))?\. Nothing was changed; try again in a minute\.$/,
      );
    } finally {
      await bot.close();
    }
  });

  it('sends a write once with the full per-request timeout, and says that timeout', async () => {
    hangs = (req) => req.method === 'POST';
    const gateway = gatewayWith({ deployment: 'unifi-os', timeoutMs: 400 });

    const error = await failure(gateway.classicWrite('default', 'POST', 'rest/networkconf', { name: 'x' }));

    const { seconds } = statedWait(error);
    expect(seconds).toBe(0.4);
    expect(server.seen('/rest/networkconf', 'POST')).toHaveLength(1);
  });
});

describe('warm-up at start', () => {
  it('detects the controller and looks the site up before any command, so the first read needs one request', async () => {
    const gateway = roomyGateway();

    const warmed = await gateway.warmUp('default');
    server.requests.length = 0;
    await gateway.integrationList('default', 'networks', networkSchema);

    expect(warmed).toBe(true);
    expect(server.requests.map((r) => r.path)).toEqual([
      '/proxy/network/integration/v1/sites/uuid-default/networks',
    ]);
  });

  it('logs a failure instead of throwing, and the first command tries again', async () => {
    const logs = captureLogger();
    hangs = () => true;
    // One budget serves the warm-up that must fail and the read that must succeed: 2 s of each.
    const gateway = gatewayWith({
      logger: logs.logger,
      retry: { attempts: 3, budgetMs: 2_000, baseDelayMs: 20, maxDelayMs: 50 },
    });

    const warmed = await gateway.warmUp('default');
    hangs = () => false;
    const list = await gateway.classicRead('default', 'rest/networkconf', networkSchema);

    expect(warmed).toBe(false);
    expect(logs.text()).toContain('controller warm-up failed; the first command tries again');
    expect(list.items).toEqual([{ _id: 'a', name: 'LAN' }]);
    expect(server.seen('/', 'GET').filter((r) => r.path === '/')).toHaveLength(2);
  });

  it('logs in ahead with a username and password', async () => {
    const gateway = roomyGateway({ apiKey: undefined, username: 'admin', password: 'pw' });

    const warmed = await gateway.warmUp('default');

    expect(warmed).toBe(true);
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /', 'POST /api/auth/login']);
  });
});

describe('the first reads do not wait for controller detection', () => {
  /** A controller that answers GET / only once the read has arrived: a read waiting for detection never would. */
  async function controller(flavor: 'unifi-os' | 'self-hosted') {
    let heldRoot: (() => void) | undefined;
    const fake = await startFake((req, res) => {
      if (req.path === '/') {
        const answer = () => {
          if (flavor === 'unifi-os') return sendJson(res, 200, {});
          res.writeHead(302, { location: '/manage' });
          res.end();
        };
        const readArrived = fake.requests.some((r) => r.path.endsWith('/rest/networkconf'));
        if (readArrived) return answer();
        heldRoot = answer;
        return;
      }
      if (flavor === 'self-hosted' && req.path.startsWith('/proxy/network/')) {
        return sendJson(res, 404, { error: 'no such page' });
      }
      if (req.path.endsWith('/rest/networkconf')) {
        heldRoot?.();
        heldRoot = undefined;
        return sendClassic(res, [{ _id: 'a', name: flavor }]);
      }
      sendJson(res, 404, {});
    });
    return fake;
  }

  it('sends the read alongside detection, and uses its answer on a UniFi OS console', async () => {
    const fake = await controller('unifi-os');
    const gateway = createGateway({ apiType: 'local', url: fake.url, apiKey: 'k', timeoutMs: 5000 });
    gateways.push(gateway);

    const list = await gateway.classicRead('default', 'rest/networkconf', networkSchema);
    await fake.close();

    expect(list.items).toEqual([{ _id: 'a', name: 'unifi-os' }]);
    expect(fake.requests.map((r) => r.path).sort()).toEqual([
      '/',
      '/proxy/network/api/s/default/rest/networkconf',
    ]);
  });

  it('drops the guess and reads again where a self-hosted controller serves it', async () => {
    const fake = await controller('self-hosted');
    const gateway = createGateway({ apiType: 'local', url: fake.url, apiKey: 'k', timeoutMs: 5000 });
    gateways.push(gateway);

    const list = await gateway.classicRead('default', 'rest/networkconf', networkSchema);
    const again = await gateway.classicRead('default', 'rest/networkconf', networkSchema, { fresh: true });
    await fake.close();

    expect(list.items).toEqual([{ _id: 'a', name: 'self-hosted' }]);
    expect(again.items).toEqual([{ _id: 'a', name: 'self-hosted' }]);
    const paths = fake.requests.map((r) => r.path);
    // The guess and detection went out together; then the read where the controller serves it,
    // and the next read straight there.
    expect(paths.slice(0, 2).sort()).toEqual(['/', '/proxy/network/api/s/default/rest/networkconf']);
    expect(paths.slice(2)).toEqual(['/api/s/default/rest/networkconf', '/api/s/default/rest/networkconf']);
  });

  it('waits for detection before a write, and with a username and password (the login depends on it)', async () => {
    const gateway = roomyGateway({ apiKey: undefined, username: 'admin', password: 'pw' });
    const writer = roomyGateway();

    await gateway.classicRead('default', 'rest/networkconf', networkSchema);
    const sessionOrder = server.requests.map((r) => `${r.method} ${r.path}`);
    server.requests.length = 0;
    await writer.classicWrite('default', 'POST', 'rest/networkconf', { name: 'x' });
    const writeOrder = server.requests.map((r) => `${r.method} ${r.path}`);

    expect(sessionOrder).toEqual([
      'GET /',
      'POST /api/auth/login',
      'GET /proxy/network/api/s/default/rest/networkconf',
    ]);
    expect(writeOrder).toEqual(['GET /', 'POST /proxy/network/api/s/default/rest/networkconf']);
  });
});
