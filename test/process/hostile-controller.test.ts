import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import {
  type BotProcess,
  runBot,
  slackHttpEnv,
  slackSocketEnv,
  spawnBot,
  spawnListeningBot,
  stopAllBots,
} from '../helpers/bot-process.js';
import { type FakeSlack, startFakeSlack } from '../helpers/fake-slack.js';
import { startFakeSocketMode } from '../helpers/fake-socket-mode.js';
import {
  gzipBomb,
  type HostileController,
  peakRss,
  startHostileController,
} from '../helpers/hostile-controller.js';
import { networkPostsWhere } from '../helpers/network-writes.js';
import { buttonsOf } from '../helpers/slack-buttons.js';
import { buttonBody, commandBody, slackHeaders } from '../helpers/slack-requests.js';

// Networks serve as the sample write on their classic path (networkconf routes and faults): a 9.0
// console. Networks through the official API (10.1): tools/networks-official.test.ts.

// A controller that attacks the bot or lies to it: each test drives the built bot through a real
// interface against the simulator, or against a hostile stand-in in front of it on loopback.

const SECRET = 'hostile-controller-signing-secret';
const MB = 1024 * 1024;

let slack: FakeSlack;
let sim: Simulator;
let hostile: HostileController;

beforeAll(async () => {
  [slack, sim] = await Promise.all([startFakeSlack(), startSimulator({ apiVersion: '9.0' })]);
  hostile = await startHostileController(sim.url);
});
afterEach(async () => {
  await stopAllBots();
  hostile.intercept(undefined);
  sim.clearFaults();
  sim.reset();
});
afterAll(async () => {
  await Promise.all([slack?.close(), sim?.close(), hostile?.close()]);
});

/** The bot in Slack HTTP mode against `gatewayUrl`; its base URL. */
async function startSlackBot(
  gatewayUrl: string,
  env: Record<string, string> = {},
): Promise<{ bot: BotProcess; base: string }> {
  const { bot, url } = await spawnListeningBot({
    ...slackHttpEnv(slack, SECRET),
    GATEWAY_URL: gatewayUrl,
    GATEWAY_API_KEY: sim.apiKey,
    ...env,
  });
  return { bot, base: url };
}

/** Runs `/net <text>` and returns the text of the bot's answer on the response URL. */
async function command(base: string, text: string, user = 'U1'): Promise<string> {
  const responseUrl = slack.responseUrl();
  const body = commandBody({ text, user_id: user, response_url: responseUrl });
  const ack = await fetch(`${base}/slack/events`, {
    method: 'POST',
    headers: slackHeaders(SECRET, body),
    body,
  });
  expect(ack.status).toBe(200);
  await slack.waitFor(() => slack.responses.some((r) => responseUrl.endsWith(r.path)), 20_000);
  const answer = slack.responses.find((r) => responseUrl.endsWith(r.path))?.body ?? {};
  return `${String(answer.text ?? '')} ${JSON.stringify(answer.blocks ?? [])}`;
}

describe('a gzip bomb from the controller', () => {
  let bomb: Buffer;
  beforeAll(async () => {
    // The attack run's bomb: about 0.7 MB that inflates to 700 MB.
    bomb = await gzipBomb(700 * MB);
    expect(bomb.length).toBeLessThan(2 * MB);
  }, 60_000);

  const serveBomb = (req: IncomingMessage, res: ServerResponse): boolean => {
    if (req.method !== 'GET' || !(req.url ?? '').includes('/rest/networkconf')) return false;
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-encoding': 'gzip',
      'content-length': String(bomb.length),
    });
    res.end(bomb);
    return true;
  };

  it('refuses the answer naming GATEWAY_MAX_RESPONSE_BYTES, and the bot’s peak memory grows by less than 100 MB', async () => {
    const { bot, base } = await startSlackBot(hostile.url);
    const pid = bot.child.pid ?? 0;
    const before = await peakRss(pid);
    hostile.intercept(serveBomb);

    const answer = await command(base, 'list_vlans');

    expect(answer).toContain('GATEWAY_MAX_RESPONSE_BYTES');
    expect(answer).toContain('33554432 bytes');
    const growth = (await peakRss(pid)) - before;
    expect(growth).toBeLessThan(100 * MB);
    // Still serving: the next honest answer is read as usual (a refused answer is never cached).
    hostile.intercept(undefined);
    expect(await command(base, 'list_vlans')).toContain('IoT');
  }, 90_000);

  it('applies GATEWAY_MAX_RESPONSE_BYTES as set, on the console too (exit 1, the limit named)', async () => {
    hostile.intercept(serveBomb);
    const run = await runBot(['list_vlans'], {
      env: { GATEWAY_URL: hostile.url, GATEWAY_API_KEY: sim.apiKey, GATEWAY_MAX_RESPONSE_BYTES: '1048576' },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('larger than GATEWAY_MAX_RESPONSE_BYTES (1048576 bytes, 1 MiB');
    expect(run.stderr).not.toMatch(/\bat .*\.js:\d+/);
  }, 60_000);
});

describe('HEAD /healthz answers as GET does, without a body', () => {
  /** GET and HEAD of /healthz side by side: status, content type and the body HEAD sends. */
  async function probe(base: string) {
    const get = await fetch(`${base}/healthz`);
    const getBody = await get.text();
    const head = await fetch(`${base}/healthz`, { method: 'HEAD' });
    return {
      get: { status: get.status, type: get.headers.get('content-type'), body: getBody },
      head: { status: head.status, type: head.headers.get('content-type'), body: await head.text() },
    };
  }

  it('in HTTP mode', async () => {
    const { base } = await startSlackBot(sim.url);
    const { get, head } = await probe(base);
    expect(get.status).toBe(200);
    expect(JSON.parse(get.body)).toMatchObject({ status: 'ok', mode: 'http' });
    expect(head).toEqual({ status: get.status, type: get.type, body: '' });
  }, 30_000);

  it('in Socket Mode', async () => {
    const socket = await startFakeSocketMode();
    slack.socketModeUrl = socket.url;
    try {
      const bot = spawnBot(slackSocketEnv(slack, sim));
      await bot.waitForLog((l) => l.msg.startsWith('connected to Slack in Socket Mode'));
      const port = await bot.listeningPort();
      const { get, head } = await probe(`http://127.0.0.1:${port}`);
      expect(JSON.parse(get.body)).toMatchObject({ status: 'ok', mode: 'socket' });
      expect(head).toEqual({ status: get.status, type: get.type, body: '' });
    } finally {
      await stopAllBots();
      await socket.close();
    }
  }, 30_000);
});

describe('a write the controller applied and then answered 500', () => {
  const env = () => ({ GATEWAY_URL: sim.url, GATEWAY_API_KEY: sim.apiKey });
  const networkNamed = (name: string) => sim.state.findNetworkByName('default', name);
  const posts = (name: string) => networkPostsWhere(sim, 'name', name);

  // Deliberately alike: one console case per controller answer: each a fault, a command line and the wording it must get.
  it('console: says "may have been made" with what a read showed, never plainly failed; the write is sent once', async () => {
    sim.injectFault({ kind: 'apply-then', method: 'POST', route: 'rest/networkconf', status: 500 });
    const run = await runBot(['create_network', 'name=Lab', 'vlan_id=40', 'subnet=10.70.0.0/24', '--yes'], {
      env: env(),
    });
    expect(networkNamed('Lab')).toBeDefined();
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the change may have been made');
    expect(run.stderr).toContain(`a read afterwards finds "Lab", id ${networkNamed('Lab')?._id}`);
    expect(posts('Lab')).toHaveLength(1);
  }, 60_000);

  it('console: a 500 for a write that was not applied is a failure, with the read that proves it', async () => {
    sim.injectFault({ kind: 'status', method: 'POST', route: 'rest/networkconf', status: 500 });
    const run = await runBot(['create_network', 'name=Lab2', 'vlan_id=41', 'subnet=10.41.0.0/24', '--yes'], {
      env: env(),
    });
    expect(networkNamed('Lab2')).toBeUndefined();
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'a read afterwards finds no object named "Lab2", so the change was not made',
    );
    expect(run.stderr).not.toContain('may have been made');
    expect(posts('Lab2')).toHaveLength(1);
  }, 60_000);

  it('Slack: an approved update answered 500 after it was applied shows "may have been made" with the value read', async () => {
    const { base } = await startSlackBot(sim.url);
    const before = slack.calls.length;
    const body = commandBody({
      text: 'update_network network_id=IoT vlan_id=802',
      user_id: 'U1',
      response_url: slack.responseUrl(),
    });
    await fetch(`${base}/slack/events`, { method: 'POST', headers: slackHeaders(SECRET, body), body });
    const preview = () =>
      slack.callsOf('chat.postMessage').find((c) => JSON.stringify(c.args).includes('802'));
    await slack.waitFor(() => preview() !== undefined, 15_000);
    const approve = buttonsOf(preview()).find((b) => b.action_id === 'approve');
    expect(approve).toBeDefined();
    sim.injectFault({ kind: 'apply-then', method: 'PUT', route: 'rest/networkconf', status: 500 });
    const click = buttonBody({
      actionId: 'approve',
      value: approve?.value ?? '',
      userId: 'U2',
      response_url: slack.responseUrl(),
    });
    await fetch(`${base}/slack/events`, {
      method: 'POST',
      headers: slackHeaders(SECRET, click),
      body: click,
    });
    const told = () =>
      [
        ...slack.calls.slice(before).map((c) => JSON.stringify(c.args)),
        ...slack.responses.map((r) => JSON.stringify(r.body)),
      ].join('\n');
    await slack.waitFor(() => told().includes('may have been made'), 20_000);
    expect(told()).toContain('with every value sent');
    expect(told()).not.toContain('Nothing was changed');
    expect(sim.state.findNetworkByName('default', 'IoT')?.vlan).toBe(802);
    expect(
      sim.requests.filter((r) => r.method === 'PUT' && r.route.includes('rest/networkconf')),
    ).toHaveLength(1);
  }, 60_000);
});
