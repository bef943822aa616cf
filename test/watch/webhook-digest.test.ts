import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { takeDeviceDown } from '../../src/simulator/scenario-controls.js';
import type { Watcher } from '../../src/watch/index.js';
import { type SlackBot, startSlackBot } from '../helpers/slack-bot.js';

const SECRET = 'alarm-manager-secret-0123456789';
const GARAGE_AP = '24:5a:4c:8e:90:23';

let bot: SlackBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

const alerts = (b: SlackBot) =>
  b.slack.callsOf('chat.postMessage').filter((c) => c.args.channel === 'C9ALERTS');

async function hook(b: SlackBot, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`http://127.0.0.1:${b.port}/webhooks/unifi`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: response.status, text: await response.text() };
}

describe('POST /webhooks/unifi (Alarm Manager)', () => {
  it('posts an alarm carrying the secret, refuses one without it or too large, with nothing posted', async () => {
    bot = await startSlackBot({ env: { ALERT_CHANNEL: 'C9ALERTS', UNIFI_WEBHOOK_SECRET: SECRET } });
    const alarm = JSON.stringify({
      alarm: 'Internet disconnected',
      message: 'WAN1 lost its link',
      device_name: 'Dream Machine Pro',
    });

    expect((await hook(bot, alarm)).status).toBe(401);
    expect((await hook(bot, alarm, { authorization: 'Bearer wrong-secret-wrong-secret' })).status).toBe(401);
    // Unauthenticated: refused before the body is read, whatever its size.
    expect((await hook(bot, 'x'.repeat(200_000))).status).toBe(401);
    expect(
      (await hook(bot, `{"message":"${'x'.repeat(70_000)}"}`, { authorization: `Bearer ${SECRET}` })).status,
    ).toBe(413);
    expect(alerts(bot)).toHaveLength(0);

    const bad = await hook(bot, '{not json', { authorization: `Bearer ${SECRET}` });
    expect(bad.status).toBe(400);
    expect((await hook(bot, '[1,2]', { 'x-webhook-secret': SECRET })).status).toBe(400);
    expect(alerts(bot)).toHaveLength(0);

    const taken = await hook(bot, alarm, { authorization: `Bearer ${SECRET}` });
    expect(taken).toEqual({ status: 202, text: '{"outcome":"posted"}' });
    expect(alerts(bot)).toHaveLength(1);
    expect(String(alerts(bot)[0]?.args.text)).toContain('Dream Machine Pro* UniFi alarm at');
    expect(String(alerts(bot)[0]?.args.text)).toContain('WAN1 lost its link');
    // The same alarm again at once is a duplicate (Basic auth with the secret as password works too).
    const basic = `Basic ${Buffer.from(`unifi:${SECRET}`).toString('base64')}`;
    expect((await hook(bot, alarm, { authorization: basic })).text).toBe('{"outcome":"duplicate"}');
    expect(alerts(bot)).toHaveLength(1);
  });

  it('does not post an alarm about a device the poller already alerted on', async () => {
    bot = await startSlackBot({ env: { ALERT_CHANNEL: 'C9ALERTS', UNIFI_WEBHOOK_SECRET: SECRET } });
    await (bot.app.watcher as Watcher).poll();
    expect(alerts(bot)).toHaveLength(1); // the Garage AP, offline in the demo
    const alarm = JSON.stringify({
      alarm: 'Device offline',
      device_mac: GARAGE_AP.toUpperCase(),
      device_name: 'Garage AP',
    });
    expect((await hook(bot, alarm, { authorization: `Bearer ${SECRET}` })).text).toBe(
      '{"outcome":"duplicate"}',
    );
    expect(alerts(bot)).toHaveLength(1);
  });

  it('is not served without UNIFI_WEBHOOK_SECRET', async () => {
    bot = await startSlackBot({ env: { ALERT_CHANNEL: 'C9ALERTS' } });
    expect((await hook(bot, '{}', { authorization: `Bearer ${SECRET}` })).status).toBe(404);
  });
});

describe('the daily digest', () => {
  it('is posted at DIGEST_CRON in TZ with the day and a chart of the top clients', async () => {
    // The bot's clock runs at real speed from 07:59:58 Paris time (06:59:58 UTC): the digest is due in 2 s.
    const base = Date.parse('2026-11-26T06:59:58Z');
    const realStart = Date.now();
    let offset = 0;
    const now = () => base + offset + (Date.now() - realStart);
    bot = await startSlackBot({
      env: {
        ALERT_CHANNEL: 'C9ALERTS',
        DIGEST_CHANNEL: 'C7DIGEST',
        DIGEST_CRON: '0 8 * * *',
        TZ: 'Europe/Paris',
      },
      now,
    });
    const watcher = bot.app.watcher as Watcher;
    expect(watcher.nextDigestAt(base)).toBe(Date.parse('2026-11-26T07:00:00Z'));
    // An hour of samples with traffic before it (the clock is moved back, then forward, by a minute each).
    offset = -60 * 60_000;
    for (let i = 0; i < 6; i++) {
      bot.sim.advanceTraffic({ seconds: 60 });
      await bot.app.telemetry.tick();
      offset += 60_000;
    }
    offset = 0;
    takeDeviceDown(bot.sim.state, 'Living Room AP');
    const { id } = await bot.propose('create_network name=Cams vlan_id=61 subnet=10.61.0.0/24');
    expect(id).toMatch(/^cr_/);
    watcher.start();
    await bot.slack.waitFor(
      () => bot?.slack.callsOf('chat.postMessage').some((c) => c.args.channel === 'C7DIGEST') ?? false,
      15_000,
    );
    const digest = bot.slack.callsOf('chat.postMessage').find((c) => c.args.channel === 'C7DIGEST');
    const text = JSON.stringify(digest?.args.blocks);
    expect(text).toContain('Network digest: default');
    expect(text).toContain('Living Room AP');
    expect(text).toContain('Pending approvals (1)');
    expect(text).toContain('create_network');
    await bot.slack.waitFor(() => (bot?.slack.uploads.length ?? 0) > 0, 15_000);
    const png = bot.slack.uploads[0]?.bytes ?? Buffer.alloc(0);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    const named = bot.slack.callsOf('files.getUploadURLExternal').map((c) => c.args.filename);
    expect(named).toContain('digest-default.png');
    writeFileSync('/tmp/i23-digest-chart.png', png);
  }, 40_000);
});
