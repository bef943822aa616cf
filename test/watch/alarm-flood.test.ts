import { afterEach, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/gateway/types.js';
import type { Watcher } from '../../src/watch/index.js';
import type { AlarmSummary, Incident, WatchNotifier } from '../../src/watch/types.js';
import type { SlackCall } from '../helpers/fake-slack.js';
import { type SlackBot, startSlackBot } from '../helpers/slack-bot.js';
import { testWatcher } from './watcher-harness.js';

// Alarm Manager can fire dozens of alarms at once (a switch reboots, every AP behind it alarms):
// the alert channel gets a few of them one by one, the rest summed up in one message per minute,
// and the on-call group is mentioned once for the burst.
const SECRET = 'alarm-manager-secret-0123456789';
const KINDS = ['Device offline', 'High CPU', 'Rogue AP detected', 'PoE overload', 'Channel interference'];
const DEVICES = Array.from({ length: 12 }, (_, i) => `AP-${String(i + 1).padStart(2, '0')}`);
const macOf = (device: number) => `02:00:00:00:00:${device.toString(16).padStart(2, '0')}`;

/** 60 distinct alarms (5 kinds on each of 12 devices), from `offset` on: each its own dedup key. */
function flood(count = 60, offset = 0) {
  return Array.from({ length: count }, (_, n) => {
    const i = n + offset;
    const device = i % DEVICES.length;
    return {
      alarm: KINDS[Math.floor(i / DEVICES.length) % KINDS.length],
      message: `alarm number ${i}`,
      device_name: DEVICES[device],
      device_mac: macOf(device + 16 * Math.floor(i / (DEVICES.length * KINDS.length))),
    };
  });
}

let bot: SlackBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

async function start() {
  let now = Date.parse('2026-11-26T02:14:00Z');
  bot = await startSlackBot({
    env: {
      ALERT_CHANNEL: 'C9ALERTS',
      ALERT_MENTION: 'S0ONCALL',
      UNIFI_WEBHOOK_SECRET: SECRET,
      TZ: 'UTC',
    },
    now: () => now,
  });
  const b = bot;
  const hook = async (body: unknown) => {
    const response = await fetch(`http://127.0.0.1:${b.port}/webhooks/unifi`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${SECRET}` },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(202);
    return ((await response.json()) as { outcome: string }).outcome;
  };
  return {
    bot: b,
    watcher: b.app.watcher as Watcher,
    hook,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const alerts = (b: SlackBot) =>
  b.slack.callsOf('chat.postMessage').filter((c) => c.args.channel === 'C9ALERTS');
const textOf = (call: SlackCall | undefined) => JSON.stringify(call?.args.blocks ?? []);
const mentions = (b: SlackBot) =>
  alerts(b).filter((c) => String(c.args.text).includes('<!subteam^S0ONCALL>'));
function tally(outcomes: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const outcome of outcomes) counts[outcome] = (counts[outcome] ?? 0) + 1;
  return counts;
}

/** The `name (n)` entries of one line of a summary message. */
function countsIn(call: SlackCall | undefined, line: 'Kinds' | 'Devices'): Map<string, number> {
  const text = String(
    (call?.args.blocks as { text?: { text?: string } }[] | undefined)?.[0]?.text?.text ?? '',
  );
  const row = text.split('\n').find((l) => l.startsWith(`${line}: `)) ?? '';
  return new Map(
    [...row.slice(line.length + 2).matchAll(/([^,(]+?) \((\d+)\)/g)].map((m) => [
      String(m[1]).trim(),
      Number(m[2]),
    ]),
  );
}
const sum = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);

describe('a flood of Alarm Manager alarms', () => {
  it('60 alarms at once: 5 posted, the mention once, the other 55 summed up in one message when the minute closes', async () => {
    const { bot, watcher, hook, advance } = await start();

    const outcomes = await Promise.all(flood().map(hook));

    expect(tally(outcomes)).toEqual({ posted: 5, grouped: 55 });
    expect(alerts(bot)).toHaveLength(5);
    expect(mentions(bot)).toHaveLength(1);
    // Not before the minute closes.
    advance(59_000);
    expect(await watcher.flushAlarms()).toBe(false);
    expect(alerts(bot)).toHaveLength(5);

    advance(1_000);
    expect(await watcher.flushAlarms()).toBe(true);
    expect(await watcher.flushAlarms()).toBe(false);

    expect(alerts(bot)).toHaveLength(6);
    expect(mentions(bot)).toHaveLength(1);
    const summary = alerts(bot)[5];
    expect(String(summary?.args.text)).toContain('55 more UniFi alarms* from 02:14 to 02:15');
    expect(textOf(summary)).toContain('(5 were)');
    const kinds = countsIn(summary, 'Kinds');
    const devices = countsIn(summary, 'Devices');
    expect(sum(kinds)).toBe(55);
    expect(sum(devices)).toBe(55);
    expect([...kinds.keys()].every((k) => KINDS.includes(k))).toBe(true);
    // Eight devices by name, the other four as one entry.
    expect(devices.size).toBe(9);
    expect(devices.has('other devices')).toBe(true);
    expect(textOf(summary)).toMatch(/First: (\*AP-\d\d\* [A-Za-z ]+(, )?){5}/);
    // Every alarm is kept for the digest, posted or not.
    const kept = (await bot.app.context.store.keys()).filter((k) => k.startsWith('watch:alarm:'));
    expect(kept).toHaveLength(60);
  });

  it('a burst that goes on into the next minute: the summary is posted by its next alarm, and nobody is mentioned again until a quiet minute', async () => {
    const { bot, hook, advance } = await start();
    for (const alarm of flood(8)) await hook(alarm);
    advance(50_000);
    expect(await hook(flood(1, 8)[0])).toBe('grouped');
    expect(alerts(bot)).toHaveLength(5);

    // 11 s after the last alarm, in the next minute: the same burst.
    advance(11_000);
    expect(await hook(flood(1, 9)[0])).toBe('posted');
    // The closed minute's summary, then the new minute's first alarm, without the mention.
    expect(alerts(bot)).toHaveLength(7);
    expect(String(alerts(bot)[5]?.args.text)).toContain('4 more UniFi alarms');
    expect(String(alerts(bot)[6]?.args.text)).toContain('AP-10');
    expect(mentions(bot)).toHaveLength(1);

    // A minute without alarms ends the burst: the next one mentions again.
    advance(60_000);
    expect(await hook(flood(1, 10)[0])).toBe('posted');
    expect(mentions(bot)).toHaveLength(2);
    expect(String(mentions(bot)[1]?.args.text)).toContain('AP-11');
    // That minute held nothing back: no summary.
    expect(alerts(bot)).toHaveLength(8);
  });
});

describe('alarms taken by two replicas on one store', () => {
  it('count against one bound and one summary', async () => {
    let now = Date.parse('2026-11-26T02:14:00Z');
    const posts: { channel: string; incident?: Incident; mention?: string; summary?: AlarmSummary }[] = [];
    const notifier: WatchNotifier = {
      postIncident: async (channel, incident, mention) => {
        posts.push({ channel, incident, ...(mention ? { mention } : {}) });
        return { channel, ts: String(posts.length) };
      },
      postAlarmSummary: async (channel, summary) => {
        posts.push({ channel, summary });
        return { channel, ts: String(posts.length) };
      },
      updateIncident: async () => {},
      postDrift: async () => undefined,
      updateDrift: async () => {},
      postDigest: async () => undefined,
    };
    const config = { alertMention: 'S0ONCALL', alarmsPerMinute: 3 };
    const gateway = {} as Gateway;
    const one = testWatcher(gateway, notifier, { config, now: () => now });
    const two = testWatcher(gateway, notifier, { config, now: () => now, data: one.data });
    const replicas = [one.watcher, two.watcher];

    const alarms = flood(20).map((a, i) => ({
      key: `${String(a.alarm).toLowerCase()}@${a.device_mac}`,
      name: String(a.alarm),
      subject: String(a.device_name),
      mac: a.device_mac,
      n: i,
    }));
    const outcomes: string[] = [];
    for (const { n, ...alarm } of alarms) {
      outcomes.push(await (replicas[n % 2] as Watcher).receiveAlarm(alarm));
      now += 1_000;
    }
    now += 60_000;
    // Each replica's timer fires when the minute closes: the first posts the summary, the second finds it taken.
    const flushed = [await one.watcher.flushAlarms(), await two.watcher.flushAlarms()];

    expect(tally(outcomes)).toEqual({ posted: 3, grouped: 17 });
    expect(flushed.filter(Boolean)).toHaveLength(1);
    expect(posts.filter((p) => p.incident)).toHaveLength(3);
    expect(posts.filter((p) => p.mention)).toHaveLength(1);
    const summaries = posts.filter((p) => p.summary).map((p) => p.summary);
    expect(summaries).toHaveLength(1);
    expect(summaries[0]).toMatchObject({ count: 17, posted: 3 });
    expect(summaries[0]?.kinds.reduce((a, k) => a + k.count, 0)).toBe(17);
    await Promise.all(replicas.map((w) => w.stop()));
  });
});
