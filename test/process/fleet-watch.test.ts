// The watcher of a fleet through the built program (`node dist/main.js`, environment variables
// only): every console of CONSOLES_FILE watched, a drift posted naming the console and site it
// happened on, and with two replicas on one PostgreSQL, posted once; the daily digest is one
// message for the fleet, posted once per due time.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Fleet, startFleet } from '../../src/simulator/fleet.js';
import { changeBehindBot } from '../../src/simulator/scenario-controls.js';
import { type FakeSlack, startFakeSlack } from '../helpers/fake-slack.js';
import { useTestDatabase } from '../helpers/postgres.js';
import { type BotProcess, requireBuild, startBotProcess } from '../helpers/replica-process.js';

const SECRET = 'fleet-watch-signing-secret';
const CONSOLES = ['berlin', 'munich', 'hamburg'];

let fleet: Fleet;
let slack: FakeSlack;
let fleetEnv: Record<string, string>;
const bots: BotProcess[] = [];

beforeAll(async () => {
  requireBuild();
  // Three 9.0 consoles: drift in firewall policies is read from their v2 API.
  fleet = await startFleet({ consoles: CONSOLES.map((name) => ({ name, version: '9.0', sites: 1 })) });
  slack = await startFakeSlack();
  const file = fleet.consolesFile();
  const path = join(mkdtempSync(join(tmpdir(), 'netops-fleet-watch-')), 'consoles.yaml');
  writeFileSync(path, file.text);
  fleetEnv = { ...file.env, CONSOLES_FILE: path };
});
beforeEach(() => {
  for (const each of fleet.consoles) each.reset();
});
afterEach(async () => {
  await Promise.all(bots.splice(0).map((bot) => bot.kill('SIGKILL')));
  slack.calls.length = 0;
});
afterAll(async () => {
  await slack?.close();
  await fleet?.close();
});

async function bot(name: string, env: Record<string, string> = {}): Promise<BotProcess> {
  const started = await startBotProcess(
    name,
    {
      ...fleetEnv,
      SLACK_BOT_TOKEN: 'xoxb-fleet-watch-test',
      SLACK_API_URL: slack.apiUrl,
      DRIFT_CHANNEL: 'C8DRIFT',
      WATCH_INTERVAL_SECONDS: '1',
      DRIFT_INTERVAL_SECONDS: '1',
      TELEMETRY_INTERVAL_SECONDS: '0',
      ...env,
    },
    SECRET,
  );
  bots.push(started);
  return started;
}

const driftPosts = () => slack.callsOf('chat.postMessage').filter((c) => c.args.channel === 'C8DRIFT');
/** The consoles whose drift baseline any of `replicas` has logged. */
const baselined = (replicas: BotProcess[]) =>
  new Set(
    replicas.flatMap((r) =>
      r.logs.filter((l) => l.msg === 'watch: drift baseline taken').map((l) => String(l.console)),
    ),
  );
/** Requests a console has had for its v2 firewall policies (one per drift sweep). */
const policyReads = (name: string) =>
  fleet.console(name).requests.filter((r) => r.route.includes('firewall-policies')).length;

/** Turns munich's first firewall policy off behind the bot; returns its name. */
function driftOnMunich(): string {
  const policy = fleet.console('munich').state.site('default')?.firewallPolicies[0];
  if (!policy) throw new Error('the simulator seeds firewall policies');
  changeBehindBot(fleet.console('munich').state, 'policies', policy._id, { enabled: !policy.enabled });
  return String(policy.name);
}

describe('a bot watching a fleet of three consoles', () => {
  it('takes each console’s baseline and posts a drift on munich naming munich and its site only', async () => {
    const one = await bot('fleet-watch-one');
    await slack.waitFor(() => baselined([one]).size === 3, 20_000);
    expect(baselined([one])).toEqual(new Set(CONSOLES));

    const name = driftOnMunich();
    await slack.waitFor(() => driftPosts().length >= 1, 15_000);
    // A few more sweeps of every console: nothing else is posted.
    const reads = CONSOLES.map(policyReads);
    await slack.waitFor(() => CONSOLES.every((each, i) => policyReads(each) >= (reads[i] ?? 0) + 2), 15_000);

    const posts = driftPosts();
    expect(posts).toHaveLength(1);
    const text = String(posts[0]?.args.text);
    expect(text).toContain(name);
    expect(text).toContain('(console munich, site default)');
    expect(JSON.stringify(posts[0]?.args.blocks)).toContain('console munich · site default');
    expect(text).not.toMatch(/berlin|hamburg/);
  }, 90_000);
});

describe('two replicas watching the fleet on one PostgreSQL', () => {
  const db = useTestDatabase();

  it('post a console’s drift once, each console watched by one replica', async () => {
    const env = { DATABASE_URL: db.url, REPLICA_LEASE_SECONDS: '2' };
    const [a, b] = await Promise.all([bot('fleet-watch-a', env), bot('fleet-watch-b', env)]);
    await slack.waitFor(() => baselined([a, b]).size === 3, 30_000);

    const name = driftOnMunich();
    await slack.waitFor(() => driftPosts().length >= 1, 15_000);
    const reads = policyReads('munich');
    await slack.waitFor(() => policyReads('munich') >= reads + 3, 15_000);

    const posts = driftPosts();
    expect(posts).toHaveLength(1);
    expect(String(posts[0]?.args.text)).toContain(`${name}`);
    expect(String(posts[0]?.args.text)).toContain('(console munich, site default)');
    // Each console's lease has one holder, and every console has one.
    const leases = await db.query<{ console: string; holder: string }>(
      'SELECT console, holder FROM netops_console_leases WHERE until > now() ORDER BY console',
    );
    expect(leases.rows.map((row) => row.console)).toEqual([...CONSOLES].sort());
    // One sweep a second per console, by one replica: two replicas would read it about twice as often.
    const before = policyReads('munich');
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(policyReads('munich') - before).toBeLessThanOrEqual(4);
  }, 120_000);

  it('post one fleet digest per due time, never one per console', async () => {
    // Due every 3 s (six-field cron, seconds first): each due time is claimed by one replica.
    const env = { DATABASE_URL: db.url, DIGEST_CHANNEL: 'C7DIGEST', DIGEST_CRON: '*/3 * * * * *', TZ: 'UTC' };
    const [a, b] = await Promise.all([bot('fleet-digest-a', env), bot('fleet-digest-b', env)]);
    const digests = () => slack.callsOf('chat.postMessage').filter((c) => c.args.channel === 'C7DIGEST');
    await slack.waitFor(() => digests().length >= 3, 40_000);
    const posts = digests();
    for (const post of posts) {
      expect(String(post.args.text)).toMatch(
        /^Fleet digest for \w{3} \d{1,2} \w{3} \d{4}: 3 consoles · 3 sites · /,
      );
    }
    expect(JSON.stringify(posts.map((post) => post.args.blocks))).not.toContain('Network digest');
    // One post per due time and channel among both replicas: each is logged with both, none twice.
    const logged = () =>
      [a, b]
        .flatMap((r) => r.logs.filter((l) => l.msg === 'watch: fleet digest posted'))
        .map((l) => ({ due: String(l.due), channel: String(l.channel) }));
    const toFleet = () => logged().filter((l) => l.channel === 'C7DIGEST');
    await slack.waitFor(() => toFleet().length >= posts.length, 10_000);
    const all = logged().map((l) => `${l.due} ${l.channel}`);
    expect(new Set(all).size).toBe(all.length);
    expect(toFleet().length).toBeLessThanOrEqual(digests().length);
    expect(logged().every((l) => Date.parse(l.due) % 3000 === 0)).toBe(true);
    // The channels the consoles file binds get the digest of what they are bound to, headed with it.
    const to = (channel: string) =>
      slack.callsOf('chat.postMessage').filter((c) => c.args.channel === channel)[0]?.args.text;
    await slack.waitFor(
      () => ['C0FLEET01', 'C0FLEET02', 'C0FLEET03'].every((c) => to(c) !== undefined),
      10_000,
    );
    expect(String(to('C0FLEET01'))).toMatch(/^Fleet digest · berlin for .*: 1 console · 1 site · /);
    expect(String(to('C0FLEET02'))).toMatch(/^Fleet digest · berlin · default for .*: 1 console · 1 site · /);
    expect(String(to('C0FLEET03'))).toMatch(/^Fleet digest · region=eu for .*: 3 consoles · 3 sites · /);
  }, 120_000);
});
