// A rollout through the built program (`node dist/main.js`, environment variables only): two replicas
// on one PostgreSQL serving a fleet of three simulated consoles (three versions, one reached only
// through the cloud connector), one fake Slack. `/net rollout` to six sites in waves 1, 2, rest; the
// replica running it is killed (SIGKILL) while a wave-2 write is in flight; the other settles it,
// a Continue runs on, a verification mismatch halts it, and Revert undoes every done site as one.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fleet, startFleet } from '../../src/simulator/fleet.js';
import type { RecordedRequest } from '../../src/simulator/types.js';
import { runBot } from '../helpers/bot-process.js';
import { callText, type FakeSlack, type SlackCall, startFakeSlack } from '../helpers/fake-slack.js';
import { useTestDatabase } from '../helpers/postgres.js';
import { type BotProcess, requireBuild, startBotProcess } from '../helpers/replica-process.js';
import { buttonBody } from '../helpers/slack-requests.js';

const SECRET = 'rollout-signing-secret';
const LEASE_SECONDS = 2;
/** A write to a network: classic networkconf (9.x) or the official networks route (10.1). */
const NETWORK_WRITE = /rest\/networkconf\/[^/]+$|\/networks\/[^/]+$/;

const db = useTestDatabase();
let fleet: Fleet;
let slack: FakeSlack;
let a: BotProcess;
let b: BotProcess;
/** The consoles file and its secrets, for a console run beside the replicas. */
let fleetEnv: Record<string, string>;

const previews = () =>
  slack.callsOf('chat.postMessage').filter((c) => !c.args.thread_ts && c.args.channel === 'C1');
const threadOf = (ts: string) => slack.callsOf('chat.postMessage').filter((c) => c.args.thread_ts === ts);
const buttonsOf = (call: SlackCall | undefined) =>
  ((call?.args.blocks ?? []) as { elements?: { action_id: string; value: string }[] }[]).flatMap(
    (block) => block.elements ?? [],
  );
const approveId = (call: SlackCall | undefined) => {
  const button = buttonsOf(call).find((e) => e.action_id === 'approve');
  if (!button) throw new Error('the preview has no Approve button');
  return button.value;
};

async function rowOf(id: string): Promise<Record<string, unknown> | undefined> {
  const found = await db.query<{ data: Record<string, unknown> }>(
    'SELECT data FROM netops_change_requests WHERE id = $1',
    [id],
  );
  return found.rows[0]?.data;
}

/** IoT on every site of the fleet, as the controllers hold it. */
const iotOfEverySite = () =>
  fleet.consoles.map((each) =>
    each.state.sites.map((site) => structuredClone(site.networks.find((n) => n.name === 'IoT'))),
  );
/** Network writes a console received, by method and path. */
const networkWrites = (name: string): RecordedRequest[] =>
  fleet.console(name).requests.filter((r) => r.method !== 'GET' && NETWORK_WRITE.test(r.route));

/** Approves as U2, and as U3 too when the risk asks two approvals; resolves once it is claimed. */
async function approve(bot: BotProcess, id: string): Promise<void> {
  const first = slack.responseUrl();
  await bot.click('approve', id, 'U2', first);
  await slack.waitFor(
    async () => slack.responses.some((r) => first.endsWith(r.path)) || (await rowOf(id))?.state !== 'pending',
    30_000,
  );
  if ((await rowOf(id))?.state === 'pending') await bot.click('approve', id, 'U3', slack.responseUrl());
}

beforeAll(async () => {
  requireBuild();
  fleet = await startFleet({
    consoles: [
      { name: 'berlin', version: '10.1' },
      { name: 'munich', version: '9.0', reach: 'connector' },
      { name: 'vienna', version: '9.4' },
    ],
  });
  slack = await startFakeSlack();
  const file = fleet.consolesFile();
  const path = join(mkdtempSync(join(tmpdir(), 'netops-rollout-')), 'consoles.yaml');
  writeFileSync(path, file.text);
  fleetEnv = { ...file.env, CONSOLES_FILE: path };
  const env = {
    ...file.env,
    CONSOLES_FILE: path,
    SLACK_BOT_TOKEN: 'xoxb-rollouts',
    SLACK_API_URL: slack.apiUrl,
    DATABASE_URL: db.url,
    REPLICA_LEASE_SECONDS: String(LEASE_SECONDS),
  };
  [a, b] = await Promise.all([
    startBotProcess('rollout-a', env, SECRET, 30_000),
    startBotProcess('rollout-b', env, SECRET, 30_000),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([a, b].filter(Boolean).map((bot) => bot.kill('SIGKILL')));
  await slack?.close();
  await fleet?.close();
});

describe('a rollout to six sites on three consoles, in waves 1, 2, rest, over two replicas', () => {
  it('runs each site once through a SIGKILL, halts on a mismatch in wave 2, and reverts the done sites as one', async () => {
    const [berlin, munich, vienna] = fleet.consoles.map((each) => each.siteNames);
    const sites = [
      `berlin/${berlin?.[0]}`,
      `munich/${munich?.[0]}`,
      `vienna/${vienna?.[0]}`,
      `berlin/${berlin?.[1]}`,
      `munich/${munich?.[1]}`,
      `vienna/${vienna?.[1]}`,
    ];
    const start = iotOfEverySite();

    // The preview: every site's dry run by wave, and nothing sent.
    const before = previews().length;
    const text = `rollout update_network network_id=IoT vlan_id=71 sites=${sites.join(',')} waves=1,2,rest soak=1s`;
    expect(await a.command(text, 'U1', slack.responseUrl())).toBe(200);
    await slack.waitFor(() => previews().length > before, 30_000);
    const preview = previews().at(-1);
    const shown = callText(preview);
    expect(shown).toContain('6 site(s) on 3 console(s)');
    expect(shown).toContain(`wave 1: ${sites[0]}`);
    expect(shown).toContain(`wave 2: ${sites[1]}, ${sites[2]}`);
    for (const name of ['berlin', 'munich', 'vienna']) expect(networkWrites(name)).toEqual([]);
    const id = approveId(preview);
    // The message is recorded on the request right after posting it: its thread is where results go.
    await slack.waitFor(async () => (await rowOf(id))?.message !== undefined, 10_000);
    const message = (await rowOf(id))?.message as { ts: string } | undefined;
    const ts = String(message?.ts);

    // munich's write (wave 2) is held 1.5 s at the controller: its replica dies while it waits.
    fleet
      .console('munich')
      .injectFault({ kind: 'latency', ms: 1_500, method: 'PUT', route: NETWORK_WRITE, times: 1 });
    // vienna stores another VLAN than the one sent: the verification mismatch, in wave 2 too.
    fleet.console('vienna').injectFault({
      kind: 'store-as',
      method: 'PUT',
      route: 'rest/networkconf',
      set: { vlan: 1071 },
      times: 1,
    });
    await approve(a, id);
    await slack.waitFor(() => networkWrites('munich').length > 0, 30_000);
    // wave 1 ran and soaked before wave 2 began.
    expect(networkWrites('berlin')).toHaveLength(1);
    await a.kill('SIGKILL');

    // Replica B settles it once A's lease lapses: the write in flight is read back, not sent again.
    await slack.waitFor(async () => (await rowOf(id))?.state === 'failed', (LEASE_SECONDS + 15) * 1000);
    await slack.waitFor(
      () => threadOf(ts).some((c) => buttonsOf(c).some((e) => e.action_id === 'rollout_continue')),
      10_000,
    );
    const interrupted = threadOf(ts).at(-1);
    expect(callText(interrupted)).toMatch(
      /rollout halted at vienna\/\S+ \(wave 2 of 3\): the bot stopped while the rollout ran/,
    );
    expect(networkWrites('munich')).toHaveLength(1);
    expect(networkWrites('vienna')).toHaveLength(0);

    // Continue (on B): vienna's write lands not as sent, and the rollout halts again.
    const threadBefore = threadOf(ts).length;
    const told = slack.responseUrl();
    await b.post(buttonBody({ actionId: 'rollout_continue', value: id, userId: 'U2', response_url: told }));
    await slack.waitFor(() => threadOf(ts).length > threadBefore, 30_000);
    const halted = threadOf(ts).at(-1);
    expect(callText(halted)).toMatch(/rollout halted at vienna\/\S+ \(wave 2 of 3\): verification mismatch/);
    expect(callText(halted)).toContain('3 of 6 site(s) done');
    expect(buttonsOf(halted).map((e) => e.action_id)).toEqual([
      'rollout_continue',
      'revert_change',
      'rollout_stop',
    ]);
    const halts = (await rowOf(id))?.set as { steps: { status?: string }[] } | undefined;
    const steps = halts?.steps.map((s) => s.status ?? 'not run');
    expect(steps).toEqual(['done', 'done', 'done', 'not run', 'not run', 'not run']);

    // Revert the done sites: one change set undoing all three, approved like any change.
    const posted = previews().length;
    const asked = slack.responseUrl();
    await b.post(buttonBody({ actionId: 'revert_change', value: id, userId: 'U1', response_url: asked }));
    await slack.waitFor(() => previews().length > posted, 30_000);
    const revert = previews().at(-1);
    expect(callText(revert)).toMatch(/revert of/);
    const revertId = approveId(revert);
    await approve(b, revertId);
    await slack.waitFor(async () => (await rowOf(revertId))?.state === 'succeeded', 30_000);

    // Every site is as before; each written site got one write and one undoing write, the rest none.
    expect(iotOfEverySite()).toEqual(start);
    for (const name of ['berlin', 'munich', 'vienna']) expect(networkWrites(name)).toHaveLength(2);
    // The rollout is marked reverted right after its revert's outcome is recorded.
    await slack.waitFor(async () => (await rowOf(id))?.revertedBy === revertId, 10_000);

    // The journal names the console and site of every step.
    const journal = await db.query<{ line: string }>(
      "SELECT line FROM netops_journal WHERE request_id = $1 AND type = 'set_step' ORDER BY seq",
      [id],
    );
    const places = journal.rows.map((r) => {
      const e = JSON.parse(r.line) as { console?: string; site?: string; status: string };
      return `${e.console}/${e.site} ${e.status}`;
    });
    expect(places).toEqual(
      expect.arrayContaining([`${sites[0]} done`, `${sites[1]} done`, `${sites[2]} done`]),
    );
    for (const place of places) expect(place).toMatch(/^(berlin|munich|vienna)\/\S+ \w+$/);
    // Wave 1 soaked (its sites watched) before wave 2 was written.
    const soaked = await db.query<{ line: string }>(
      "SELECT line FROM netops_journal WHERE request_id = $1 AND type = 'rollout' ORDER BY seq",
      [id],
    );
    expect(soaked.rows.map((r) => JSON.parse(r.line) as { event: string; wave?: number })).toEqual([
      expect.objectContaining({ event: 'soaked', wave: 1 }),
    ]);
  }, 180_000);
});

describe('a rollout at the console (one-shot), same words', () => {
  it('previews every site without --yes (exit 3, nothing sent), then runs wave by wave with --yes', async () => {
    const [berlin, munich] = fleet.consoles.map((each) => each.siteNames);
    const sites = `berlin/${berlin?.[1]},munich/${munich?.[1]}`;
    const env = { ...fleetEnv, DATA_DIR: mkdtempSync(join(tmpdir(), 'netops-rollout-console-')) };
    const words = [
      'rollout',
      'update_network',
      'network_id=IoT',
      'dhcp_dns_1=9.9.9.9',
      `sites=${sites}`,
      'waves=1,rest',
      'soak=1s',
    ];
    const sent = () => networkWrites('berlin').length + networkWrites('munich').length;
    const before = sent();

    const preview = await runBot([...words, '--json'], { env });
    expect(preview.code, preview.stderr).toBe(3);
    expect(preview.stdout).toContain('2 site(s) on 2 console(s)');
    expect(sent()).toBe(before);

    const ran = await runBot([...words, '--yes', '--json'], { env, timeoutMs: 60_000 });
    expect(ran.code, ran.stderr).toBe(0);
    const answer = JSON.parse(ran.stdout) as { steps: string[] };
    expect(answer.steps).toEqual([
      expect.stringMatching(new RegExp(`^1\\. done: berlin/${berlin?.[1]}: update_network`)),
      expect.stringMatching(new RegExp(`^2\\. done: munich/${munich?.[1]}: update_network`)),
    ]);
    expect(sent()).toBe(before + 2);
    for (const each of [fleet.console('berlin').state.sites[1], fleet.console('munich').state.sites[1]])
      expect(each?.networks.find((n) => n.name === 'IoT')?.dhcpd_dns_1).toBe('9.9.9.9');
  }, 90_000);
});
