import { statSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BotProcess,
  MAIN,
  slackHttpEnv,
  spawnBot,
  spawnListeningBot,
  stopAllBots,
} from '../helpers/bot-process.js';
import { startFakeSlack } from '../helpers/fake-slack.js';
import { closedPort } from '../helpers/ports.js';
import { BOT_SCOPE_OF, readManifest } from '../helpers/shipped-files.js';
import { buttonsOf } from '../helpers/slack-buttons.js';
import { fuzzedRequests, headersFor, mayPassSignature, NASTY_BODIES } from '../helpers/slack-envelopes.js';
import { buttonBody, commandBody, slackHeaders } from '../helpers/slack-requests.js';
import { useSlackRig } from '../helpers/slack-rig.js';

// Networks serve as the sample write on their classic path (networkconf routes and faults): a 9.0
// console. Networks through the official API (10.1): tools/networks-official.test.ts.

const SECRET = 'process-test-signing-secret';

const isListening = (line: { msg: string }) => line.msg.startsWith('listening on port');

afterAll(stopAllBots);

describe('the Slack bot in HTTP mode, as `node dist/main.js` starts it from the environment', () => {
  const rig = useSlackRig({ apiVersion: '9.0' });
  let bot: BotProcess;
  let events: string;

  const post = async (body: string, headers: Record<string, string> = slackHeaders(SECRET, body)) => {
    const response = await fetch(events, { method: 'POST', headers, body });
    return { status: response.status, text: await response.text() };
  };

  beforeAll(async () => {
    ({ bot, events } = await spawnListeningBot(slackHttpEnv(rig.slack, SECRET, rig.sim)));
  });

  afterAll(async () => {
    await bot?.stop('SIGKILL');
  });

  it('logs JSON lines on stdout and answers GET /healthz with 200', async () => {
    expect(bot.logs().find(isListening)).toMatchObject({ level: 30, mode: 'http' });
    // The order docs/slack.md's "Start the bot" gives: start() waits for auth.test's first answer.
    const messages = bot.logs().map((l) => l.msg);
    expect(messages.indexOf('SLACK_BOT_TOKEN verified (auth.test)')).toBeGreaterThanOrEqual(0);
    expect(messages.indexOf('SLACK_BOT_TOKEN verified (auth.test)')).toBeLessThan(
      messages.findIndex((m) => m.startsWith('listening on port')),
    );
    const response = await fetch(events.replace('/slack/events', '/healthz'));
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ok', front_end: 'slack', mode: 'http' });
    expect(`${bot.stdout()}${bot.stderr()}`).not.toContain('xoxb-process-test');
  });

  it('answers a signed `/net list_vlans` through response_url, to the requester only', async () => {
    const responseUrl = rig.slack.responseUrl();
    const ack = await post(commandBody({ text: 'list_vlans', user_id: 'U1', response_url: responseUrl }));
    expect(ack).toEqual({ status: 200, text: '' });
    await rig.slack.waitFor(() => rig.slack.responses.some((r) => responseUrl.endsWith(r.path)));
    const answer = rig.slack.responses.find((r) => responseUrl.endsWith(r.path))?.body ?? {};
    expect(answer.response_type).toBe('ephemeral');
    const shown = JSON.stringify(answer);
    for (const name of ['Default', 'IoT', 'Guest', 'Servers', 'Cameras']) expect(shown).toContain(name);
  });

  it('previews a write in the channel, runs it once when a second user approves, and threads the result', async () => {
    await post(
      commandBody({
        text: 'create_network name=Lab vlan_id=91 subnet=10.91.0.0/24',
        user_id: 'U1',
        channel_id: 'C1',
        response_url: rig.slack.responseUrl(),
      }),
    );
    await rig.slack.waitFor(() => rig.slack.callsOf('chat.postMessage').length > 0, 10_000);
    const preview = rig.slack.callsOf('chat.postMessage')[0];
    expect(preview?.args.channel).toBe('C1');
    expect(preview?.args.thread_ts).toBeUndefined();
    expect(JSON.stringify(preview?.args.blocks)).toMatch(/Lab[\s\S]*10\.91\.0\./);
    expect(buttonsOf(preview).map((b) => b.action_id)).toEqual(['approve', 'cancel']);
    const networkWrites = () =>
      rig.sim.requests.filter((r) => r.method === 'POST' && r.route.endsWith('networkconf'));
    expect(networkWrites()).toEqual([]);

    const requestId = buttonsOf(preview).find((b) => b.action_id === 'approve')?.value ?? '';
    const click = await post(
      buttonBody({
        actionId: 'approve',
        value: requestId,
        userId: 'U2',
        response_url: rig.slack.responseUrl(),
      }),
    );
    expect(click.status).toBe(200);
    await rig.slack.waitFor(
      () => rig.slack.callsOf('chat.postMessage').some((c) => c.args.thread_ts),
      10_000,
    );

    expect(networkWrites()).toHaveLength(1);
    expect(networkWrites()[0]?.body).toMatchObject({ name: 'Lab', vlan: 91 });
    const thread = rig.slack.callsOf('chat.postMessage').find((c) => c.args.thread_ts);
    const edited = rig.slack.callsOf('chat.update').at(-1);
    expect(thread?.args.thread_ts).toBe(edited?.args.ts);
    expect(buttonsOf(edited)).toEqual([]);
  });

  it('refuses a request with a bad signature with 401, and does nothing', async () => {
    const before = {
      calls: rig.slack.calls.length,
      responses: rig.slack.responses.length,
      sim: rig.sim.requests.length,
    };
    const body = commandBody({
      text: 'delete_network network_id=Guest',
      response_url: rig.slack.responseUrl(),
    });
    const forged = await post(body, slackHeaders('not-the-secret', body));
    const unsigned = await post(body, { 'content-type': 'application/x-www-form-urlencoded' });
    expect([forged.status, unsigned.status]).toEqual([401, 401]);
    await new Promise((r) => setTimeout(r, 200));
    expect({
      calls: rig.slack.calls.length,
      responses: rig.slack.responses.length,
      sim: rig.sim.requests.length,
    }).toEqual(before);
  });

  it('answers null, array, number, deeply nested, huge and mistyped payloads with 4xx, and keeps serving', async () => {
    const writesBefore = rig.sim.requests.filter((r) => r.method !== 'GET').length;
    let exited = false;
    void bot.exited.then(() => {
      exited = true;
    });

    const nasty = [];
    for (const { label, body, contentType } of NASTY_BODIES) {
      const answer = await post(body, { ...slackHeaders(SECRET, body), 'content-type': contentType });
      nasty.push({ label, status: answer.status });
    }
    // Deliberately alike: the envelope fuzz property of slack/transport/envelope-fuzz, here against the built program's listener.
    await fc.assert(
      fc.asyncProperty(fuzzedRequests(rig.slack.responseUrl()), async (request) => {
        const response = await fetch(events, {
          method: 'POST',
          headers: headersFor(request, SECRET),
          body: request.body,
          signal: AbortSignal.timeout(10_000),
        });
        await response.text();
        expect(response.status, request.label).toBeGreaterThanOrEqual(200);
        expect(response.status, request.label).toBeLessThan(500);
        if (request.body.length <= 64 * 1024 && !mayPassSignature(request)) {
          expect(response.status, request.label).toBe(401);
        }
      }),
      { numRuns: 300 },
    );

    expect(nasty).toEqual(
      NASTY_BODIES.map(({ label }) => ({ label, status: label === 'a 100 KB string' ? 413 : 400 })),
    );
    expect(exited).toBe(false);
    const health = await fetch(events.replace('/slack/events', '/healthz'));
    expect(health.status).toBe(200);
    const responseUrl = rig.slack.responseUrl();
    expect((await post(commandBody({ text: 'vlans', response_url: responseUrl }))).status).toBe(200);
    await rig.slack.waitFor(() => rig.slack.responses.some((r) => responseUrl.endsWith(r.path)));
    expect(rig.sim.requests.filter((r) => r.method !== 'GET')).toHaveLength(writesBefore);
    const crashes =
      /^(unhandled promise rejection|uncaught|Bolt could not process|the Slack request guard failed)/;
    expect(bot.logs().filter((l) => crashes.test(l.msg))).toEqual([]);
  });

  it('verified its token once, and called only Web API methods the manifest has scopes for', () => {
    expect(rig.slack.callsOf('auth.test')).toHaveLength(1);
    const scopes = readManifest().oauth_config.scopes.bot;
    for (const call of rig.slack.calls) {
      expect(Object.keys(BOT_SCOPE_OF), call.method).toContain(call.method);
      const scope = BOT_SCOPE_OF[call.method];
      if (scope) expect(scopes, call.method).toContain(scope);
      expect(call.token, call.method).toBe('xoxb-process-test');
    }
  });

  it('stops cleanly on SIGTERM, exit code 0', async () => {
    const exit = await bot.stop('SIGTERM');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(bot.logs().map((l) => l.msg)).toContain('stopped');
  });
});

describe('starting the Slack bot in HTTP mode', () => {
  it('keeps retrying while Slack is unreachable at start, /healthz 503 "not ready: waiting for Slack"', async () => {
    const unreachable = await closedPort();
    try {
      const bot = spawnBot({
        SLACK_BOT_TOKEN: 'xoxb-process-test',
        SLACK_SIGNING_SECRET: SECRET,
        SLACK_API_URL: `${unreachable.url}/api`,
        PORT: '0',
      });
      const listening = await bot.waitForLog(isListening);
      const warning = await bot.waitForLog((l) =>
        l.msg.startsWith('could not reach Slack to verify SLACK_BOT_TOKEN'),
      );
      await bot.waitForLog((l) => l.msg.startsWith('could not reach Slack') && l.attempt === 2);
      const health = await fetch(`http://127.0.0.1:${String(listening.port)}/healthz`);

      expect(warning.level).toBe(40);
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({
        status: 'unavailable',
        slack: { ok: false, error: 'not ready: waiting for Slack' },
      });
      const exit = await bot.stop('SIGINT');
      expect(exit).toEqual({ code: 0, signal: null });
      expect(bot.stderr()).toBe('');
    } finally {
      await unreachable.release();
    }
  });

  // Deliberately alike: each startup case runs its own fake Slack with its own auth.test answer.
  it('becomes ready when Slack answers auth.test after all, and then serves commands', async () => {
    const slack = await startFakeSlack();
    slack.authTestError = 'service_unavailable';
    try {
      const bot = spawnBot(slackHttpEnv(slack, SECRET));
      const listening = await bot.waitForLog(isListening);
      await bot.waitForLog((l) => l.msg.startsWith('could not reach Slack to verify SLACK_BOT_TOKEN'));
      const healthz = `http://127.0.0.1:${String(listening.port)}/healthz`;
      const waiting = await fetch(healthz);

      slack.authTestError = undefined;
      await bot.waitForLog((l) => l.msg === 'SLACK_BOT_TOKEN verified (auth.test)', 10_000);
      const ready = await fetch(healthz);

      expect(waiting.status).toBe(503);
      expect(ready.status).toBe(200);
      const responseUrl = slack.responseUrl();
      const body = commandBody({ text: 'vlans', response_url: responseUrl });
      const ack = await fetch(healthz.replace('/healthz', '/slack/events'), {
        method: 'POST',
        headers: slackHeaders(SECRET, body),
        body,
      });
      expect(ack.status).toBe(200);
      await slack.waitFor(() => slack.responses.some((r) => responseUrl.endsWith(r.path)), 10_000);
      expect((await bot.stop('SIGTERM')).code).toBe(0);
    } finally {
      await slack.close();
    }
  });

  it('exits 2 with a fatal line naming SLACK_BOT_TOKEN when Slack refuses it (invalid_auth)', async () => {
    const slack = await startFakeSlack();
    slack.authTestError = 'invalid_auth';
    try {
      const bot = spawnBot({
        ...slackHttpEnv(slack, SECRET),
        SLACK_BOT_TOKEN: 'xoxb-revoked-token',
      });

      const exit = await bot.exited;

      expect(exit).toEqual({ code: 2, signal: null });
      const fatal = bot.logs().find((l) => l.level === 60);
      expect(fatal?.msg).toMatch(/^SLACK_BOT_TOKEN was refused by Slack \(invalid_auth\)/);
      expect(slack.callsOf('auth.test')).toHaveLength(1);
      expect(`${bot.stdout()}${bot.stderr()}`).not.toContain('xoxb-revoked-token');
    } finally {
      await slack.close();
    }
  });

  it('exits 1 with a JSON fatal line when PORT is taken', async () => {
    const { createServer } = await import('node:http');
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const bot = spawnBot({
        SLACK_BOT_TOKEN: 'xoxb-process-test',
        SLACK_SIGNING_SECRET: SECRET,
        SLACK_API_URL: 'http://127.0.0.1:9/api',
        PORT: String(port),
      });
      const exit = await bot.exited;
      expect(exit.code).toBe(1);
      const fatal = bot.logs().find((l) => l.level === 60);
      expect(fatal?.msg).toBe('the Slack front end could not start');
      expect(JSON.stringify(fatal)).toContain('EADDRINUSE');
    } finally {
      holder.close();
    }
  });

  it('starts with `npm start` on an up-to-date build without compiling again', async () => {
    const builtAt = statSync(MAIN).mtimeMs;
    const slack = await startFakeSlack();
    try {
      const bot = spawnBot(slackHttpEnv(slack, SECRET), { command: ['npm', 'start', '--silent'] });
      const listening = await bot.waitForLog(isListening, 20_000);
      const health = await fetch(`http://127.0.0.1:${String(listening.port)}/healthz`);
      expect(health.status).toBe(200);
      expect(bot.stderr()).not.toContain('building dist/');
      expect(statSync(MAIN).mtimeMs).toBe(builtAt);
      await bot.stop('SIGTERM');
    } finally {
      await slack.close();
    }
  });
});
