import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BotProcess, runBot, spawnBot, stopAllBots } from '../helpers/bot-process.js';
import type { SlackCall } from '../helpers/fake-slack.js';
import { clickApprove, proposeInC1 } from '../helpers/slack-buttons.js';
import { commandBody, slackHeaders } from '../helpers/slack-requests.js';
import { useSlackRig } from '../helpers/slack-rig.js';
import { codeBlockLines } from '../helpers/slack-text.js';

// Tables keep what answers the question, through the built program: Slack's `who` and `top` on
// the demo site within Slack's width, the console at COLUMNS=80 and 100, and the history of
// changes (an automatic revert among them) named and attributed as people read it.

afterAll(stopAllBots);

const SECRET = 'tables-signing-secret';
const SLACK_WIDTH = 100;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
const textOf = (call: SlackCall | undefined) => JSON.stringify(call?.args ?? {});

/** The lines of the code blocks of an answer posted to a response_url. */
function codeLines(body: Record<string, unknown> | undefined): string[] {
  return codeBlockLines((body?.blocks ?? []) as unknown[]);
}

/**
 * Each row of a table as its key (the text before the first column gap) and the text of one
 * column, read down the row's lines: a wrapped cell continues on lines that are blank before it.
 */
function column(lines: readonly string[], header: string, next: string): { key: string; cell: string }[] {
  const head = lines.findIndex((line) => new RegExp(`\\s${header}\\s`).test(line));
  const title = lines[head] ?? '';
  const [from, to] = [title.indexOf(header), title.indexOf(next)];
  const rows: { key: string; cell: string }[] = [];
  for (const line of lines.slice(head + 1)) {
    if (line.startsWith('(')) break;
    const piece = line.slice(from, to).trim();
    if (line.slice(0, from).trim() === '') {
      const last = rows.at(-1);
      if (last) last.cell = `${last.cell} ${piece}`.trim();
    } else {
      rows.push({ key: line.slice(0, from).trim().split(/ {2,}/)[0] ?? '', cell: piece });
    }
  }
  return rows;
}

describe('Slack and the console keep names and places whole within their width', () => {
  const rig = useSlackRig();
  let bot: BotProcess;
  let events = '';
  const dataDir = mkdtempSync(join(tmpdir(), 'netops-tables-'));
  const atConsole = (args: string[], columns: string) =>
    runBot(args, {
      env: { GATEWAY_URL: rig.sim.url, GATEWAY_API_KEY: rig.sim.apiKey, DATA_DIR: dataDir, COLUMNS: columns },
    });
  const post = (body: string) => fetch(events, { method: 'POST', headers: slackHeaders(SECRET, body), body });
  const audit = () => rig.slack.callsOf('chat.postMessage').filter((c) => c.args.channel === 'CAUDIT');

  /** `/net <text>` as U1; the answer posted to its response_url. */
  async function ask(text: string): Promise<Record<string, unknown> | undefined> {
    const responseUrl = rig.slack.responseUrl();
    await post(commandBody({ text, user_id: 'U1', channel_id: 'C1', response_url: responseUrl }));
    await rig.slack.waitFor(() => rig.slack.responses.some((r) => responseUrl.endsWith(r.path)), 20_000);
    return rig.slack.responses.find((r) => responseUrl.endsWith(r.path))?.body;
  }

  /** Proposes as U1, approves as U2, and waits until the audit channel says it ran; its id. */
  async function change(text: string): Promise<string> {
    const id = await proposeInC1(rig.slack, post, text);
    await clickApprove(rig.slack, post, id);
    await rig.slack.waitFor(() => audit().some((c) => textOf(c).includes(id)), 20_000);
    return id;
  }

  beforeAll(async () => {
    bot = spawnBot({
      SLACK_BOT_TOKEN: 'xoxb-tables',
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: rig.slack.apiUrl,
      PORT: '0',
      GATEWAY_URL: rig.sim.url,
      GATEWAY_API_KEY: rig.sim.apiKey,
      AUDIT_CHANNEL: 'CAUDIT',
      DATA_DIR: dataDir,
      CHANGE_TIMER_TICK_SECONDS: '1',
    });
    const listening = await bot.waitForLog((line) => line.msg.startsWith('listening on port'), 20_000);
    events = `http://127.0.0.1:${String(listening.port)}/slack/events`;
  }, 30_000);
  afterAll(async () => {
    await bot?.stop('SIGKILL');
  });

  it('`/net who on IoT` keeps every name and every place whole within Slack’s width', async () => {
    const expected = JSON.parse((await atConsole(['who', 'on', 'IoT', '--json'], '200')).stdout) as {
      clients: { name: string; where: string }[];
    };
    const lines = codeLines(await ask('who on IoT'));

    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(SLACK_WIDTH);
    const rows = column(lines, 'where', 'uptime');
    expect(rows.map((r) => r.key).sort()).toEqual(expected.clients.map((c) => c.name).sort());
    for (const client of expected.clients) {
      expect(rows.find((r) => r.key === client.name)?.cell, client.name).toBe(client.where);
    }
    expect(lines.join('\n')).toContain('(11 rows; /net … ids shows mac)');
    expect(lines.join('\n').replace('/net … ids', '')).not.toContain('…');
  });

  it('`/net top` is a table within Slack’s width, not lines of key: value, every name whole', async () => {
    const names = (
      JSON.parse((await atConsole(['clients', 'limit=100', '--json'], '200')).stdout) as {
        clients: { name: string }[];
      }
    ).clients.map((c) => c.name);
    const lines = codeLines(await ask('top'));

    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(SLACK_WIDTH);
    const header = lines.findIndex((line) => /^rank\s+name\s+rate\s/.test(line));
    expect(header).toBeGreaterThanOrEqual(0);
    const rows = lines.slice(header + 1).filter((line) => /^\s*\d+\s{2}/.test(line));
    expect(rows).toHaveLength(10);
    const at = lines[header]?.indexOf('name') ?? 0;
    const to = lines[header]?.indexOf('rate') ?? 0;
    for (const row of rows) expect(names).toContain(row.slice(at, to).trim());
    expect(lines.filter((line) => /^[a-z_]+: /.test(line))).toEqual([]);
    expect(lines.length).toBeLessThan(20);
  });

  it('`vlans` at COLUMNS=80 is one line per network', async () => {
    const run = await atConsole(['vlans'], '80');

    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    for (const [name, subnet] of [
      ['Default', '192.168.1.1/24'],
      ['IoT', '10.20.0.1/24'],
      ['Guest', '10.30.0.1/24'],
      ['Cameras', '10.60.0.1/24'],
    ]) {
      expect(lines.filter((line) => line.startsWith(`${name} `))).toHaveLength(1);
      expect(lines.find((line) => line.startsWith(`${name} `))).toContain(subnet);
    }
    expect(lines).toHaveLength(7);
    expect(lines.at(-1)).toBe('(5 rows; --ids shows id)');
  });

  it('`changes` at COLUMNS=100 fits, and an automatic revert shows the network by name and its timer', async () => {
    await change('create_network name=Lab vlan_id=71 subnet=10.71.0.0/24');
    await change('update_network network_id=Guest dhcp_dns_1=1.1.1.1');
    const temporary = await change('update_network network_id=IoT vlan_id=24 for=5s');
    await rig.slack.waitFor(
      () => audit().some((c) => textOf(c).includes(`(${temporary}) reverted automatically`)),
      30_000,
    );
    const revert = /\(revert (cr_[a-z2-7]{20})\)/.exec(
      textOf(audit().find((c) => textOf(c).includes(`(${temporary}) reverted automatically`))),
    )?.[1];
    expect(revert).toBeDefined();

    const run = await atConsole(['changes'], '100');

    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(100);
    expect(run.stdout).not.toMatch(UUID);
    const row = lines.findIndex((line) => line.startsWith(`${revert} `));
    expect(lines[row]).toMatch(/succeeded\s+default\s+timer: for 5s\s+timer: for 5s\s+\d{4}-/);
    expect(lines[row + 1]).toBe('  change: update_network network_id=IoT vlan_id=20');
    // The change it undid says its own deadline.
    expect(run.stdout).toContain('change: update_network network_id=IoT vlan_id=24 for=5s');

    const detail = await atConsole(['change', revert ?? ''], '100');
    expect(detail.stdout).toContain('requested_by: timer: for 5s');
    for (const line of detail.stdout.trimEnd().split('\n'))
      expect(line.length, line).toBeLessThanOrEqual(100);
  }, 90_000);
});

describe.concurrent('results print their values and no empty warnings', () => {
  it('a blocked client shows what was sent, and a route update no `warnings: (none)`', async () => {
    const blocked = await runBot(['block_client', 'client=Pixel-7a', '--yes'], { env: { COLUMNS: '200' } });
    const route = await runBot(
      ['update_traffic_route', 'route_id=Guest bandwidth cap', 'enabled=false', '--yes'],
      {
        env: { COLUMNS: '200' },
      },
    );

    for (const run of [blocked, route]) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).not.toMatch(/\{\d+ fields\}|\[\d+ items\]/);
      expect(run.stdout).not.toMatch(/warnings: \(none\)/);
    }
    expect(blocked.stdout).toMatch(/body=\{cmd: block-sta, mac: 62:10:c4:8d:5e:1d\}/);
    expect(route.stdout).toMatch(/match_criteria=\{[a-z_]+: /);
  });
});
