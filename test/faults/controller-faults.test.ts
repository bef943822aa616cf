// The fault matrix, controller side: every way a controller has a bad day, met by one bot (HTTP
// mode, Bolt's receiver, the fake Slack) logged in with a session, the simulator behind a proxy
// that can refuse connections. For each cell: the exact text the user reads, that the next command
// is answered, and what reached the controller (sim.requests). docs/testing.md's fault matrix
// summarises it.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import type { FaultSpec, RecordedRequest } from '../../src/simulator/types.js';
import type { SlackCall } from '../helpers/fake-slack.js';
import { type SlackBot, startSlackBot } from '../helpers/slack-bot.js';
import { type SwitchableProxy, startSwitchableProxy } from '../helpers/switchable-proxy.js';

let sim: Simulator;
let proxy: SwitchableProxy;
let b: SlackBot;
/** host:port of the controller as the bot names it. */
let host: string;

beforeAll(async () => {
  sim = await startSimulator();
  proxy = await startSwitchableProxy(sim.url);
  host = new URL(proxy.url).host;
  // The test gateway: 1 s per request, reads tried twice within 1.5 s, writes once.
  b = await startSlackBot({
    sim,
    gateway: { url: proxy.url, apiKey: undefined, username: sim.username, password: sim.password },
  });
});
afterEach(async () => {
  sim.clearFaults();
  await proxy.accept();
});
afterAll(async () => {
  await b?.close();
  await proxy?.close();
  await sim?.close();
});

/** `^…$` of a text, `{s}` standing for a wait in seconds with one decimal. */
function exactly(template: string): RegExp {
  const escaped = template
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replace(/\\\{s\\\}/g, '\\d+\\.\\d')
    // The network a write cell creates (Fault201, …) and its id, as a read back names them.
    .replace(/\\\{name\\\}/g, 'Fault\\d+')
    .replace(/\\\{id\\\}/g, '[0-9a-f]{24}');
  return new RegExp(`^${escaped}$`);
}

const textOf = (call: SlackCall | undefined) =>
  `${String(call?.args.text)} ${JSON.stringify(call?.args.blocks ?? [])}`;
const isLogin = (r: RecordedRequest) => /\/auth\/login$|\/api\/login$/.test(r.path);
/** Requests that could change something (the session login aside). */
const writesSince = (n: number) => sim.requests.slice(n).filter((r) => r.method !== 'GET' && !isLogin(r));

/** Sends `/net <text>` and resolves with what the user read on response_url. */
async function command(text: string, user = 'U1'): Promise<Record<string, unknown>> {
  const { status, responseUrl } = await b.command(text, user);
  expect(status).toBe(200);
  await b.slack.waitFor(() => b.slack.responses.some((r) => responseUrl.endsWith(r.path)), 10_000);
  return b.slack.responses.find((r) => responseUrl.endsWith(r.path))?.body ?? {};
}

/** What no user should ever read for a known controller failure. */
function expectNoBugText(text: string): void {
  expect(text).not.toMatch(/Internal error/);
  expect(text).not.toMatch(/\n\s+at |Error: |\.ts:\d+/);
}

/** After a cell: with the fault gone, the next command is answered as usual. */
async function expectServing(): Promise<void> {
  sim.clearFaults();
  await proxy.accept();
  const next = await command('list_vlans', 'U3');
  expect(String(next.text)).toMatch(/^List vlans: \d+ row\(s\)$/);
}

interface ReadCell {
  fault: string;
  arrange: () => void | Promise<void>;
  /** The text the user reads. */
  reads: () => string | RegExp;
}

const networkconf = (spec: Partial<FaultSpec> & Pick<FaultSpec, 'kind'>): FaultSpec =>
  ({ route: 'rest/networkconf', method: 'GET', ...spec }) as FaultSpec;
const unreachable = (what: string) =>
  exactly(
    `:electric_plug: Controller unreachable: ${host} ${what} (gave up after 2 attempts in {s} s). Nothing was changed; try again in a minute.`,
  );

const READS: ReadCell[] = [
  {
    fault: 'slow (300 ms, under the timeout)',
    arrange: () => sim.injectFault(networkconf({ kind: 'latency', ms: 300 })),
    reads: () => 'List vlans: 6 row(s)',
  },
  {
    fault: 'refusing connections',
    arrange: () => proxy.refuse(),
    reads: () => unreachable('refused the connection (ECONNREFUSED)'),
  },
  {
    fault: 'hanging (no answer within the timeout, twice)',
    arrange: () => sim.injectFault(networkconf({ kind: 'latency', ms: 5_000, times: 2 })),
    reads: () =>
      exactly(
        `:electric_plug: Controller unreachable: ${host} did not answer within {s} s (2 attempts). Nothing was changed; try again in a minute.`,
      ),
  },
  {
    fault: 'dropping the connection',
    arrange: () => sim.injectFault(networkconf({ kind: 'drop', times: 2 })),
    reads: () => unreachable('dropped the connection (ECONNRESET)'),
  },
  {
    fault: 'HTTP 500 with a controller code',
    arrange: () => sim.injectFault(networkconf({ kind: 'status', status: 500 })),
    reads: () =>
      ':no_entry: The controller refused: the Network application failed with an internal error (`api.err.ServerError`)',
  },
  {
    fault: 'HTTP 500 with an HTML page',
    arrange: () =>
      sim.injectFault(networkconf({ kind: 'status', status: 500, body: '<html><h1>500</h1></html>' })),
    reads: () =>
      `:electric_plug: Controller unreachable: ${host} answered HTTP 500 (an internal error of the Network application). Nothing was changed; try again in a minute.`,
  },
  {
    fault: 'HTTP 502 (the Network application restarting)',
    arrange: () => sim.injectFault(networkconf({ kind: 'status', status: 502, times: 2 })),
    reads: () => unreachable('answered HTTP 502 (the Network application may be restarting)'),
  },
  {
    fault: 'HTTP 503',
    arrange: () => sim.injectFault(networkconf({ kind: 'status', status: 503, times: 2 })),
    reads: () => unreachable('answered HTTP 503 (the Network application may be restarting)'),
  },
  {
    fault: 'HTTP 429 with Retry-After: 30 (longer than a read waits)',
    arrange: () => sim.injectFault(networkconf({ kind: 'rate-limit', retryAfterSeconds: 30 })),
    reads: () => ':turtle: The controller is rate-limiting the bot. Retry after 30s.',
  },
  {
    fault: 'HTTP 429 with Retry-After: 1, once (the read waits and asks again)',
    arrange: () => sim.injectFault(networkconf({ kind: 'rate-limit', retryAfterSeconds: 1 })),
    reads: () => 'List vlans: 6 row(s)',
  },
  {
    fault: 'the session expired',
    arrange: () => sim.expireSessions(),
    reads: () => 'List vlans: 6 row(s)',
  },
  {
    fault: 'HTML instead of JSON (HTTP 200)',
    arrange: () =>
      sim.injectFault(networkconf({ kind: 'status', status: 200, body: '<html><body>Portal</body></html>' })),
    reads: () =>
      `:electric_plug: No UniFi Network controller at ${proxy.url}: GET /proxy/network/api/s/default/rest/networkconf answered HTTP 200 with a web page; check GATEWAY_URL (a UniFi OS console: https://&lt;console&gt;; a self-hosted controller: https://&lt;host&gt;:8443). Nothing was changed.`,
  },
  {
    fault: 'JSON cut short',
    arrange: () =>
      sim.injectFault(
        networkconf({
          kind: 'status',
          status: 200,
          body: '{"meta":{"rc":"ok"},"data":[{"_id":"64ab',
          contentType: 'application/json; charset=utf-8',
        }),
      ),
    reads: () =>
      ":no_entry: The controller refused: the controller's answer to /api/s/default/rest/networkconf was not understood: its JSON is cut short or malformed (`InvalidResponse`)",
  },
  {
    fault: 'odd records (wrong types, null, a string)',
    arrange: () =>
      sim.injectFault(
        networkconf({
          kind: 'status',
          status: 200,
          body: {
            meta: { rc: 'ok' },
            data: [
              { _id: 'odd1', name: 42, vlan: 'abc', purpose: 7 },
              null,
              'not a record',
              { _id: 'odd2', name: 'Lab', purpose: 'corporate', vlan: 12, ip_subnet: '10.12.0.1/24' },
            ],
          },
        }),
      ),
    // The two records that are not objects are left out, and the answer says so.
    reads: () => 'List vlans: 2 row(s); 2 controller records the bot could not read were left out.',
  },
];

describe('a lookup (/net list_vlans) while the controller is faulty', () => {
  it.each(READS)(
    '$fault: the user reads what happened, nothing is written, the next command is answered',
    async (cell) => {
      const before = sim.requests.length;
      await cell.arrange();

      const answer = await command('list_vlans');
      const written = writesSince(before);
      await expectServing();

      const text = String(answer.text);
      const expected = cell.reads();
      if (typeof expected === 'string') expect(text).toBe(expected);
      else expect(text).toMatch(expected);
      expectNoBugText(`${text} ${JSON.stringify(answer.blocks ?? [])}`);
      expect(written).toEqual([]);
    },
  );

  it('odd records: the records that read as networks are listed, the others left out', async () => {
    sim.injectFault(
      networkconf({
        kind: 'status',
        status: 200,
        body: { meta: { rc: 'ok' }, data: [null, 'x', { _id: 'odd2', name: 'Lab', vlan: 12 }] },
      }),
    );

    const answer = await command('list_vlans');

    expect(answer.text).toBe(
      'List vlans: 1 row(s); 2 controller records the bot could not read were left out.',
    );
    expect(JSON.stringify(answer.blocks)).toContain('Lab');
    expect(JSON.stringify(answer.blocks)).toContain(
      '1 shown; 2 controller records the bot could not read were left out.',
    );
  });

  it('the session expired: the bot logs in again once and reads on', async () => {
    const before = sim.requests.length;
    sim.expireSessions();

    await command('list_vlans');

    const since = sim.requests.slice(before);
    expect(since.filter(isLogin)).toHaveLength(1);
    expect(since.filter((r) => r.route.endsWith('rest/networkconf')).length).toBeGreaterThanOrEqual(2);
  });
});

/** Proposes a network as U1; the request id and its message ts once recorded. */
async function propose(name: string, vlan: number): Promise<{ id: string; ts: string }> {
  return b.propose(`create_network name=${name} vlan_id=${vlan} subnet=10.${vlan}.0.0/24`, 'U1');
}

interface WriteCell {
  fault: string;
  arrange: () => void | Promise<void>;
  /** The request's end state, and what its thread says (`:x: Create network failed: …`). */
  state: 'succeeded' | 'failed';
  thread: () => string | RegExp;
  /** POSTs of the network that reached the controller, and whether it exists afterwards. */
  posts: number;
  created: boolean;
  /** Session logins while the change ran [0]. */
  logins?: number;
}

const post = (spec: Partial<FaultSpec> & Pick<FaultSpec, 'kind'>): FaultSpec =>
  ({ route: 'rest/networkconf', method: 'POST', ...spec }) as FaultSpec;
// After a write with no answer the bot reads it back once: what the read found is said,
// and "not made" never, since the controller may still be working on it.
const mayHaveBeenMade = (what: string) =>
  exactly(
    `:x: Create network failed: ${host} ${what} after the POST to rest/networkconf was sent, and a read afterwards finds no object named "{name}": the change may or may not have been made; check the controller before trying again`,
  );

const WRITES: WriteCell[] = [
  // Deliberately alike: cells of one it.each table share its fields by design; each cell is a different case.
  {
    fault: 'slow (300 ms)',
    arrange: () => sim.injectFault(post({ kind: 'latency', ms: 300 })),
    state: 'succeeded',
    thread: () => ':white_check_mark: Create network done.',
    posts: 1,
    created: true,
  },
  {
    fault: 'refusing connections at approval',
    arrange: () => proxy.refuse(),
    state: 'failed',
    thread: () =>
      exactly(
        `:no_entry_sign: Create network not run: the check at approval failed: ${host} refused the connection (ECONNREFUSED) (gave up after 2 attempts in {s} s)`,
      ),
    posts: 0,
    created: false,
  },
  {
    // Before the hanging cell: a write that lands unanswered leaves a session's CSRF token stale.
    fault: 'HTTP 500 after the controller made the change',
    arrange: () => sim.injectFault(post({ kind: 'apply-then', status: 500 })),
    state: 'failed',
    thread: () =>
      exactly(
        ':x: Create network failed: the Network application failed with an internal error after the POST to rest/networkconf was sent, and a read afterwards finds "{name}", id {id}: the change may have been made; check the controller before trying again',
      ),
    posts: 1,
    created: true,
  },
  {
    fault: 'hanging after the write was sent (it lands later)',
    arrange: () => sim.injectFault(post({ kind: 'latency', ms: 1_500 })),
    state: 'failed',
    // The read back may come before or after the write lands.
    thread: () =>
      new RegExp(
        `^:x: Create network failed: ${host.replace(/\./g, '\\.')} did not answer within 1\\.0 s after the POST to rest/networkconf was sent, and a read afterwards (finds no object named "Fault\\d+": the change may or may not|finds "Fault\\d+", id [0-9a-f]{24}: the change may) have been made; check the controller before trying again$`,
      ),
    posts: 1,
    created: true,
  },
  {
    fault: 'dropping the connection after the write was sent',
    arrange: () => sim.injectFault(post({ kind: 'drop' })),
    state: 'failed',
    thread: () => mayHaveBeenMade('dropped the connection (ECONNRESET)'),
    posts: 1,
    created: false,
  },
  {
    fault: 'HTTP 500',
    arrange: () => sim.injectFault(post({ kind: 'status', status: 500 })),
    state: 'failed',
    thread: () =>
      exactly(
        ':x: Create network failed: the Network application failed with an internal error; a read afterwards finds no object named "{name}", so the change was not made (api.err.ServerError)',
      ),
    posts: 1,
    created: false,
  },
  {
    fault: 'HTTP 502',
    arrange: () => sim.injectFault(post({ kind: 'status', status: 502 })),
    state: 'failed',
    thread: () =>
      exactly(
        `:x: Create network failed: ${host} answered HTTP 502 (the Network application may be restarting); a read afterwards finds no object named "{name}", so the change was not made`,
      ),
    posts: 1,
    created: false,
  },
  {
    fault: 'HTTP 503',
    arrange: () => sim.injectFault(post({ kind: 'status', status: 503 })),
    state: 'failed',
    thread: () =>
      `:x: Create network failed: ${host} answered HTTP 503 (the Network application may be restarting)`,
    posts: 1,
    created: false,
  },
  {
    fault: 'HTTP 429 with Retry-After: 1 (a write is never retried)',
    arrange: () => sim.injectFault(post({ kind: 'rate-limit', retryAfterSeconds: 1 })),
    state: 'failed',
    thread: () => `:x: Create network failed: ${host} is rate-limiting requests`,
    posts: 1,
    created: false,
  },
  {
    fault: 'the session expiring at the write (401, a fresh login, sent again once)',
    arrange: () => sim.injectFault(post({ kind: 'status', status: 401 })),
    state: 'succeeded',
    thread: () => ':white_check_mark: Create network done.',
    posts: 2,
    created: true,
    logins: 1,
  },
  {
    fault: 'HTML instead of JSON (HTTP 200)',
    arrange: () =>
      sim.injectFault(post({ kind: 'status', status: 200, body: '<html><body>Portal</body></html>' })),
    state: 'failed',
    thread: () =>
      `:x: Create network failed: no UniFi Network controller at ${proxy.url}: POST /proxy/network/api/s/default/rest/networkconf answered HTTP 200 with a web page; check GATEWAY_URL (a UniFi OS console: https://&lt;console&gt;; a self-hosted controller: https://&lt;host&gt;:8443)`,
    posts: 1,
    created: false,
  },
  {
    fault: 'JSON cut short (HTTP 200)',
    arrange: () =>
      sim.injectFault(
        post({
          kind: 'status',
          status: 200,
          body: '{"meta":{"rc":"ok"},"da',
          contentType: 'application/json',
        }),
      ),
    state: 'failed',
    thread: () =>
      ":x: Create network failed: the controller's answer to /api/s/default/rest/networkconf was not understood: its JSON is cut short or malformed; the change may or may not have been made: check the controller before trying again (InvalidResponse)",
    posts: 1,
    created: false,
  },
];

// Deliberately alike: the fault suites share one harness: a table of cells run by it.each, a fresh VLAN a cell.
describe('an approved change (create_network) while the controller is faulty', () => {
  let vlan = 200;
  it.each(WRITES)(
    '$fault: the channel tells the outcome, the write is sent at most once, the bot keeps serving',
    async (cell) => {
      vlan += 1;
      const name = `Fault${vlan}`;
      const { id, ts } = await propose(name, vlan);
      const before = sim.requests.length;
      await cell.arrange();

      const click = await b.click('approve', id, 'U2');
      await b.slack.waitFor(async () => (await b.approvals.get(id))?.state === cell.state, 10_000);
      await b.slack.waitFor(() => b.slack.callsOf('chat.postMessage').some((c) => c.args.thread_ts === ts));
      const networkPosts = () => writesSince(before).filter((r) => r.route.endsWith('rest/networkconf'));
      if (cell.created)
        await b.slack.waitFor(() => sim.state.findNetworkByName('default', name) !== undefined);
      const logins = sim.requests.slice(before).filter(isLogin).length;
      await expectServing();

      const request = await b.approvals.get(id);
      const thread = b.slack.callsOf('chat.postMessage').filter((c) => c.args.thread_ts === ts);
      const lastEdit = b.slack
        .callsOf('chat.update')
        .filter((c) => c.args.ts === ts)
        .at(-1);
      const expected = cell.thread();
      expect(click.status).toBe(200);
      expect(thread).toHaveLength(1);
      if (typeof expected === 'string') expect(thread[0]?.args.text).toBe(expected);
      else expect(String(thread[0]?.args.text)).toMatch(expected);
      expectNoBugText(textOf(thread[0]));
      expect(textOf(lastEdit)).toContain(
        cell.state === 'succeeded'
          ? '*Done* · approved by <@U2>'
          : request?.notRun
            ? '*Not run* · approved by <@U2>'
            : '*Failed* · approved by <@U2>',
      );
      expect(textOf(lastEdit)).not.toContain('"action_id":"approve"');
      expect(request?.state).toBe(cell.state);
      expect(networkPosts()).toHaveLength(cell.posts);
      expect(logins).toBe(cell.logins ?? 0);
      expect(sim.state.site('default')?.networks.filter((n) => n.name === name)).toHaveLength(
        cell.created ? 1 : 0,
      );
    },
  );
});
