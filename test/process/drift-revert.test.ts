// Drift through the built program, on a 9.0 console (classic networkconf and wlanconf) and a 10.1
// console (official network and Wi-Fi details): every field update_network sets on a network, and
// the one set_wifi_broadcast_enabled sets on an SSID, changed behind the bot, is posted with Revert;
// Revert, approved, puts the record back as it was. A field neither tool sets is posted without
// Revert, naming that field. One bot per console; every change lands in one sweep.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NetworkConf, type Simulator, startSimulator } from '../../src/simulator/index.js';
import { changeBehindBot } from '../../src/simulator/scenario-controls.js';
import { assignDefaultZone } from '../../src/simulator/zone-membership.js';
import { CLASSIC_NETWORK_FIELDS } from '../../src/watch/network-revert.js';
import { type FakeSlack, type SlackCall, startFakeSlack } from '../helpers/fake-slack.js';
import { type BotProcess, requireBuild, startBotProcess } from '../helpers/replica-process.js';
import { buttonBody } from '../helpers/slack-requests.js';

const SECRET = 'drift-revert-signing-secret';
const CHANNEL = 'C7DRIFT';
const APPROVER = 'U0005';

/** A network of the demo site's shape (the UDM capture's keys), on its own VLAN and subnet. */
function network(n: number, settings: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: `Drift ${n}`,
    enabled: true,
    networkgroup: 'LAN',
    purpose: 'corporate',
    vlan_enabled: true,
    vlan: 100 + n,
    ip_subnet: `10.${100 + n}.0.1/24`,
    dhcpd_enabled: true,
    dhcpd_start: `10.${100 + n}.0.6`,
    dhcpd_stop: `10.${100 + n}.0.254`,
    dhcpd_leasetime: 86400,
    dhcpd_dns_enabled: false,
    dhcpd_dns_1: '',
    dhcpd_dns_2: '',
    dhcpd_dns_3: '',
    dhcpd_dns_4: '',
    domain_name: '',
    dhcpd_gateway_enabled: false,
    igmp_snooping: false,
    auto_scale_enabled: false,
    lte_lan_enabled: false,
    ...settings,
  };
}

const VLAN_ONLY = { name: 'Drift tag', enabled: true, networkgroup: 'LAN', purpose: 'vlan-only' };

type Version = '9.0' | '10.1';

interface Case {
  /** What changes, as the test names it. */
  label: string;
  /** The network before (one made for the case). */
  start: Record<string, unknown>;
  /** What is changed behind the bot. */
  change: (start: Record<string, unknown>) => Record<string, unknown>;
  /** Where update_network cannot put it back: what the drift says instead of offering Revert. */
  says?: Partial<Record<Version, string>>;
}

/**
 * Every field update_network sets, each on its own network changed in that field (and what follows
 * it), then two it does not set.
 */
const CASES: Case[] = [
  { label: 'name', start: network(1), change: () => ({ name: 'Renamed behind the bot' }) },
  { label: 'vlan', start: network(2), change: () => ({ vlan: 202 }) },
  { label: 'vlan_enabled', start: network(3), change: () => ({ vlan_enabled: false }) },
  { label: 'purpose corporate → guest', start: network(4), change: () => ({ purpose: 'guest' }) },
  {
    label: 'purpose guest → corporate',
    start: network(5, { purpose: 'guest' }),
    change: () => ({ purpose: 'corporate' }),
  },
  { label: 'purpose → vlan-only', start: network(6), change: () => ({ purpose: 'vlan-only' }) },
  {
    label: 'purpose vlan-only → corporate',
    start: { ...VLAN_ONLY, vlan_enabled: true, vlan: 107, dhcpd_enabled: false },
    change: () => ({
      purpose: 'corporate',
      ip_subnet: '10.107.0.1/24',
      dhcpd_enabled: true,
      dhcpd_start: '10.107.0.6',
      dhcpd_stop: '10.107.0.254',
    }),
    // A classic PUT keeps the keys it is not sent: the address plan added would stay stored. The
    // official PUT replaces the network, and a vlan-only one has no address plan.
    says: {
      '9.0':
        'ip_subnet, dhcpd_start, dhcpd_stop were not set before, and update_network cannot remove a stored field',
    },
  },
  {
    label: 'ip_subnet',
    start: network(8),
    change: () => ({ ip_subnet: '10.208.0.1/24', dhcpd_start: '10.208.0.6', dhcpd_stop: '10.208.0.254' }),
  },
  { label: 'dhcpd_enabled off', start: network(9), change: () => ({ dhcpd_enabled: false }) },
  {
    label: 'dhcpd_enabled on',
    start: network(10, { dhcpd_enabled: false }),
    change: () => ({ dhcpd_enabled: true }),
  },
  {
    label: 'dhcpd_start, dhcpd_stop',
    start: network(11),
    change: () => ({ dhcpd_start: '10.111.0.50', dhcpd_stop: '10.111.0.60' }),
  },
  {
    label: 'dhcpd_dns_1',
    start: network(12),
    change: () => ({ dhcpd_dns_enabled: true, dhcpd_dns_1: '9.9.9.9' }),
  },
  {
    label: 'dhcpd_dns_2, dhcpd_dns_3, dhcpd_dns_4',
    start: network(13, { dhcpd_dns_enabled: true, dhcpd_dns_1: '9.9.9.9' }),
    change: () => ({ dhcpd_dns_2: '1.1.1.1', dhcpd_dns_3: '8.8.8.8', dhcpd_dns_4: '8.8.4.4' }),
  },
  {
    label: 'dhcpd_dns_enabled off',
    start: network(14, { dhcpd_dns_enabled: true, dhcpd_dns_1: '9.9.9.9' }),
    change: () => ({ dhcpd_dns_enabled: false }),
  },
  { label: 'domain_name', start: network(15), change: () => ({ domain_name: 'elsewhere.lan' }) },
  {
    label: 'domain_name cleared',
    start: network(16, { domain_name: 'lab.lan' }),
    change: () => ({ domain_name: '' }),
  },
  {
    label: 'dhcpd_leasetime',
    start: network(17),
    change: () => ({ dhcpd_leasetime: 600 }),
    says: {
      '9.0': 'dhcpd_leasetime cannot be set by update_network',
      '10.1': 'ipv4Configuration.dhcpConfiguration.leaseTimeSeconds cannot be set by update_network',
    },
  },
  {
    label: 'enabled',
    start: network(18),
    change: () => ({ enabled: false }),
    says: {
      '9.0': 'enabled cannot be set by update_network',
      '10.1': 'enabled cannot be set by update_network',
    },
  },
];

let slack: FakeSlack;
const policyDir = mkdtempSync(join(tmpdir(), 'netops-drift-revert-policy-'));
const POLICY_FILE = join(policyDir, 'policy.yaml');
// One approval whatever the risk: re-tagging a network with clients is high risk, and what this
// test holds is what a Revert writes, not how many approve it.
writeFileSync(POLICY_FILE, 'defaults:\n  high_risk_approvals: 1\n');

beforeAll(async () => {
  requireBuild();
  slack = await startFakeSlack();
});
afterAll(async () => {
  await slack?.close();
});

it('covers every networkconf field update_network sets with a case it can revert', () => {
  const changed = CASES.filter((c) => !c.says?.['9.0']).flatMap((c) => Object.keys(c.change(c.start)));
  expect(Object.keys(CLASSIC_NETWORK_FIELDS).filter((field) => !changed.includes(field))).toEqual([]);
});

type Posted = { elements?: { action_id: string; value: string }[] }[];
const buttonsOf = (call: SlackCall | undefined) =>
  ((call?.args.blocks ?? []) as Posted).flatMap((b) => b.elements ?? []).filter((e) => e.action_id);

describe.each(['9.0', '10.1'] as const)('drift of every settable field on %s', (version: Version) => {
  let sim: Simulator;
  let bot: BotProcess;
  const records = new Map<string, NetworkConf>();
  beforeAll(async () => {
    sim = await startSimulator({ apiVersion: version });
    const site = sim.state.site('default');
    if (!site) throw new Error('no default site');
    for (const { start } of CASES) {
      const record = {
        ...start,
        _id: sim.state.newObjectId(),
        site_id: site._id,
        external_id: sim.state.newUuid(),
      } as NetworkConf;
      site.networks.push(record);
      assignDefaultZone(site, record);
      records.set(String(start.name), record);
    }
    bot = await startBotProcess(
      `drift-revert-${version}`,
      {
        SLACK_BOT_TOKEN: 'xoxb-drift-revert',
        SLACK_API_URL: slack.apiUrl,
        GATEWAY_URL: sim.url,
        GATEWAY_API_KEY: sim.apiKey,
        DRIFT_CHANNEL: CHANNEL,
        DRIFT_INTERVAL_SECONDS: '1',
        TELEMETRY_INTERVAL_SECONDS: '0',
        ALLOW_SELF_APPROVAL: 'true',
        APPROVERS: APPROVER,
        POLICY_FILE,
      },
      SECRET,
    );
  }, 30_000);
  afterAll(async () => {
    await bot?.kill('SIGKILL');
    await sim?.close();
    slack.calls.length = 0;
  });

  it('posts each with Revert, or without it naming the field; Revert puts every record back as it was', async () => {
    await slack.waitFor(() => bot.logs.some((l) => l.msg === 'watch: drift baseline taken'), 20_000);
    const site = sim.state.site('default');
    const ssid = site?.wlans.find((w) => w.name === 'Home-IoT');
    const hidden = site?.wlans.find((w) => w.name === 'Guest WiFi');
    if (!site || !ssid || !hidden) throw new Error('the demo site is missing its SSIDs');
    // Each object as it was, and the name its drift message gives it (the name after the change).
    const settable: { name: string; now: () => unknown; was: unknown }[] = [];
    const notSettable: { name: string; says: string }[] = [];
    const stored = (id: string) => () => site.networks.find((n) => n._id === id);
    for (const c of CASES) {
      const record = records.get(String(c.start.name)) as NetworkConf;
      const was = structuredClone(record);
      const change = c.change(c.start);
      changeBehindBot(sim.state, 'networks', record._id, change);
      const name = String(change.name ?? c.start.name);
      const says = c.says?.[version];
      if (says) notSettable.push({ name, says });
      else settable.push({ name, now: stored(record._id), was });
    }
    const ssidWas = structuredClone(ssid);
    changeBehindBot(sim.state, 'wifi', ssid._id, { enabled: false });
    settable.push({ name: ssid.name, now: () => site.wlans.find((w) => w._id === ssid._id), was: ssidWas });
    changeBehindBot(sim.state, 'wifi', hidden._id, { hide_ssid: true });
    notSettable.push({
      name: hidden.name,
      says: `${version === '10.1' ? 'hideName' : 'hide_ssid'} cannot be set by set_wifi_broadcast_enabled`,
    });

    // One sweep: a message per object.
    const posted = () =>
      slack.callsOf('chat.postMessage').filter((c) => c.args.channel === CHANNEL && c.args.text);
    const driftOf = (name: string) =>
      posted().find((c) => String(c.args.text).endsWith(` ${name} was changed outside the bot`));
    const all = [...settable, ...notSettable];
    await slack.waitFor(() => all.every((o) => driftOf(o.name)), 30_000);
    for (const { name } of settable) {
      const message = driftOf(name);
      expect(JSON.stringify(message?.args.blocks), name).not.toContain('no Revert');
      expect(
        buttonsOf(message).map((b) => b.action_id),
        name,
      ).toEqual(['accept_drift', 'revert_drift']);
    }
    for (const { name, says } of notSettable) {
      const message = driftOf(name);
      expect(JSON.stringify(message?.args.blocks), name).toContain(`no Revert: ${says}`);
      expect(
        buttonsOf(message).map((b) => b.action_id),
        name,
      ).toEqual(['accept_drift']);
    }

    // Revert each: a change request, previewed and approved like any other.
    const click = (actionId: string, value: string) =>
      bot.post(
        buttonBody({
          actionId,
          value,
          userId: APPROVER,
          channel: CHANNEL,
          response_url: slack.responseUrl(),
        }),
      );
    for (const { name } of settable) {
      const id = buttonsOf(driftOf(name)).find((b) => b.action_id === 'revert_drift')?.value ?? '';
      expect(await click('revert_drift', id)).toBe(200);
    }
    const approvals = () => posted().flatMap((c) => buttonsOf(c).filter((b) => b.action_id === 'approve'));
    await slack.waitFor(() => approvals().length === settable.length, 30_000);
    // A preview is recorded before its click is taken.
    await new Promise((r) => setTimeout(r, 500));
    for (const { value } of approvals()) {
      expect(await bot.click('approve', value, APPROVER, slack.responseUrl())).toBe(200);
    }
    // Waited for, then compared one by one: a record left different is named with its difference.
    await slack
      .waitFor(() => settable.every((o) => isDeepStrictEqual(o.now(), o.was)), 30_000)
      .catch(() => undefined);
    for (const { name, now, was } of settable) expect(now(), name).toEqual(was);
  }, 120_000);
});
