import { createHash, createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type SyslogReceiver,
  startSyslogReceiver,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../helpers/audit-receivers.js';
import { type BotProcess, slackHttpEnv, spawnListeningBot, stopAllBots } from '../helpers/bot-process.js';
import { clickApprove, proposeInC1 } from '../helpers/slack-buttons.js';
import { slackHeaders } from '../helpers/slack-requests.js';
import { useSlackRig } from '../helpers/slack-rig.js';

// The built bot exporting its journal to a syslog receiver and a webhook through a day of changes,
// a receiver outage and a kill -9: every event arrives, in order, linked, signed, without secrets.

// Deliberately alike: the run's own secrets and the shape of one exported event, typed where it is read.
const SECRET = 'audit-export-signing-secret';
const WEBHOOK_SECRET = 'audit-export-webhook-secret-0123';

interface Received {
  seq: number;
  prev: string;
  hash: string;
  type: string;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The journal's lines as the bot wrote them. */
const journalLines = (dataDir: string) =>
  readFileSync(join(dataDir, 'approvals.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');

function fromSyslog(messages: readonly string[]): Received[] {
  return messages.map((m) => JSON.parse(m.slice(m.indexOf('] ') + 2)) as Received);
}

function fromWebhook(receiver: WebhookReceiver): Received[] {
  return receiver.deliveries.flatMap((d) => (JSON.parse(d.body) as { events: Received[] }).events);
}

/** Each event once, in the order it first arrived. */
function firstArrivals(events: readonly Received[]): Received[] {
  const seen = new Set<number>();
  return events.filter((e) => !seen.has(e.seq) && seen.add(e.seq));
}

describe('the audit export of the built bot', () => {
  const rig = useSlackRig({ apiVersion: '9.0' });
  const dataDir = mkdtempSync(join(tmpdir(), 'netops-audit-export-'));
  let syslog: SyslogReceiver;
  let webhook: WebhookReceiver;
  let bot: BotProcess;
  let events = '';
  const post = (body: string) => fetch(events, { method: 'POST', headers: slackHeaders(SECRET, body), body });

  async function start() {
    ({ bot, events } = await spawnListeningBot({
      ...slackHttpEnv(rig.slack, SECRET, rig.sim),
      DATA_DIR: dataDir,
      AUDIT_SYSLOG_URL: `tcp://127.0.0.1:${syslog.port}`,
      AUDIT_WEBHOOK_URL: webhook.url,
      AUDIT_WEBHOOK_SECRET: WEBHOOK_SECRET,
    }));
  }

  /** Proposes as U1, approves as U2, and waits until the run is journaled. */
  async function change(text: string) {
    const id = await proposeInC1(rig.slack, post, text);
    await clickApprove(rig.slack, post, id);
    await rig.slack.waitFor(
      () =>
        journalLines(dataDir).some((l) => l.includes(`"id":"${id}"`) && /"type":"(verified|failed)"/.test(l)),
      20_000,
    );
  }

  /** Waits until both receivers hold every event the journal has. */
  async function delivered() {
    const count = () => journalLines(dataDir).length;
    await rig.slack.waitFor(
      () =>
        new Set(fromSyslog(syslog.messages).map((e) => e.seq)).size === count() &&
        new Set(fromWebhook(webhook).map((e) => e.seq)).size === count(),
      30_000,
    );
  }

  beforeAll(async () => {
    [syslog, webhook] = await Promise.all([startSyslogReceiver(), startWebhookReceiver()]);
    await start();
  }, 30_000);
  afterAll(async () => {
    await stopAllBots();
    await Promise.all([syslog?.close(), webhook?.close()]);
  });

  it('delivers every event of a day of changes in order through an outage and a kill -9', async () => {
    await change('create_network name=Audit1 vlan_id=61 subnet=10.61.0.1/24');
    await change('set_wifi_broadcast_enabled wifi_id="Guest WiFi" enabled=false');
    await delivered();

    // Both receivers go down for a while; the changes go on meanwhile.
    await syslog.kill();
    webhook.status = 503;
    await change('create_network name=Audit2 vlan_id=62 subnet=10.62.0.1/24');
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const duringOutage = journalLines(dataDir).length;
    expect(new Set(fromWebhook(webhook).map((e) => e.seq)).size).toBeLessThan(duringOutage);
    expect(new Set(fromSyslog(syslog.messages).map((e) => e.seq)).size).toBeLessThan(duringOutage);
    await syslog.revive();
    webhook.status = 200;
    await delivered();

    // Killed without a chance to save anything, then started again on the same data.
    await bot.stop('SIGKILL');
    await start();
    await change('set_wifi_broadcast_enabled wifi_id="Guest WiFi" enabled=true');
    await delivered();

    const lines = journalLines(dataDir);
    const expected = lines.map((line, i) => ({ seq: i + 1, hash: sha256(line) }));
    for (const received of [fromSyslog(syslog.messages), fromWebhook(webhook)]) {
      const unique = firstArrivals(received);
      // Nothing lost, nothing reordered: each event first arrives after the one before it.
      expect(unique.map((e) => ({ seq: e.seq, hash: e.hash }))).toEqual(expected);
      // The chain checks out on the receiver's side.
      for (const [i, event] of unique.entries()) {
        expect(event.prev).toBe(i === 0 ? '0'.repeat(64) : unique[i - 1]?.hash);
      }
    }
    const types = new Set(lines.map((l) => JSON.parse(l).type as string));
    expect([...types].sort()).toEqual(
      expect.arrayContaining(['approved', 'created', 'executing', 'message', 'succeeded', 'verified']),
    );
  }, 120_000);

  it('signs every webhook body, and no secret leaves in either export', () => {
    for (const delivery of webhook.deliveries) {
      const timestamp = String(delivery.headers['x-netops-timestamp']);
      const signature = createHmac('sha256', WEBHOOK_SECRET)
        .update(`${timestamp}.${delivery.body}`)
        .digest('hex');
      expect(delivery.headers['x-netops-signature']).toBe(`sha256=${signature}`);
    }
    const exported = [...syslog.messages, ...webhook.deliveries.map((d) => d.body)].join('\n');
    // The Guest SSID's passphrase is in the before and after images of both Wi-Fi changes.
    expect(exported).toContain('Guest WiFi');
    expect(exported).not.toMatch(/demo-[0-9a-f]{4}-passphrase/);
    for (const secret of [SECRET, WEBHOOK_SECRET, rig.sim.apiKey, 'xoxb-process-test']) {
      expect(exported).not.toContain(secret);
    }
  });
});
