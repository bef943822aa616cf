import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_DEVICES, DEMO_SITE, type Simulator, startSimulator } from '../../src/simulator/index.js';
// Deliberately alike: the bot-process helpers every listening-bot process test imports.
import {
  type BotProcess,
  runBot,
  slackHttpEnv,
  spawnListeningBot,
  stopAllBots,
} from '../helpers/bot-process.js';
import { type FakeSlack, startFakeSlack } from '../helpers/fake-slack.js';
import { buttonsOf } from '../helpers/slack-buttons.js';
import { buttonBody, commandBody, slackHeaders } from '../helpers/slack-requests.js';

// The on-call actions through the built program (`node dist/main.js`), against a simulator this test
// holds, so every request the bot sends is counted where it arrives.

afterAll(stopAllBots);

const SECRET = 'on-call-signing-secret';
const writesTo = (sim: Simulator) => sim.requests.filter((r) => r.method !== 'GET');

describe('the console, one-shot', () => {
  let sim: Simulator;
  let env: Record<string, string>;
  beforeAll(async () => {
    sim = await startSimulator({ actionDelayMs: 60_000 });
    env = { GATEWAY_URL: sim.url, GATEWAY_API_KEY: sim.apiKey };
  });
  afterAll(() => sim.close());
  beforeEach(() => {
    sim.reset();
    sim.clearRequests();
  });

  it('previews restart_device without --yes (exit 3, nothing sent), then runs it once with --yes', async () => {
    const preview = await runBot(['restart_device', 'device_id=Media Cabinet Flex'], { env });
    expect(preview.code).toBe(3);
    expect(preview.stdout).toContain(
      'Media Cabinet Flex: 4 clients behind it lose connectivity for about 2 minutes',
    );
    expect(preview.stdout).toContain('RESTART');
    expect(writesTo(sim)).toEqual([]);

    const run = await runBot(['restart_device', 'device_id=Media Cabinet Flex', '--yes', '--json'], { env });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      success: true,
      action: 'restart',
      device: { name: 'Media Cabinet Flex' },
    });
    const writes = writesTo(sim);
    expect(writes).toHaveLength(1);
    expect(writes[0]?.route).toMatch(
      new RegExp(`^/integration/v1/sites/${DEMO_SITE.uuid}/devices/[0-9a-f-]{36}/actions$`),
    );
    expect(writes[0]?.body).toEqual({ action: 'RESTART' });
    expect(sim.state.site('default')?.devices.find((d) => d.mac === DEMO_DEVICES.flexSwitch.mac)?.state).toBe(
      0,
    );
  });

  it('refuses a port without PoE (exit 2, bad input) and a missing client (exit 1) with the reason, sending nothing', async () => {
    const port = await runBot(['power_cycle_port', 'device_id=Core Switch', 'port_idx=1', '--yes'], { env });
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('port 1 of Core Switch supplies no PoE now');
    expect(port.stderr).toContain('ports supplying PoE now: 5, 6, 7');
    const client = await runBot(['block_client', 'client=Galaxy', '--yes'], { env });
    expect(client.code).toBe(1);
    expect(client.stderr).toContain('did you mean Galaxy-S23');
    expect(writesTo(sim)).toEqual([]);
  });

  it('toggles Wi-Fi on the default 10.1 console with one official full-replacement PUT, the passphrase sent but never printed', async () => {
    const guest = sim.state.site('default')?.wlans.find((w) => w.name === 'Guest WiFi');
    const passphrase = String(guest?.x_passphrase);
    const run = await runBot(
      ['set_wifi_broadcast_enabled', 'wifi_id=Guest WiFi', 'enabled=false', '--yes', '--json'],
      {
        env,
      },
    );
    expect(run.code).toBe(0);
    expect(`${run.stdout}${run.stderr}`).not.toContain(passphrase);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({ success: true, action: 'disable wifi', wifi: { name: 'Guest WiFi' } });
    expect(result.wifi.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.sent.body.securityConfiguration.passphrase).toBe('[redacted]');
    const writes = writesTo(sim);
    expect(writes.map((w) => `${w.method} ${w.route}`)).toEqual([
      `PUT /integration/v1/sites/${DEMO_SITE.uuid}/wifi/broadcasts/${result.wifi.id}`,
    ]);
    expect(writes[0]?.body).toMatchObject({
      enabled: false,
      hideName: false,
      securityConfiguration: { passphrase },
    });
    expect(sim.requests.filter((r) => r.route.includes('wlanconf'))).toEqual([]);
    expect(guest?.enabled).toBe(false);
  });

  it('creates vouchers with --yes and lists them', async () => {
    const created = await runBot(
      ['create_vouchers', 'count=2', 'minutes=240', 'note=Workshop', '--yes', '--json'],
      { env },
    );
    expect(created.code).toBe(0);
    expect(writesTo(sim)).toHaveLength(1);
    const listed = await runBot(['list_vouchers', '--json'], { env });
    const notes = (JSON.parse(listed.stdout) as { note: string }[]).map((v) => v.note);
    expect(notes).toEqual(['Front desk', 'Conference room', 'Workshop', 'Workshop']);
  });
});

describe('Slack over HTTP, with the fake Slack', () => {
  let slack: FakeSlack;
  let sim: Simulator;
  let bot: BotProcess;
  let events: string;
  const post = (body: string) => fetch(events, { method: 'POST', headers: slackHeaders(SECRET, body), body });

  beforeAll(async () => {
    [slack, sim] = await Promise.all([startFakeSlack(), startSimulator({ actionDelayMs: 60_000 })]);
    ({ bot, events } = await spawnListeningBot(slackHttpEnv(slack, SECRET, sim)));
  });
  afterAll(async () => {
    await bot?.stop('SIGKILL');
    await Promise.all([slack?.close(), sim?.close()]);
  });

  it('previews a restart with its blast radius, sends nothing, and on Approve sends exactly one command', async () => {
    sim.clearRequests();
    await post(
      commandBody({
        text: 'restart_device device_id="Office Switch"',
        user_id: 'U1',
        channel_id: 'C1',
        response_url: slack.responseUrl(),
      }),
    );
    await slack.waitFor(() => slack.callsOf('chat.postMessage').length > 0, 15_000);
    const preview = slack.callsOf('chat.postMessage')[0];
    const shown = JSON.stringify(preview?.args.blocks);
    expect(shown).toContain(
      'Office Switch: 25 clients and 2 devices (Living Room AP, Garden Mesh AP) behind it lose connectivity for about 2 minutes',
    );
    expect(shown).toContain('RESTART');
    expect(buttonsOf(preview).map((b) => b.action_id)).toEqual(['approve', 'cancel']);
    expect(writesTo(sim)).toEqual([]);

    // 25 clients and 2 devices behind it: high risk, so the default policy asks for two approvers.
    expect(shown).toContain('high');
    const requestId = buttonsOf(preview).find((b) => b.action_id === 'approve')?.value ?? '';
    const first = await post(
      buttonBody({ actionId: 'approve', value: requestId, userId: 'U2', response_url: slack.responseUrl() }),
    );
    expect(first.status).toBe(200);
    await slack.waitFor(
      () =>
        slack.callsOf('chat.update').some((c) => JSON.stringify(c.args.blocks).includes('1 of 2 approvals')),
      15_000,
    );
    expect(writesTo(sim)).toEqual([]);
    const click = await post(
      buttonBody({ actionId: 'approve', value: requestId, userId: 'U4', response_url: slack.responseUrl() }),
    );
    expect(click.status).toBe(200);
    await slack.waitFor(() => slack.callsOf('chat.postMessage').some((c) => c.args.thread_ts), 15_000);
    const writes = writesTo(sim);
    expect(writes).toHaveLength(1);
    expect(writes[0]?.body).toEqual({ action: 'RESTART' });
    expect(
      sim.state.site('default')?.devices.find((d) => d.mac === DEMO_DEVICES.officeSwitch.mac)?.state,
    ).toBe(0);

    // A second click (Slack retries, another approver) runs nothing more.
    await post(
      buttonBody({ actionId: 'approve', value: requestId, userId: 'U3', response_url: slack.responseUrl() }),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(writesTo(sim)).toHaveLength(1);
  });
});
