import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { type BotProcess, ROOT, slackSocketEnv, spawnBot, stopAllBots } from '../helpers/bot-process.js';
import { type FakeSlack, startFakeSlack } from '../helpers/fake-slack.js';
import { type FakeSocketMode, startFakeSocketMode } from '../helpers/fake-socket-mode.js';
import { readDockerfile } from '../helpers/shipped-files.js';
import { buttonsOf, clickPayload } from '../helpers/slack-buttons.js';
import { commandBody, socketPayload } from '../helpers/slack-requests.js';

// Networks serve as the sample write on their classic path (networkconf routes and faults): a 9.0
// console. Networks through the official API (10.1): tools/networks-official.test.ts.

afterAll(stopAllBots);

describe('the Slack bot in Socket Mode, as `node dist/main.js` starts it from the environment', () => {
  // Deliberately alike: the Socket Mode rig (fake Slack, fake socket, simulator) that each Socket Mode process suite starts with its own env.
  let slack: FakeSlack;
  let socket: FakeSocketMode;
  let sim: Simulator;
  let bot: BotProcess;
  let port: number;

  beforeAll(async () => {
    [slack, socket, sim] = await Promise.all([
      startFakeSlack(),
      startFakeSocketMode(),
      startSimulator({ apiVersion: '9.0' }),
    ]);
    slack.socketModeUrl = socket.url;
    bot = spawnBot(slackSocketEnv(slack, sim));
    await bot.waitForLog((l) => l.msg.startsWith('connected to Slack in Socket Mode'));
    port = await bot.listeningPort();
  });

  /** An Approve click by `userId` on the request `requestId`; the envelope id. */
  const approveAs = (userId: string, requestId: string) =>
    socket.send(
      'interactive',
      clickPayload({ actionId: 'approve', value: requestId, userId, response_url: slack.responseUrl() }),
    );

  afterAll(async () => {
    await bot?.stop('SIGKILL');
    await Promise.all([slack?.close(), socket?.close(), sim?.close()]);
  });

  it('asks SLACK_API_URL for the socket URL with the app-level token, and connects once', () => {
    const opens = slack.callsOf('apps.connections.open');
    expect(opens).toHaveLength(1);
    expect(opens[0]?.token).toBe('xapp-process-test');
    expect(socket.connections).toBe(1);
  });

  it("serves /healthz on PORT, and the Dockerfile's HEALTHCHECK passes against it", async () => {
    const response = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ok', front_end: 'slack', mode: 'socket' });
    const [command, ...args] = readDockerfile().healthcheck;
    expect(command).toBe('node');
    const check = spawnSync(process.execPath, args, {
      cwd: ROOT,
      env: { PORT: String(port) },
      timeout: 10_000,
    });
    expect(check.status).toBe(0);
  });

  it('acks a slash_commands envelope and answers `/net list_vlans` through response_url', async () => {
    const responseUrl = slack.responseUrl();
    const id = socket.send(
      'slash_commands',
      socketPayload(commandBody({ text: 'list_vlans', response_url: responseUrl })),
    );
    await socket.waitFor(() => socket.ackOf(id) !== undefined);
    expect(socket.ackOf(id)).toMatchObject({ envelope_id: id });
    await slack.waitFor(() => slack.responses.some((r) => responseUrl.endsWith(r.path)), 10_000);
    const answer = JSON.stringify(slack.responses.find((r) => responseUrl.endsWith(r.path))?.body);
    for (const name of ['Default', 'IoT', 'Cameras']) expect(answer).toContain(name);
  });

  it('acks a write and an interactive Approve click, runs the change once, and threads the result', async () => {
    const command = socket.send(
      'slash_commands',
      socketPayload(
        commandBody({
          text: 'create_network name=Lab vlan_id=91 subnet=10.91.0.0/24',
          user_id: 'U1',
          response_url: slack.responseUrl(),
        }),
      ),
    );
    await slack.waitFor(() => slack.callsOf('chat.postMessage').length > 0, 10_000);
    expect(socket.ackOf(command)).toMatchObject({ envelope_id: command });
    const preview = slack.callsOf('chat.postMessage')[0];
    expect(buttonsOf(preview).map((b) => b.action_id)).toEqual(['approve', 'cancel']);
    const requestId = buttonsOf(preview).find((b) => b.action_id === 'approve')?.value ?? '';
    const networkWrites = () =>
      sim.requests.filter((r) => r.method === 'POST' && r.route.endsWith('networkconf'));
    expect(networkWrites()).toEqual([]);

    const click = approveAs('U2', requestId);
    await socket.waitFor(() => socket.ackOf(click) !== undefined);
    await slack.waitFor(() => slack.callsOf('chat.postMessage').some((c) => c.args.thread_ts), 10_000);
    expect(networkWrites()).toHaveLength(1);
    expect(networkWrites()[0]?.body).toMatchObject({ name: 'Lab', vlan: 91 });
    expect(slack.callsOf('chat.postMessage').find((c) => c.args.thread_ts)?.args.thread_ts).toBe(
      slack.callsOf('chat.update').at(-1)?.args.ts,
    );
  });

  it('acks `/net plan` with two steps, posts one preview with every value, and one Approve runs both in order', async () => {
    const posted = slack.callsOf('chat.postMessage').length;
    const command = socket.send(
      'slash_commands',
      socketPayload(
        commandBody({
          text: [
            'plan title="Lab pair"',
            'create_network name=LabA vlan_id=92 subnet=10.92.0.0/24',
            'create_network name=LabB vlan_id=93 subnet=10.93.0.0/24',
          ].join('\n'),
          user_id: 'U1',
          response_url: slack.responseUrl(),
        }),
      ),
    );
    await slack.waitFor(() => slack.callsOf('chat.postMessage').length > posted, 10_000);
    expect(socket.ackOf(command)).toMatchObject({ envelope_id: command });
    const preview = slack.callsOf('chat.postMessage')[posted];
    const shown = `${String(preview?.args.text)} ${JSON.stringify(preview?.args.blocks)}`;
    for (const value of ['Lab pair', 'LabA', '10.92.0.0/24', 'LabB', '93']) expect(shown).toContain(value);
    const requestId = buttonsOf(preview).find((b) => b.action_id === 'approve')?.value ?? '';
    const created = () =>
      sim.requests.filter((r) => r.method === 'POST' && r.route.endsWith('networkconf')).map((r) => r.body);
    const before = created().length;

    approveAs('U2', requestId);
    await slack.waitFor(() => created().length >= before + 2, 15_000);

    expect(created().slice(before)).toMatchObject([
      { name: 'LabA', vlan: 92 },
      { name: 'LabB', vlan: 93 },
    ]);
  });

  it('acks and logs frames that are not envelopes (null, a null payload, an array), never an unhandled rejection, and acks the next envelope', async () => {
    socket.sendRaw('null');
    socket.sendRaw(JSON.stringify({ envelope_id: 'bad-1', type: 'events_api', payload: null }));
    socket.sendRaw(JSON.stringify({ envelope_id: 'bad-2', type: 'interactive', payload: null }));
    socket.sendRaw(JSON.stringify({ envelope_id: 'bad-3', type: 'slash_commands', payload: [1, 2] }));
    await socket.waitFor(() => ['bad-1', 'bad-2', 'bad-3'].every((id) => socket.ackOf(id) !== undefined));

    const responseUrl = slack.responseUrl();
    const id = socket.send(
      'slash_commands',
      socketPayload(commandBody({ text: 'vlans', response_url: responseUrl })),
    );
    await socket.waitFor(() => socket.ackOf(id) !== undefined);
    await slack.waitFor(() => slack.responses.some((r) => responseUrl.endsWith(r.path)), 10_000);

    const said = bot.logs().map((l) => l.msg);
    expect(said.filter((m) => m === 'acked a Socket Mode envelope without handling it')).toHaveLength(3);
    expect(said).toContain('ignored a Socket Mode frame with no envelope to ack');
    expect(said.filter((m) => m.startsWith('unhandled promise rejection'))).toEqual([]);
    expect(bot.logs().filter((l) => l.level === 60)).toEqual([]);
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
  });

  it('on SIGTERM, acks a command with the stopping text while running work finishes, exits 0 and frees PORT', async () => {
    // A write's preview post held by Slack: work running when the signal comes.
    slack.delays['chat.postMessage'] = 2000;
    const posted = slack.callsOf('chat.postMessage').length;
    socket.send(
      'slash_commands',
      socketPayload(
        commandBody({
          text: 'create_network name=Drain vlan_id=94 subnet=10.94.0.0/24',
          user_id: 'U1',
          response_url: slack.responseUrl(),
        }),
      ),
    );
    await slack.waitFor(() => slack.callsOf('chat.postMessage').length > posted, 10_000);

    const exit = bot.stop('SIGTERM');
    await bot.waitForLog((l) => l.msg.startsWith('stopping: waiting for running work'));
    const refused = socket.send(
      'slash_commands',
      socketPayload(commandBody({ text: 'vlans', response_url: slack.responseUrl() })),
    );
    await socket.waitFor(() => socket.ackOf(refused) !== undefined);

    expect(socket.ackOf(refused)?.payload).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringMatching(/^:hourglass: The bot is restarting and takes no new work/),
    });
    expect(await exit).toEqual({ code: 0, signal: null });
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });
});

describe('starting the Slack bot in Socket Mode', () => {
  it('exits 1 with a JSON fatal line when PORT (for /healthz) is taken, before dialling Slack', async () => {
    const { createServer } = await import('node:http');
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, resolve));
    const slack = await startFakeSlack();
    try {
      const bot = spawnBot({
        SLACK_BOT_TOKEN: 'xoxb-process-test',
        SLACK_APP_TOKEN: 'xapp-process-test',
        SLACK_API_URL: slack.apiUrl,
        PORT: String((holder.address() as { port: number }).port),
      });
      const exit = await bot.exited;
      expect(exit.code).toBe(1);
      const fatal = bot.logs().find((l) => l.level === 60);
      expect(fatal?.msg).toBe('the Slack front end could not start');
      expect(JSON.stringify(fatal)).toContain('EADDRINUSE');
      expect(slack.callsOf('apps.connections.open')).toEqual([]);
    } finally {
      holder.close();
      await slack.close();
    }
  });

  it('exits 2 naming SLACK_BOT_TOKEN when Slack refuses the bot token, before opening a connection', async () => {
    const slack = await startFakeSlack();
    slack.authTestError = 'token_revoked';
    try {
      const bot = spawnBot({ ...slackSocketEnv(slack), SLACK_BOT_TOKEN: 'xoxb-revoked-token' });

      const exit = await bot.exited;

      expect(exit).toEqual({ code: 2, signal: null });
      expect(bot.logs().find((l) => l.level === 60)?.msg).toMatch(
        /^SLACK_BOT_TOKEN was refused by Slack \(token_revoked\)/,
      );
      expect(slack.callsOf('apps.connections.open')).toEqual([]);
      expect(`${bot.stdout()}${bot.stderr()}`).not.toContain('xoxb-revoked-token');
    } finally {
      await slack.close();
    }
  });

  /** A bot in Socket Mode whose first auth.test failed: it is retrying, not connected. */
  async function waitingForSlack(): Promise<{ slack: FakeSlack; socket: FakeSocketMode; bot: BotProcess }> {
    const [slack, socket] = await Promise.all([startFakeSlack(), startFakeSocketMode()]);
    slack.socketModeUrl = socket.url;
    slack.authTestError = 'service_unavailable';
    const bot = spawnBot(slackSocketEnv(slack));
    await bot.waitForLog((l) => l.msg.startsWith('could not reach Slack to verify SLACK_BOT_TOKEN'));
    return { slack, socket, bot };
  }

  it('waits for Slack before connecting: /healthz 503 until auth.test answers, then connects', async () => {
    const { slack, socket, bot } = await waitingForSlack();
    try {
      const port = await bot.listeningPort();
      const waiting = await fetch(`http://127.0.0.1:${port}/healthz`);
      const openedWhileWaiting = slack.callsOf('apps.connections.open').length;

      slack.authTestError = undefined;
      await bot.waitForLog((l) => l.msg.startsWith('connected to Slack in Socket Mode'), 10_000);
      const ready = await fetch(`http://127.0.0.1:${port}/healthz`);

      expect(waiting.status).toBe(503);
      expect(await waiting.json()).toMatchObject({
        slack: { ok: false, error: 'not ready: waiting for Slack' },
      });
      expect(openedWhileWaiting).toBe(0);
      expect(ready.status).toBe(200);
      expect(socket.connections).toBe(1);
      expect((await bot.stop('SIGTERM')).code).toBe(0);
    } finally {
      await Promise.all([slack.close(), socket.close()]);
    }
  });

  it('stopped before Slack ever answered: logs "stopping" and "stopped", never "connected"', async () => {
    const { slack, socket, bot } = await waitingForSlack();
    try {
      const exit = await bot.stop('SIGTERM');

      const said = bot.logs().map((l) => l.msg);
      expect(exit.code).toBe(0);
      expect(said).toContain('stopping');
      expect(said.at(-1)).toBe('stopped');
      expect(said.filter((m) => m.startsWith('connected to Slack'))).toEqual([]);
      expect(slack.callsOf('apps.connections.open')).toEqual([]);
      expect(socket.connections).toBe(0);
    } finally {
      await Promise.all([slack.close(), socket.close()]);
    }
  });

  it('exits 1 with a JSON fatal line when Slack refuses the app-level token', async () => {
    const slack = await startFakeSlack(); // no socketModeUrl: apps.connections.open answers invalid_auth
    try {
      const bot = spawnBot({
        SLACK_BOT_TOKEN: 'xoxb-process-test',
        SLACK_APP_TOKEN: 'xapp-revoked',
        SLACK_API_URL: slack.apiUrl,
        PORT: '0',
      });
      const exit = await bot.exited;
      expect(exit.code).toBe(1);
      const fatal = bot.logs().find((l) => l.level === 60);
      expect(fatal?.msg).toBe('the Slack front end could not start');
      expect(JSON.stringify(fatal)).toContain('invalid_auth');
      expect(JSON.stringify(bot.logs())).not.toContain('xapp-revoked');
    } finally {
      await slack.close();
    }
  });
});
