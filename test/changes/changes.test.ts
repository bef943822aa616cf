import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Approvals, SYSTEM_ACTOR } from '../../src/approvals/approvals.js';
import { requestSummary } from '../../src/approvals/history.js';
import { splitMetaArgs } from '../../src/changes/meta-args.js';
import { ConflictError, GatewayUnavailableError, ValidationError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import type { FileStore } from '../../src/store/file/file-store.js';
import { approvalsInTempDir } from '../approvals/bot-harness.js';
import {
  ALEX,
  Clock,
  journalEvents,
  policyWith,
  RITA,
  STAN,
  type tempDataDir,
} from '../approvals/harness.js';
import { useTestBot } from '../helpers/tool-test.js';

// Networks serve as the sample here on their classic path (networkconf, its faults and stored
// fields): a 9.0 console. The official path (10.1): tools/networks-official.test.ts.
const bot = useTestBot({ simulator: { apiVersion: '9.0' } });
let data: ReturnType<typeof tempDataDir>;
let store: FileStore;
let approvals: Approvals;

const networks = () => structuredClone(bot.site().networks);
const network = (name: string) => bot.site().networks.find((n) => n.name === name);
/** A network's record without the fields a re-creation cannot keep (its ids). */
const withoutIds = (record: unknown) => {
  const { _id: _a, external_id: _b, ...rest } = record as Record<string, unknown>;
  return rest;
};

/** ALEX approves; a high-risk change (two approvals by default) is approved by STAN too. */
async function approveAll(id: string) {
  const first = await approvals.approve(id, ALEX);
  return first.kind === 'endorsed' ? approvals.approve(id, STAN) : first;
}

async function approved(tool: string, args: Record<string, unknown>) {
  const request = await approvals.propose({ tool, args, requester: RITA });
  const outcome = await approveAll(request.id);
  if (outcome.kind !== 'succeeded') throw new Error(`${tool} ${outcome.kind} ${JSON.stringify(outcome)}`);
  return outcome;
}

async function revert(id: string) {
  const request = await approvals.proposeRevert({ changeId: id, requester: RITA });
  const outcome = await approveAll(request.id);
  if (outcome.kind !== 'succeeded') throw new Error(`revert ${outcome.kind}: ${JSON.stringify(outcome)}`);
  return { request, outcome };
}

beforeEach(async () => {
  bot.sim.clearFaults();
  ({ data, store, approvals } = await approvalsInTempDir(bot.app));
});
afterEach(async () => {
  await store.close();
  data.remove();
});

describe('before, after, verified', () => {
  it('keeps the before- and after-images of an update and says verified; the journal has both', async () => {
    const { request } = await approved('update_network', { network_id: 'IoT', vlan_id: 21 });
    expect(request.before?.objects?.[`network ${network('IoT')?._id}`]).toMatchObject({ vlan: 20 });
    expect(request.after?.objects?.[`network ${network('IoT')?._id}`]).toMatchObject({ vlan: 21 });
    expect(request.verification).toEqual({ status: 'verified' });
    const events = journalEvents(data.journal).filter((e) => e.id === request.id);
    expect(events.map((e) => e.type)).toEqual(['created', 'approved', 'executing', 'succeeded', 'verified']);
    expect(events[2]).toMatchObject({ before: { objects: expect.any(Object) } });
  });

  it('says "applied, not as sent" with each field the controller holds differently', async () => {
    bot.sim.injectFault({ kind: 'store-as', method: 'PUT', route: 'rest/networkconf', set: { vlan: 2 } });
    const { request } = await approved('update_network', { network_id: 'IoT', vlan_id: 31 });
    expect(request.verification?.status).toBe('not_as_sent');
    expect(request.verification?.mismatches).toEqual([
      expect.objectContaining({ field: 'vlan', sent: 31, holds: 2 }),
    ]);
    const history = await approvals.history(request.id);
    const verified = history?.events.find((e) => e.type === 'verified');
    expect(verified).toBeDefined();
  });

  it('verifies a delete gone', async () => {
    const { request } = await approved('delete_network', { network_id: 'Servers' });
    expect(request.verification).toEqual({ status: 'verified' });
    expect(Object.values(request.after?.objects ?? {})).toEqual([null]);
    expect(network('Servers')).toBeUndefined();
  });

  it('an after-image that cannot be read is "not verified: why"; the write ran once, not retried', async () => {
    // A controller that stops answering reads once the write went out.
    let wrote = false;
    const gateway = new Proxy(bot.app.context.gateway, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (property === 'classicWrite') wrote = true;
          else if (wrote && property === 'classicRead') {
            return Promise.reject(new GatewayUnavailableError('the controller did not answer'));
          }
          return value.apply(target, args);
        };
      },
    });
    const own = await Approvals.open({
      store: store.changes(),
      registry: bot.app.registry,
      context: { ...bot.app.context, gateway },
      policy: policyWith(),
      ttlSeconds: 900,
      logger: silentLogger(),
      now: new Clock().now,
    });
    bot.sim.clearRequests();
    const proposed = await own.propose({
      tool: 'update_network',
      args: { network_id: 'Guest', name: 'Visitors' },
      requester: RITA,
    });
    const outcome = await own.approve(proposed.id, ALEX);
    expect(outcome.kind).toBe('succeeded');
    if (outcome.kind !== 'succeeded') return;
    expect(outcome.request.verification?.status).toBe('unverified');
    expect(outcome.request.verification?.reason).toContain('could not be read');
    expect(outcome.request.before?.objects).toBeDefined();
    expect(bot.sim.requests.filter((r) => r.method === 'PUT')).toHaveLength(1);
    expect(network('Visitors')).toBeDefined();
  });
});

describe('revert', () => {
  // Deliberately alike: one revert case per kind of write: each approves its own change and checks the record.
  it('an update: the network record is whole again', async () => {
    const start = networks();
    const { request } = await approved('update_network', {
      network_id: 'IoT',
      vlan_id: 25,
      subnet: '10.25.0.0/24',
      name: 'Things',
    });
    const dns = await approved('update_network', {
      network_id: 'Cameras',
      dhcp_dns_1: '1.1.1.1',
      dhcp_dns_2: '',
    });
    await revert(dns.request.id);
    const { outcome } = await revert(request.id);
    expect(networks()).toEqual(start);
    expect(outcome.request.revertOf).toBe(request.id);
    expect((await approvals.get(request.id))?.revertedBy).toBe(outcome.request.id);
    await expect(approvals.proposeRevert({ changeId: request.id, requester: RITA })).rejects.toThrow(
      /reverted already/,
    );
  });

  it('a create: the created network is deleted', async () => {
    const start = networks();
    const { request } = await approved('create_network', {
      name: 'Lab',
      vlan_id: 44,
      subnet: '10.44.0.0/24',
    });
    expect(network('Lab')).toBeDefined();
    await revert(request.id);
    expect(networks()).toEqual(start);
  });

  it('a delete: re-created from its before-image (a new id), references listed in the preview', async () => {
    // A network the bot created (the demo's records lack the defaults a controller fills in).
    await bot.run('create_network', {
      name: 'Lab',
      vlan_id: 44,
      subnet: '10.44.0.0/24',
      dhcp_dns_1: '9.9.9.9',
      domain_name: 'lab.example',
      confirm: true,
    });
    const before = network('Lab');
    const { request } = await approved('delete_network', { network_id: 'Lab' });
    const proposed = await approvals.proposeRevert({ changeId: request.id, requester: RITA });
    expect(proposed.tool).toBe('create_network');
    expect(JSON.stringify(proposed.preview)).toContain('new id');
    await approvals.approve(proposed.id, ALEX);
    const after = network('Lab');
    expect(after?._id).not.toBe(before?._id);
    expect(withoutIds(after)).toEqual(withoutIds(before));
  });

  it('shows before / after / now when the object changed since, and still runs once approved', async () => {
    const start = networks();
    const { request } = await approved('update_network', { network_id: 'Guest', vlan_id: 31 });
    // Someone else renames it meanwhile.
    const guest = network('Guest');
    if (guest) guest.name = 'Visitors';
    const proposed = await approvals.proposeRevert({ changeId: request.id, requester: RITA });
    const preview = proposed.preview as Record<string, unknown>;
    expect(preview.changed_since).toBe(true);
    expect(preview.before_after_now).toEqual(
      expect.arrayContaining([
        { field: 'name', before: 'Guest', after: 'Guest', now: 'Visitors' },
        { field: 'vlan', before: 30, after: 31, now: 31 },
      ]),
    );
    expect(String((preview.warnings as string[])[0])).toContain('changed since');
    const outcome = await approvals.approve(proposed.id, ALEX);
    expect(outcome.kind).toBe('succeeded');
    expect(network('Visitors')?.vlan).toBe(30);
    expect(withoutIds({ ...network('Visitors'), name: 'Guest' })).toEqual(
      withoutIds(start.find((n) => n.name === 'Guest')),
    );
  });

  it('block_client ↔ unblock_client, and set_wifi_broadcast_enabled puts the previous value back', async () => {
    const blocked = await approved('block_client', { client: 'Gaming PC' });
    expect(blocked.request.verification).toEqual({ status: 'verified' });
    const back = await revert(blocked.request.id);
    expect(back.request.tool).toBe('unblock_client');
    expect(back.outcome.request.verification).toEqual({ status: 'verified' });
    expect(back.outcome.request.after?.objects).toEqual({
      'client d8:bb:c1:02:77:05': { mac: 'd8:bb:c1:02:77:05', name: 'Gaming PC', blocked: false },
    });

    const wlans = structuredClone(bot.site().wlans);
    const off = await approved('set_wifi_broadcast_enabled', { wifi_id: wlans[0]?.name, enabled: false });
    await revert(off.request.id);
    expect(bot.site().wlans).toEqual(wlans);
  });

  it('unauthorize_guest is reverted by authorize_guest, verified on the guest', async () => {
    const { request } = await approved('unauthorize_guest', { client: 'Galaxy-S23' });
    expect(request.verification).toEqual({ status: 'verified' });
    const back = await revert(request.id);
    expect(back.request.tool).toBe('authorize_guest');
    expect(JSON.stringify(back.request.preview)).toContain("site's default guest time");
    expect(back.outcome.request.verification).toEqual({ status: 'verified' });
    expect(Object.values(back.outcome.request.after?.objects ?? {})[0]).toMatchObject({
      guest_authorization: 'authorized',
    });
  });

  it('a restart says why it cannot be reverted', async () => {
    const { request } = await approved('restart_device', { device_id: 'Media Cabinet Flex' });
    await expect(approvals.proposeRevert({ changeId: request.id, requester: RITA })).rejects.toThrow(
      /cannot be reverted: a restart cannot be taken back/,
    );
  });

  it('revertAutomatically runs the inverse at once, by the timer that caused it, with a note, once', async () => {
    const start = networks();
    const { request } = await approved('update_network', {
      network_id: 'IoT',
      vlan_id: 22,
      revert_after: '10m',
    });
    const outcome = await approvals.revertAutomatically({ changeId: request.id, reason: 'keep_timeout' });
    expect(outcome.kind).toBe('succeeded');
    if (outcome.kind !== 'succeeded') return;
    const timer = { userId: 'system:timer', name: 'timer: revert_after 10m' };
    expect(outcome.request.approver).toEqual(timer);
    expect(outcome.request.requester).toEqual(timer);
    expect(outcome.request.approver).not.toEqual(SYSTEM_ACTOR);
    // The revert names the network as the change it undoes did, not by its id.
    expect(requestSummary(outcome.request)).toBe('update_network network_id=IoT vlan_id=20');
    expect(outcome.request.approvalNote).toContain(`the approval of ${request.id} covered it`);
    expect(networks()).toEqual(start);
    await expect(
      approvals.revertAutomatically({ changeId: request.id, reason: 'keep_timeout' }),
    ).rejects.toThrow(ConflictError);
  });
});

describe('meta-arguments and no-ops', () => {
  it('revert_after and for are stored in seconds, and refused with the field named when wrong', async () => {
    const request = await approvals.propose({
      tool: 'update_network',
      args: { network_id: 'IoT', vlan_id: 23, revert_after: '5m' },
      requester: RITA,
    });
    expect(request.revertAfterSeconds).toBe(300);
    expect(request.args).not.toHaveProperty('revert_after');
    expect(splitMetaArgs({ for: '2h' }).forSeconds).toBe(7200);
    expect(splitMetaArgs({ for: '30s' }).forSeconds).toBe(30);
    const bad = await approvals
      .propose({
        tool: 'update_network',
        args: { network_id: 'IoT', vlan_id: 23, for: 'soon' },
        requester: RITA,
      })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect((bad as ValidationError).issues[0]?.field).toBe('for');
  });

  it('an update_network that changes nothing is answered "nothing to change" and proposes nothing', async () => {
    await expect(
      approvals.propose({
        tool: 'update_network',
        args: { network_id: 'IoT', vlan_id: 20 },
        requester: RITA,
      }),
    ).rejects.toThrow(/nothing to change/);
    expect(await approvals.count()).toBe(0);
  });
});
