// The watcher on the official API: on a console whose official API offers networks, zones and policies, the
// drift sweep reads them there (not classic networkconf, v2 zones or v2 policies), shows their
// official ids, and a Revert goes through the official endpoint. A baseline read from another
// generation is taken again instead of being compared. The device poll stays one `stat/device`
// request (docs/decisions.md, "Watch", says field by field why).
import { afterEach, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/gateway/types.js';
import { silentLogger } from '../../src/log.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { changeBehindBot } from '../../src/simulator/scenario-controls.js';
import { compareSnapshots, KIND_SPECS, revertCall } from '../../src/watch/drift.js';
import type { Watcher } from '../../src/watch/index.js';
import type { Drift, WatchNotifier } from '../../src/watch/types.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { type SlackBot, startSlackBot } from '../helpers/slack-bot.js';
import { buttonsOf } from '../helpers/slack-buttons.js';
import { buttonBody } from '../helpers/slack-requests.js';
import { testGateway } from '../helpers/test-gateway.js';
import { testWatcher } from './watcher-harness.js';

const POLICY = '65b3c8e1f4a9d20c7e5a1604'; // Kids' bedtime (v2 id)
// Routes the sweep must not send on 10.1 for networks, zones and policies. (Classic networkconf is
// read there for VPN networks alone, which no official record holds: see 'VPN secrets on 10.1'.)
const PRIVATE_ROUTES = [/\/v2\/api\/site\/[^/]+\/firewall\/zone/, /firewall-policies/, /\/rest\/wlanconf/];

let bot: SlackBot | undefined;
let sim: Simulator | undefined;
let gateway: Gateway | undefined;
afterEach(async () => {
  await bot?.close();
  await gateway?.close();
  await sim?.close();
  bot = sim = gateway = undefined;
});

async function startBot(apiVersion?: string) {
  let now = Date.parse('2026-11-27T02:14:00Z');
  bot = await startSlackBot({
    env: { DRIFT_CHANNEL: 'C8DRIFT', TZ: 'UTC', ALLOW_SELF_APPROVAL: 'true' },
    now: () => now,
    ...(apiVersion ? { simulator: { apiVersion } } : {}),
  });
  const watcher = bot.app.watcher as Watcher;
  return { bot, watcher, advance: (ms: number) => (now += ms) };
}

const drifts = (b: SlackBot) =>
  b.slack.callsOf('chat.postMessage').filter((c) => c.args.channel === 'C8DRIFT');

/** Clicks Revert on a drift message and approves the change request it proposes; its tool and args. */
async function revertAndApprove(b: SlackBot, message: ReturnType<typeof drifts>[number]) {
  const driftId = String(buttonsOf(message).find((x) => x.action_id === 'revert_drift')?.value);
  const body = buttonBody({
    actionId: 'revert_drift',
    value: driftId,
    userId: 'U5',
    channel: 'C8DRIFT',
    response_url: b.slack.responseUrl(),
  });
  expect((await b.post(body)).status).toBe(200);
  const previews = () => drifts(b).filter((c) => buttonsOf(c).some((x) => x.action_id === 'approve'));
  await b.slack.waitFor(() => previews().length === 1);
  const requestId = String(buttonsOf(previews()[0]).find((x) => x.action_id === 'approve')?.value);
  await b.slack.waitFor(async () => (await b.approvals.get(requestId))?.message !== undefined);
  await b.click('approve', requestId, 'U5');
  await b.slack.waitFor(async () => (await b.approvals.get(requestId))?.state === 'succeeded');
  return b.approvals.get(requestId);
}

describe('drift on a 10.1 console', () => {
  it('reads networks, zones and policies from the official API only, and reverts a classic-made network change there', async () => {
    const { bot, watcher, advance } = await startBot();
    const site = bot.sim.state.site('default');
    const iot = site?.networks.find((n) => n.name === 'IoT');
    expect(iot?.external_id).toBeDefined();
    bot.sim.requests.length = 0;
    expect(await watcher.sweepDrift()).toEqual([]);
    // Changed through the other generation: a classic networkconf PUT, as an older tool would send.
    gateway = testGateway(bot.sim);
    await gateway.classicWrite('default', 'PUT', `rest/networkconf/${String(iot?._id)}`, { vlan: 120 });
    advance(300_000);
    const [drift, ...more] = await watcher.sweepDrift();

    // Both sweeps' reads (the PUT above is the only other request).
    const routes = bot.sim.requests.filter((r) => r.method === 'GET').map((r) => r.route);
    expect(routes.filter((r) => PRIVATE_ROUTES.some((p) => p.test(r)))).toEqual([]);
    for (const path of ['networks', 'firewall/zones', 'firewall/policies'])
      expect(routes.some((r) => r.startsWith('/integration/v1/sites/') && r.endsWith(`/${path}`))).toBe(true);
    expect(more).toEqual([]);
    expect(drift).toMatchObject({
      kind: 'networks',
      generation: 'official',
      objectId: iot?.external_id,
      objectName: 'IoT',
      fields: [{ field: 'vlanId', before: 20, after: 120 }],
    });
    expect(drift?.revertUnavailable).toBeUndefined();

    bot.sim.requests.length = 0;
    const request = await revertAndApprove(bot, drifts(bot)[0] as ReturnType<typeof drifts>[number]);
    expect(request).toMatchObject({
      tool: 'update_network',
      args: expect.objectContaining({ network_id: iot?.external_id, vlan_id: 20 }),
    });
    expect(iot?.vlan).toBe(20);
    const writes = bot.sim.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.route}`);
    expect(writes).toEqual([
      expect.stringMatching(/^PUT \/integration\/v1\/sites\/[^/]+\/networks\/[0-9a-f-]{36}$/),
    ]);
    // The revert is the bot's own change: no new drift.
    advance(300_000);
    expect(await watcher.sweepDrift()).toEqual([]);
  });

  it('reports a policy changed behind the bot by its official id and fields, and reverts it through the official PUT', async () => {
    const { bot, watcher, advance } = await startBot();
    const site = bot.sim.state.site('default');
    const policy = site?.firewallPolicies.find((p) => p._id === POLICY);
    const uuid = policy?.external_id;
    expect(uuid).toMatch(/^[0-9a-f-]{36}$/);
    const original = structuredClone(policy);
    await watcher.sweepDrift();
    changeBehindBot(bot.sim.state, 'policies', POLICY, { action: 'ALLOW', name: 'Kids anytime' });
    // A system-defined policy changed by the controller itself is not drift.
    const system = site?.firewallPolicies.find((p) => p.predefined === true);
    changeBehindBot(bot.sim.state, 'policies', String(system?._id), { name: 'Renamed by the console' });
    advance(300_000);
    const found = await watcher.sweepDrift();
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ kind: 'policies', objectId: uuid, objectName: 'Kids anytime' });
    expect(found[0]?.fields).toEqual(
      expect.arrayContaining([
        { field: 'name', before: "Kids' bedtime", after: 'Kids anytime' },
        { field: 'action.type', before: 'BLOCK', after: 'ALLOW' },
      ]),
    );
    bot.sim.requests.length = 0;
    const request = await revertAndApprove(bot, drifts(bot)[0] as ReturnType<typeof drifts>[number]);
    expect(request).toMatchObject({
      tool: 'update_firewall_policy',
      args: expect.objectContaining({ policy_id: uuid, action: 'BLOCK', name: "Kids' bedtime" }),
    });
    const writes = bot.sim.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.route}`);
    expect(writes).toEqual([`PUT ${bot.sim.requests.find((r) => r.method === 'PUT')?.route}`]);
    expect(writes[0]).toMatch(/^PUT \/integration\/v1\/sites\/[^/]+\/firewall\/policies\/[0-9a-f-]{36}$/);
    expect(site?.firewallPolicies.find((p) => p._id === POLICY)).toEqual(original);
  });
});

describe('Wi-Fi drift', () => {
  it('on 10.1: an SSID turned off behind the bot is reported by its official id and turned back on through the official PUT', async () => {
    const { bot, watcher, advance } = await startBot();
    const wlan = bot.sim.state.site('default')?.wlans.find((w) => w.name === 'Guest WiFi');
    await watcher.sweepDrift();
    changeBehindBot(bot.sim.state, 'wifi', 'Guest WiFi', { enabled: false });
    advance(300_000);
    bot.sim.requests.length = 0;
    const [drift, ...more] = await watcher.sweepDrift();

    expect(more).toEqual([]);
    expect(drift).toMatchObject({
      kind: 'wifi',
      generation: 'official',
      objectName: 'Guest WiFi',
      fields: [{ field: 'enabled', before: true, after: false }],
    });
    expect(drift?.objectId).toMatch(/^[0-9a-f-]{36}$/);
    expect(bot.sim.requests.some((r) => /wlanconf/.test(r.route))).toBe(false);
    bot.sim.requests.length = 0;
    const request = await revertAndApprove(bot, drifts(bot)[0] as ReturnType<typeof drifts>[number]);
    expect(request).toMatchObject({
      tool: 'set_wifi_broadcast_enabled',
      args: expect.objectContaining({ wifi_id: drift?.objectId, enabled: true }),
    });
    expect(wlan?.enabled).toBe(true);
    const writes = bot.sim.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.route}`);
    expect(writes).toEqual([
      expect.stringMatching(/^PUT \/integration\/v1\/sites\/[^/]+\/wifi\/broadcasts\/[0-9a-f-]{36}$/),
    ]);
  });

  it('a passphrase changed behind the bot is reported as changed, its values never posted nor stored', async () => {
    // The classic read (9.0) carries x_passphrase; so would a VPN network's pre-shared key.
    const { bot, watcher, advance } = await startBot('9.0');
    const wlan = bot.sim.state.site('default')?.wlans.find((w) => w.name === 'Home');
    const old = String(wlan?.x_passphrase);
    await watcher.sweepDrift();
    changeBehindBot(bot.sim.state, 'wifi', 'Home', { x_passphrase: 'new-and-secret-9' });
    advance(300_000);
    const [drift] = await watcher.sweepDrift();

    expect(old.length).toBeGreaterThan(7);
    expect(drift).toMatchObject({
      kind: 'wifi',
      objectName: 'Home',
      fields: [{ field: 'x_passphrase', before: '[redacted]', after: '[redacted]' }],
    });
    const posted = JSON.stringify(drifts(bot));
    expect(posted).toContain('x_passphrase');
    const stored = JSON.stringify(await bot.app.context.store.get('watch:baseline:default'));
    expect(stored).toContain('Home');
    for (const secret of [old, 'new-and-secret-9']) {
      expect(posted).not.toContain(secret);
      expect(JSON.stringify(drift)).not.toContain(secret);
      expect(stored).not.toContain(secret);
    }
    // Unchanged since: no drift again (the fingerprints of one process compare).
    advance(300_000);
    expect(await watcher.sweepDrift()).toEqual([]);
  });
});

describe('VPN secrets on 10.1', () => {
  it('a WireGuard key changed behind the bot is reported by fingerprint from classic networkconf, never by value', async () => {
    let now = Date.parse('2026-11-27T02:14:00Z');
    bot = await startSlackBot({
      env: { DRIFT_CHANNEL: 'C8DRIFT', TZ: 'UTC' },
      now: () => now,
      simulator: { apiVersion: '10.1' },
    });
    const watcher = bot.app.watcher as Watcher;
    const site = bot.sim.state.site('default');
    if (!site) throw new Error('the simulator has no default site');
    const old = 'aGVyZS1pcy10aGUtb2xkLXdpcmVndWFyZC1rZXktMQ==';
    const secret = 'aGVyZS1pcy10aGUtbmV3LXdpcmVndWFyZC1rZXktMg==';
    (site.networks as unknown as Record<string, unknown>[]).push({
      _id: '65b3c8e1f4a9d20c7e5a10f0',
      name: 'Road Warriors',
      purpose: 'remote-user-vpn',
      vpn_type: 'wireguard',
      ip_subnet: '10.41.0.1/24',
      x_wireguard_private_key: old,
      enabled: true,
    });
    expect(await watcher.sweepDrift()).toEqual([]);

    // Deliberately alike: drift of a secret per object kind; each kind redacts under its own field name.
    changeBehindBot(bot.sim.state, 'networks', 'Road Warriors', { x_wireguard_private_key: secret });
    now += 300_000;
    const [drift, ...more] = await watcher.sweepDrift();

    expect(more).toEqual([]);
    expect(drift).toMatchObject({
      kind: 'networks',
      objectName: 'Road Warriors',
      change: 'changed',
      fields: [{ field: 'x_wireguard_private_key', before: '[redacted]', after: '[redacted]' }],
    });
    const message = JSON.stringify(drifts(bot));
    expect(message).toContain('x_wireguard_private_key');
    const kept = JSON.stringify(await bot.app.context.store.get('watch:baseline:default'));
    for (const value of [old, secret]) {
      expect(message).not.toContain(value);
      expect(JSON.stringify(drift)).not.toContain(value);
      expect(kept).not.toContain(value);
    }
    now += 300_000;
    expect(await watcher.sweepDrift()).toEqual([]);
  });
});

describe('Wi-Fi secrets on 10.1', () => {
  it('a passphrase changed behind the bot is reported by fingerprint from the official details, never by value', async () => {
    let now = Date.parse('2026-11-27T02:14:00Z');
    const log = captureLogger();
    bot = await startSlackBot({
      env: { DRIFT_CHANNEL: 'C8DRIFT', TZ: 'UTC', LOG_LEVEL: 'trace' },
      now: () => now,
      simulator: { apiVersion: '10.1' },
      logger: log.logger,
    });
    const watcher = bot.app.watcher as Watcher;
    const wlan = bot.sim.state.site('default')?.wlans.find((w) => w.name === 'Home');
    const old = String(wlan?.x_passphrase);
    const secret = 'brand-new-wpa-key-42';
    expect(await watcher.sweepDrift()).toEqual([]);
    bot.sim.requests.length = 0;

    changeBehindBot(bot.sim.state, 'wifi', 'Home', { x_passphrase: secret });
    now += 300_000;
    const [drift, ...more] = await watcher.sweepDrift();

    expect(more).toEqual([]);
    expect(drift).toMatchObject({
      kind: 'wifi',
      generation: 'official',
      objectName: 'Home',
      change: 'changed',
      fields: [{ field: 'securityConfiguration.passphrase', before: '[redacted]', after: '[redacted]' }],
    });
    // Read from the official details, not classic wlanconf.
    const routes = bot.sim.requests.filter((r) => r.method === 'GET').map((r) => r.route);
    expect(routes.filter((r) => /wlanconf/.test(r))).toEqual([]);
    expect(routes.some((r) => r.endsWith(`/wifi/broadcasts/${String(drift?.objectId)}`))).toBe(true);
    // No Revert: the toggle tool cannot set a passphrase.
    expect(drift?.revertUnavailable).toContain('securityConfiguration.passphrase cannot be set');
    const posted = drifts(bot);
    expect(posted).toHaveLength(1);
    const message = JSON.stringify(posted[0]?.args);
    expect(message).toContain('securityConfiguration.passphrase');
    expect(message).toContain('Home');
    const keys = await bot.app.context.store.keys();
    const kept = JSON.stringify(
      await Promise.all(keys.filter((k) => k.startsWith('watch:')).map((k) => bot?.app.context.store.get(k))),
    );
    expect(kept).toContain('securityConfiguration');
    const logged = JSON.stringify(log.lines());
    expect(logged).toContain('configuration changed outside the bot');
    for (const value of [old, secret]) {
      expect(message).not.toContain(value);
      expect(JSON.stringify(drift)).not.toContain(value);
      expect(kept).not.toContain(value);
      expect(logged).not.toContain(value);
    }
    // Unchanged since: nothing more.
    now += 300_000;
    expect(await watcher.sweepDrift()).toEqual([]);
  });

  it('a baseline of the overview list is taken again once, silently, not reported as new fields', async () => {
    const { bot, watcher, advance } = await startBot();
    await watcher.sweepDrift();
    // A baseline stored by a version that kept the list: no shapes, Wi-Fi records without details.
    const store = bot.app.context.store;
    const baseline = (await store.get('watch:baseline:default')) as {
      snapshot: { wifi: Record<string, Record<string, unknown>> };
      shapes?: unknown;
    };
    for (const record of Object.values(baseline.snapshot.wifi)) {
      record.securityConfiguration = { type: 'WPA2_PERSONAL' };
      delete record.hideName;
    }
    delete baseline.shapes;
    await store.set('watch:baseline:default', baseline);

    advance(300_000);
    expect(await watcher.sweepDrift()).toEqual([]);
    changeBehindBot(bot.sim.state, 'wifi', 'Home-IoT', { x_passphrase: 'another-new-key-77' });
    advance(300_000);
    const found = await watcher.sweepDrift();

    expect(found.map((d) => [d.objectName, d.fields.map((f) => f.field)])).toEqual([
      ['Home-IoT', ['securityConfiguration.passphrase']],
    ]);
  });
});

describe('the bot’s own network changes', () => {
  it('are not drift, nor is the zone a new network joins', async () => {
    const { bot, watcher, advance } = await startBot();
    await watcher.sweepDrift();
    const { id } = await bot.propose('create_network name=Lab vlan_id=70 subnet=10.70.0.1/24');
    await bot.click('approve', id, 'U1');
    await bot.slack.waitFor(async () => (await bot.approvals.get(id))?.state === 'succeeded');
    // The controller put the new network in a zone (Internal): that list changed with the bot's write.
    const internal = bot.sim.state.site('default')?.zones.find((z) => z.name === 'Internal');
    const lab = bot.sim.state.site('default')?.networks.find((n) => n.name === 'Lab');
    expect(internal?.networkIds).toContain(lab?.external_id);
    advance(300_000);
    expect(await watcher.sweepDrift()).toEqual([]);
    expect(drifts(bot)).toEqual([]);
  });
});

// ------------------------------------------------------------- a change of API generation

const notifier: WatchNotifier = {
  postIncident: async () => undefined,
  updateIncident: async () => {},
  postDrift: async () => ({ channel: 'C8DRIFT', ts: '1' }),
  updateDrift: async () => {},
  postDigest: async () => undefined,
  postAlarmSummary: async () => undefined,
};

/** The simulator's gateway, whose official API is hidden until `upgrade()` (a 9.0 console, then 10.1). */
function upgradableGateway(real: Gateway) {
  let official = false;
  const proxy = new Proxy(real, {
    get(target, key) {
      if (key === 'offers')
        return async (op: Parameters<Gateway['offers']>[0]) => official && target.offers(op);
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { gateway: proxy, upgrade: () => (official = true) };
}

const watcherOn = (g: Gateway, logger = silentLogger()) => testWatcher(g, notifier, { logger });

describe('drift across a change of API generation', () => {
  it('takes the baseline again silently when kinds move to the official API, says so once, then reports official ids', async () => {
    sim = await startSimulator();
    gateway = testGateway(sim);
    const console = upgradableGateway(gateway);
    const log = captureLogger();
    const { watcher } = watcherOn(console.gateway, log.logger);
    expect(await watcher.sweepDrift()).toEqual([]); // baseline: classic networks, v2 zones and policies
    console.upgrade();
    changeBehindBot(sim.state, 'policies', POLICY, { enabled: false });
    const regenerated = () => log.lines().filter((l) => l.msg.includes('taken again'));

    expect(await watcher.sweepDrift()).toEqual([]);
    expect(regenerated()).toHaveLength(1);
    expect(regenerated()[0]?.kinds).toEqual([
      { kind: 'networks', from: 'classic', to: 'official' },
      { kind: 'zones', from: 'v2', to: 'official' },
      { kind: 'policies', from: 'v2', to: 'official' },
      { kind: 'wifi', from: 'classic', to: 'official' },
    ]);

    changeBehindBot(sim.state, 'policies', POLICY, { enabled: true });
    const found: Drift[] = await watcher.sweepDrift();
    expect(found.map((d) => [d.kind, d.objectId, d.fields.map((f) => f.field)])).toEqual([
      [
        'policies',
        sim.state.site('default')?.firewallPolicies.find((p) => p._id === POLICY)?.external_id,
        ['enabled'],
      ],
    ]);
    expect(regenerated()).toHaveLength(1);
  });

  it('treats a baseline recorded before generations were (no sources) as the private reads', async () => {
    sim = await startSimulator();
    gateway = testGateway(sim);
    const console = upgradableGateway(gateway);
    const { watcher, data } = watcherOn(console.gateway);
    await watcher.sweepDrift();
    const key = 'watch:baseline:default';
    const { sources: _sources, ...legacy } = (await data.get<Record<string, unknown>>(key)) ?? {};
    await data.set(key, legacy);
    console.upgrade();
    expect(await watcher.sweepDrift()).toEqual([]);
    changeBehindBot(sim.state, 'networks', 'Guest', { name: 'Visitors' });
    const [drift] = await watcher.sweepDrift();
    expect(drift).toMatchObject({ kind: 'networks', objectName: 'Visitors', generation: 'official' });
    expect(drift?.objectId).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('official reads leave out what the controller keeps itself', () => {
  it('drops system-defined and derived policies, keeps user-defined ones', async () => {
    const records = [
      { id: 'a', name: 'Mine', metadata: { origin: 'USER_DEFINED' } },
      { id: 'b', name: 'Allow All Traffic', metadata: { origin: 'SYSTEM_DEFINED' } },
      { id: 'c', name: 'Mine (return)', metadata: { origin: 'DERIVED' } },
    ];
    const fake = {
      integrationList: async () => ({ items: records, skipped: 0 }),
    } as unknown as Gateway;
    const read = KIND_SPECS.policies.official?.read;
    expect((await read?.(fake, 'default'))?.map((r) => r.id)).toEqual(['a']);
  });
});

describe('the device poll on a 10.1 console', () => {
  it('is one stat/device request, whatever the official API offers', async () => {
    sim = await startSimulator();
    gateway = testGateway(sim);
    expect(await gateway.offers('devices.read')).toBe(true);
    const { watcher } = watcherOn(gateway);
    sim.requests.length = 0;
    await watcher.poll();
    expect(sim.requests.map((r) => `${r.method} ${r.route}`)).toEqual(['GET /api/s/default/stat/device']);
  });
});

describe('Revert of an official record', () => {
  const net = (ipv4: Record<string, unknown>, more: Record<string, unknown> = {}) => ({
    id: 'n1',
    name: 'IoT',
    management: 'GATEWAY',
    vlanId: 20,
    ipv4Configuration: { hostIpAddress: '10.0.20.1', prefixLength: 24, ...ipv4 },
    ...more,
  });
  const server = (more: Record<string, unknown> = {}) => ({
    mode: 'SERVER',
    ipAddressRange: { start: '10.0.20.6', stop: '10.0.20.254' },
    leaseTimeSeconds: 86400,
    pingConflictDetectionEnabled: false,
    dnsServerIpAddressesOverride: ['1.1.1.1'],
    ...more,
  });
  const drift = (
    kind: 'networks' | 'policies',
    before: Record<string, unknown>,
    after: Record<string, unknown>,
  ) => {
    const [found] = compareSnapshots(
      'default',
      { [kind]: { [String(before.id)]: before } },
      { [kind]: { [String(after.id)]: after } },
      0,
      new Set(),
      { [kind]: 'official' },
    );
    if (!found) throw new Error('no drift');
    return found;
  };

  it('puts a subnet and a DHCP server back with update_network, clearing a DNS server added since', () => {
    const d = drift(
      'networks',
      net({ dhcpConfiguration: server() }),
      net({
        prefixLength: 16,
        dhcpConfiguration: server({ dnsServerIpAddressesOverride: ['1.1.1.1', '9.9.9.9'] }),
      }),
    );
    expect(d.fields.map((f) => f.field)).toEqual([
      'ipv4Configuration.prefixLength',
      'ipv4Configuration.dhcpConfiguration',
    ]);
    expect(revertCall(d)?.args).toEqual({
      site_id: 'default',
      network_id: 'n1',
      subnet: '10.0.20.1/24',
      dhcp_enabled: true,
      dhcp_start: '10.0.20.6',
      dhcp_stop: '10.0.20.254',
      dhcp_dns_1: '1.1.1.1',
      dhcp_dns_2: '',
      dhcp_dns_3: '',
      dhcp_dns_4: '',
      domain_name: '',
    });
  });

  it('offers no Revert for what update_network cannot set, naming the inner field (a lease time, enabled)', () => {
    const d = drift(
      'networks',
      net({ dhcpConfiguration: server() }, { enabled: true }),
      net({ dhcpConfiguration: server({ leaseTimeSeconds: 600 }) }, { enabled: false }),
    );
    expect(d.revertUnavailable).toBe(
      'ipv4Configuration.dhcpConfiguration.leaseTimeSeconds, enabled cannot be set by update_network',
    );
    expect(revertCall(d)).toBeUndefined();
  });

  it('turns a DHCP server switched off back on, unless its lease time is one a new server does not get', () => {
    const off = net({});
    const back = drift('networks', net({ dhcpConfiguration: server() }), off);
    expect(revertCall(back)?.args).toMatchObject({ dhcp_enabled: true, dhcp_start: '10.0.20.6' });
    const short = drift('networks', net({ dhcpConfiguration: server({ leaseTimeSeconds: 3600 }) }), off);
    expect(short.revertUnavailable).toBe(
      'ipv4Configuration.dhcpConfiguration.leaseTimeSeconds cannot be set by update_network',
    );
  });

  it('puts a network made vlan-only back as the gateway network it was, and one made a gateway network back to vlan-only', () => {
    const gateway = net(
      { autoScaleEnabled: false, dhcpConfiguration: server() },
      {
        isolationEnabled: true,
        cellularBackupEnabled: false,
        internetAccessEnabled: true,
        mdnsForwardingEnabled: false,
        zoneId: 'z1',
      },
    );
    const vlanOnly = { id: 'n1', name: 'IoT', management: 'UNMANAGED', vlanId: 20 };
    const made = drift('networks', gateway, vlanOnly);
    expect(made.revertUnavailable).toBeUndefined();
    expect(revertCall(made)?.args).toMatchObject({
      purpose: 'guest',
      subnet: '10.0.20.1/24',
      dhcp_enabled: true,
      dhcp_dns_1: '1.1.1.1',
    });
    const unmade = drift('networks', vlanOnly, gateway);
    expect(revertCall(unmade)?.args).toEqual({ site_id: 'default', network_id: 'n1', purpose: 'vlan-only' });
    // A flag update_network does not give a new gateway network: named, no Revert.
    const mdns = drift('networks', { ...gateway, mdnsForwardingEnabled: true }, vlanOnly);
    expect(mdns.revertUnavailable).toBe('mdnsForwardingEnabled cannot be set by update_network');
  });

  it('names a zone move and an untagging as what update_network cannot undo', () => {
    const zoned = (zoneId: string, vlanId: number) => ({ ...net({}), zoneId, vlanId });
    expect(drift('networks', zoned('z1', 20), zoned('z2', 20)).revertUnavailable).toBe(
      'zoneId cannot be set by update_network',
    );
    expect(drift('networks', zoned('z1', 1), zoned('z1', 5)).revertUnavailable).toBe(
      'vlanId cannot be set by update_network',
    );
    expect(revertCall(drift('networks', zoned('z1', 20), zoned('z1', 5)))?.args).toMatchObject({
      vlan_id: 20,
    });
  });

  it('restores a policy’s action with its return traffic as update_firewall_policy sets it', () => {
    const policy = (action: Record<string, unknown>) => ({
      id: 'p1',
      name: 'Kids',
      action,
      loggingEnabled: false,
    });
    const back = drift(
      'policies',
      policy({ type: 'BLOCK' }),
      policy({ type: 'ALLOW', allowReturnTraffic: true }),
    );
    expect(revertCall(back)?.args).toEqual({ site_id: 'default', policy_id: 'p1', action: 'BLOCK' });
    // An ALLOW without return traffic is not something the tool writes.
    const lost = drift(
      'policies',
      policy({ type: 'ALLOW', allowReturnTraffic: false }),
      policy({ type: 'BLOCK' }),
    );
    expect(lost.revertUnavailable).toBe('action.allowReturnTraffic cannot be set by update_firewall_policy');
  });

  it('offers no Revert for a zone read from v2 (a console without official zones, where the zone tools are refused)', () => {
    const zone = (name: string) => ({ _id: 'z1', name, network_ids: [] });
    const [v2Zone] = compareSnapshots(
      'default',
      { zones: { z1: zone('Lab') } },
      { zones: { z1: zone('Lab 2') } },
      0,
      new Set(),
      { zones: 'v2' },
    );
    const [officialZone] = compareSnapshots(
      'default',
      { zones: { z1: { id: 'z1', name: 'Lab', networkIds: [] } } },
      { zones: { z1: { id: 'z1', name: 'Lab 2', networkIds: [] } } },
      0,
      new Set(),
      { zones: 'official' },
    );

    expect(v2Zone?.revertUnavailable).toMatch(/update_firewall_zone needs the official zones API.*10\.1/);
    expect(revertCall(v2Zone as NonNullable<typeof v2Zone>)).toBeUndefined();
    expect(officialZone?.revertUnavailable).toBeUndefined();
  });
});
