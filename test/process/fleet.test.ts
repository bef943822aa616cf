import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fleet, startFleet } from '../../src/simulator/fleet.js';
import { failWanOver, takeDeviceDown } from '../../src/simulator/scenario-controls.js';
import { type BotProcess, runBot, spawnBot, stopAllBots } from '../helpers/bot-process.js';
import { type FakeSlack, startFakeSlack } from '../helpers/fake-slack.js';
import { commandBody, slackHeaders } from '../helpers/slack-requests.js';

let fleet: Fleet;
let env: Record<string, string>;

beforeAll(async () => {
  // Four consoles on two versions: one reached only through the connector, one down, one slower
  // than the read budget.
  fleet = await startFleet({
    consoles: [
      { name: 'berlin', version: '10.1' },
      { name: 'munich', version: '9.0', reach: 'connector' },
      { name: 'hamburg', version: '10.1', down: true },
      { name: 'vienna', version: '9.0', slow: 8000 },
    ],
  });
  const file = fleet.consolesFile();
  const path = join(mkdtempSync(join(tmpdir(), 'netops-fleet-')), 'consoles.yaml');
  writeFileSync(path, file.text);
  // A short read budget: the down console is named within it, not waited for.
  env = { ...file.env, CONSOLES_FILE: path, GATEWAY_READ_BUDGET_MS: '2000', GATEWAY_TIMEOUT_MS: '1000' };
});

afterAll(async () => {
  await stopAllBots();
  await fleet?.close();
});

describe.concurrent('a bot serving a fleet of consoles (CONSOLES_FILE), one-shot at the console', () => {
  it('lists the consoles: reachable or not, version and API generation, how each is reached', async () => {
    const run = await runBot(['list_consoles', '--json'], { env });
    expect(run.code).toBe(0);
    // The down console is logged by name; no key is.
    expect(run.stderr).not.toContain('sim-fleet-key');
    const rows = JSON.parse(run.stdout) as Record<string, unknown>[];
    expect(rows).toEqual([
      expect.objectContaining({
        console: 'berlin',
        via: 'local',
        reachable: true,
        version: expect.stringMatching(/^10\.1\./),
        api: 'official',
      }),
      expect.objectContaining({
        console: 'munich',
        via: 'connector',
        reachable: true,
        version: expect.stringMatching(/^9\.0\./),
      }),
      expect.objectContaining({
        console: 'hamburg',
        reachable: false,
        version: null,
        error: expect.stringContaining('refused'),
      }),
      expect.objectContaining({ console: 'vienna', reachable: false, version: null }),
    ]);
  });

  it('finds a client on the console that has it, naming the consoles that did not answer', async () => {
    // A client only munich (reached through the connector) has: its MAC is unique to its seed.
    const site = fleet.console('munich').state.sites[0];
    const client = site?.clients.find((each) => each.ip !== undefined);
    if (!site || !client) throw new Error('the fleet seeds clients');
    const started = Date.now();
    // `where` asks every console in a fleet (find_client).
    const run = await runBot(['where', 'is', client.mac, '--json'], { env });
    expect(run.code).toBe(0);
    const answer = JSON.parse(run.stdout) as {
      found: { console: string; site: string; mac: string }[];
      unanswered: { console: string }[];
      consoles_asked: number;
    };
    expect(answer.consoles_asked).toBe(4);
    expect(answer.found).toEqual([
      expect.objectContaining({ console: 'munich', site: 'default', mac: client.mac.toLowerCase() }),
    ]);
    expect(answer.unanswered.map((each) => each.console)).toEqual(['hamburg', 'vienna']);
    // The slow console (8 s an answer) is given up after the read budget (2 s), not waited for.
    expect(Date.now() - started).toBeLessThan(6000);
  });

  it('says what is down across every console: unreachable first, then WAN down, then devices offline', async () => {
    // berlin loses a device, munich fails over to its second WAN; hamburg is down, vienna too slow.
    const berlin = fleet.console('berlin').state;
    const device = berlin.sites[0]?.devices.find(
      (each) => each.state === 1 && each.type !== 'udm' && each.type !== 'ugw',
    );
    if (!device) throw new Error('the fleet seeds devices');
    takeDeviceDown(berlin, device.mac);
    failWanOver(fleet.console('munich').state);
    const [json, text, acme] = await Promise.all([
      runBot(['down', '--json'], { env }),
      runBot(['down'], { env }),
      runBot(['get_fleet_status', 'label=customer=Berlin', '--json'], { env }),
    ]);
    expect(json.code).toBe(0);
    const answer = JSON.parse(json.stdout) as {
      consoles_asked: number;
      unreachable: number;
      sites: { console: string; site: string; problem: string }[];
      healthy: string;
    };
    expect(answer.consoles_asked).toBe(4);
    expect(answer.unreachable).toBe(2);
    expect(answer.sites.map((row) => row.console)).toEqual(['hamburg', 'vienna', 'munich', 'berlin']);
    expect(answer.sites[0]?.problem).toMatch(/^not reachable: .*refused/);
    expect(answer.sites[1]?.problem).toMatch(/^not reachable: .*(did not answer|no answer) within/);
    expect(answer.sites[2]?.problem).toMatch(/^WAN down: \S.* wan1(;|$)/);
    expect(answer.sites[3]?.problem).toMatch(/^\d+ of \d+ devices offline: /);
    expect(answer.sites[3]?.problem).toContain(device.name);
    expect(answer.healthy).toBe('none');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('troubled: 4');
    expect(text.stdout).toMatch(/hamburg\s+default\s+not reachable/);
    expect(acme.code).toBe(0);
    const berlinOnly = JSON.parse(acme.stdout) as { consoles_asked: number; sites: { console: string }[] };
    expect(berlinOnly.consoles_asked).toBe(1);
    expect(berlinOnly.sites.map((row) => row.console)).toEqual(['berlin']);
  });

  it('reads one console by console=, and asks which console when none is named', async () => {
    const [berlin, unnamed, unknown] = await Promise.all([
      runBot(['list_vlans', 'console=berlin', '--json'], { env }),
      runBot(['list_vlans', '--json'], { env }),
      runBot(['list_vlans', 'console=berlln'], { env }),
    ]);
    expect(berlin.code).toBe(0);
    const networks = JSON.parse(berlin.stdout) as { name: string }[];
    const seeded = fleet.console('berlin').state.sites[0]?.networks.map((n) => n.name) ?? [];
    // Its networks (WAN and VPN ones are not VLANs), read from berlin itself.
    expect(networks.length).toBeGreaterThan(2);
    for (const network of networks) expect(seeded).toContain(network.name);
    expect(fleet.console('berlin').requests.some((r) => /networkconf|networks/.test(r.path))).toBe(true);
    expect(unnamed.code).not.toBe(0);
    expect(unnamed.stdout + unnamed.stderr).toContain('console');
    expect(unnamed.stdout + unnamed.stderr).toContain('berlin, munich, hamburg, vienna');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('did you mean berlin');
  });

  it('stops at start with exit 2 when the consoles file is invalid, naming the line', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'netops-fleet-')), 'consoles.yaml');
    writeFileSync(path, 'consoles:\n  - name: berlin\n    url: https://10.0.0.1\n    api_key: hunter2\n');
    const run = await runBot(['list_consoles'], { env: { CONSOLES_FILE: path } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`CONSOLES_FILE ${path} is invalid`);
    expect(run.stderr).toMatch(/line 4, consoles\[0\]\.api_key: secrets are never written in the file/);
    expect(run.stderr).not.toContain('hunter2');
    expect(run.stdout).toBe('');
  });

  it('runs a confirmed write on the console it names only, and the journal names that console', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'netops-fleet-data-'));
    const networksOf = (name: string) =>
      fleet.console(name).state.sites[0]?.networks.map((n) => n.name) ?? [];
    const run = await runBot(
      [
        'create_network',
        'console=berlin',
        'name=Fleet-Lab',
        'vlan_id=41',
        'subnet=10.71.0.0/24',
        '--yes',
        '--json',
      ],
      { env: { ...env, DATA_DIR: dataDir } },
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ console: 'berlin' });
    expect(networksOf('berlin')).toContain('Fleet-Lab');
    expect(networksOf('munich')).not.toContain('Fleet-Lab');
    const journal = readFileSync(join(dataDir, 'approvals.jsonl'), 'utf8');
    expect(journal).toContain('"console":"berlin"');
    // Read back and verified on berlin too: no image is missing for want of a console.
    expect(journal).not.toContain('could not be read');
    expect(journal).toContain('"verification":{"status":"verified"');
    expect(journal).not.toContain('sim-fleet-key');
  });

  it('previews a write on the console it names, and changes nothing', async () => {
    const before = fleet.console('munich').state.sites[0]?.networks.length;
    const run = await runBot(
      ['create_network', 'console=munich', 'name=Lab', 'vlan_id=40', 'subnet=10.70.0.0/24', '--json'],
      { env },
    );
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout)).toMatchObject({ console: 'munich', dry_run: true });
    expect(fleet.console('munich').state.sites[0]?.networks.length).toBe(before);
  });
});

describe('a Slack channel bound to one console and site in the consoles file', () => {
  const SECRET = 'fleet-signing-secret';
  let slack: FakeSlack;
  let bot: BotProcess;
  let events = '';

  beforeAll(async () => {
    slack = await startFakeSlack();
    bot = spawnBot({
      ...env,
      SLACK_BOT_TOKEN: 'xoxb-fleet',
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: slack.apiUrl,
      // Deliberately alike: each listening-bot suite spawns the bot with its own env and waits for its port.
      PORT: '0',
    });
    const listening = await bot.waitForLog((line) => line.msg.startsWith('listening on port'), 20_000);
    events = `http://127.0.0.1:${String(listening.port)}/slack/events`;
  }, 30_000);
  afterAll(async () => {
    await bot?.stop('SIGKILL');
    await slack?.close();
  });

  /** `/net <text>` in `channel`; the answer posted to its response_url, as text. */
  async function ask(text: string, channel: string): Promise<string> {
    const responseUrl = slack.responseUrl();
    const body = commandBody({ text, user_id: 'U1', channel_id: channel, response_url: responseUrl });
    await fetch(events, { method: 'POST', headers: slackHeaders(SECRET, body), body });
    await slack.waitFor(() => slack.responses.some((r) => responseUrl.endsWith(r.path)), 20_000);
    return JSON.stringify(slack.responses.find((r) => responseUrl.endsWith(r.path))?.body ?? {});
  }

  it('reads its console without console=, and refuses a write aimed at another console or site', async () => {
    // C0FLEET02 is bound to berlin, site default (fleet.consolesFile()).
    const vlans = await ask('list_vlans', 'C0FLEET02');
    expect(vlans).toContain('IoT');
    expect(vlans).not.toContain('console');
    const munichBefore = fleet.console('munich').state.sites[0]?.networks.length;
    const elsewhere = await ask(
      'create_network console=munich name=Lab vlan_id=40 subnet=10.70.0.0/24',
      'C0FLEET02',
    );
    expect(elsewhere).toContain(
      'this channel is bound to berlin, site default: a write here cannot reach munich',
    );
    const otherSite = await ask(
      'create_network site=other name=Lab vlan_id=40 subnet=10.70.0.0/24',
      'C0FLEET02',
    );
    expect(otherSite).toContain('a write here cannot reach site other');
    // Nothing was proposed, and munich was never written to.
    expect(slack.callsOf('chat.postMessage').filter((c) => c.args.channel === 'C0FLEET02')).toEqual([]);
    expect(fleet.console('munich').state.sites[0]?.networks.length).toBe(munichBefore);
    // An unbound channel is asked which console.
    expect(await ask('list_vlans', 'C0UNBOUND')).toContain('berlin, munich, hamburg, vienna');
  });

  it('says what is down on the channel’s console only, and on every console elsewhere', async () => {
    // C0FLEET01 is bound to berlin; hamburg (down) and vienna (slow) are not its business there.
    const bound = await ask('down', 'C0FLEET01');
    expect(bound).toMatch(/consoles_asked\*\\n1"/);
    expect(bound).toMatch(/berlin +default/);
    expect(bound).not.toMatch(/hamburg|vienna/);
    const everywhere = await ask('down', 'C0UNBOUND');
    expect(everywhere).toMatch(/consoles_asked\*\\n4"/);
    expect(everywhere).toContain('hamburg');
  });
});
