import { afterEach, describe, expect, it } from 'vitest';
import type { ChangeRequest, ChangeState } from '../../src/model/change-request.js';
import { sha256Hex } from '../../src/store/journal-format.js';
import type { ChangeStore, Store } from '../../src/store/types.js';

/** How a contract run gets its stores: a fresh empty one, and the same data opened again. */
export interface StoreHarness {
  /** A new empty store (a new DATA_DIR, or an emptied database). */
  fresh(): Promise<Store>;
  /**
   * What a restarted process opens on the same data: `previous` is closed first (a file journal
   * has one owner; a closed PostgreSQL replica has given up its lease).
   */
  reopen(previous: Store): Promise<Store>;
}

const RITA = { userId: 'U0RITA', name: 'rita' };
const ALEX = { userId: 'U0ALEX', name: 'alex' };
const SAM = { userId: 'U0SAM' };

/** 2030-01-01T00:00:00Z, and times after it in seconds. */
const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const at = (seconds: number) => T0 + seconds * 1000;

let counter = 0;

/** A pending request created at `createdS` seconds after T0 that expires `ttlS` seconds later. */
export function sampleRequest(
  options: {
    createdS?: number;
    ttlS?: number;
    tool?: string;
    requester?: typeof RITA;
    id?: string;
    site?: string;
  } = {},
): ChangeRequest {
  counter += 1;
  const created = at(options.createdS ?? 0);
  return {
    id: options.id ?? `cr_contract${String(counter).padStart(9, 'a')}`,
    tool: options.tool ?? 'create_network',
    site: options.site ?? 'default',
    args: { site_id: 'default', name: `Lab${counter}`, vlan_id: 40 + (counter % 100) },
    requester: options.requester ?? RITA,
    channel: 'C0OPS',
    preview: { dry_run: true, would_create: { name: `Lab${counter}` }, warnings: [] },
    previewHash: 'a'.repeat(64),
    createdAt: new Date(created).toISOString(),
    expiresAt: new Date(created + (options.ttlS ?? 900) * 1000).toISOString(),
    state: 'pending',
  };
}

/** One step of a request's life in a store, timed from `t0`. */
type Step = (
  changes: ChangeStore,
  request: ChangeRequest,
  actor: { userId: string },
  t0: number,
) => Promise<void>;

/** Approves a pending request and starts it, one and two seconds after `t0`, as the bot that runs it. */
export const approveAndStart: Step = async (changes, request, actor, t0) => {
  await changes.transition(
    request.id,
    { type: 'approved', id: request.id, actor, previewHash: request.previewHash },
    { from: ['pending'], at: t0 + 1000, live: true },
  );
  await changes.transition(
    request.id,
    { type: 'executing', id: request.id, actor },
    { from: ['approved'], at: t0 + 2000, ownedBySelf: true },
  );
};

/** Records a started request's success, three seconds after `t0`. */
export const succeed: Step = async (changes, request, actor, t0) => {
  await changes.transition(
    request.id,
    { type: 'succeeded', id: request.id, actor, result: { success: true } },
    { from: ['executing'], at: t0 + 3000, ownedBySelf: true },
  );
};

/** A pending request approved, run and succeeded, a second apart from `t0`. */
export const runToSuccess: Step = async (...args) => {
  await approveAndStart(...args);
  await succeed(...args);
};

/**
 * The behaviour every store must have, whatever keeps the data: the same tests run against the
 * file store and against PostgreSQL.
 */
export function describeStoreContract(name: string, harness: () => StoreHarness): void {
  describe(`store contract: ${name}`, () => {
    const open: Store[] = [];
    const fresh = async () => {
      const store = await harness().fresh();
      open.push(store);
      return store;
    };
    const reopen = async (previous: Store) => {
      const store = await harness().reopen(previous);
      open.push(store);
      return store;
    };
    afterEach(async () => {
      for (const store of open.splice(0)) await store.close();
    });

    describe('requests and the journal', () => {
      it('reads the journal forward as its exact lines, each linked to the one before', async () => {
        const store = await fresh();
        const changes = store.changes();
        const request = sampleRequest();
        await changes.create(request, RITA, at(0));
        await runToSuccess(changes, request, ALEX, at(0));

        const lines = await store.journalFeed().read(0, 10);
        expect(lines.map((l) => [l.seq, JSON.parse(l.line).type])).toEqual([
          [1, 'created'],
          [2, 'approved'],
          [3, 'executing'],
          [4, 'succeeded'],
        ]);
        for (const [i, line] of lines.entries()) {
          const prev = i === 0 ? '0'.repeat(64) : sha256Hex(lines[i - 1]?.line ?? '');
          expect(JSON.parse(line.line).prev).toBe(prev);
        }
        expect(sha256Hex(lines.at(-1)?.line ?? '')).toBe((await changes.journalHead()).head);
        expect(await store.journalFeed().read(2, 1)).toEqual(lines.slice(2, 3));
        expect(await store.journalFeed().read(4, 10)).toEqual([]);
      });

      it('stores a created request and journals it as the first link of the chain', async () => {
        const store = await fresh();
        const changes = store.changes();
        const request = sampleRequest();

        const created = await changes.create(request, RITA, at(0));

        expect(created).toEqual(request);
        expect(await changes.get(request.id)).toEqual(request);
        expect(await changes.get('cr_neverseen')).toBeUndefined();
        const history = await changes.history(request.id);
        expect(history?.request).toEqual(request);
        expect(history?.events.map((e) => [e.seq, e.type, e.id, e.at])).toEqual([
          [1, 'created', request.id, '2030-01-01T00:00:00.000Z'],
        ]);
        expect(history?.events[0]?.prev).toBe('0'.repeat(64));
        const head = await changes.journalHead();
        expect(head.count).toBe(1);
        expect(await changes.verifyJournal()).toEqual({ ok: true, events: 1, head: head.head });
      });

      it('applies a transition only when its guard holds, and journals only what happened', async () => {
        const store = await fresh();
        const changes = store.changes();
        const request = await changes.create(sampleRequest(), RITA, at(0));

        // Deliberately alike: each transition states its own event and guard; the contract checks them in sequence.
        const early = await changes.transition(
          request.id,
          { type: 'executing', id: request.id, actor: ALEX },
          { from: ['approved'], at: at(1), ownedBySelf: true },
        );
        const claimed = await changes.transition(
          request.id,
          { type: 'approved', id: request.id, actor: ALEX, previewHash: request.previewHash },
          { from: ['pending'], at: at(2), live: true },
        );
        const message = await changes.transition(
          request.id,
          { type: 'message', id: request.id, actor: SAM, message: { channel: 'C0OPS', ts: '1.2' } },
          { from: ['pending', 'approved'], at: at(3) },
        );
        const executing = await changes.transition(
          request.id,
          { type: 'executing', id: request.id, actor: ALEX },
          { from: ['approved'], at: at(4), ownedBySelf: true },
        );
        const succeeded = await changes.transition(
          request.id,
          { type: 'succeeded', id: request.id, actor: ALEX, result: { success: true } },
          { from: ['executing'], at: at(5), ownedBySelf: true },
        );

        expect(early).toBeUndefined();
        expect(claimed).toMatchObject({
          state: 'approved',
          approver: ALEX,
          decidedAt: '2030-01-01T00:00:02.000Z',
        });
        expect(message).toMatchObject({ state: 'approved', message: { channel: 'C0OPS', ts: '1.2' } });
        expect(executing?.state).toBe('executing');
        expect(succeeded).toMatchObject({ state: 'succeeded', result: { success: true } });
        expect(await changes.get(request.id)).toEqual(succeeded);
        const history = await changes.history(request.id);
        expect(history?.events.map((e) => e.type)).toEqual([
          'created',
          'approved',
          'message',
          'executing',
          'succeeded',
        ]);
        expect(await changes.verifyJournal()).toMatchObject({ ok: true, events: 5 });
      });

      it('lets exactly one of 20 concurrent claims win, with one approved event in one chain', async () => {
        const store = await fresh();
        const changes = store.changes();
        const request = await changes.create(sampleRequest(), RITA, at(0));

        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            changes.transition(
              request.id,
              {
                type: 'approved',
                id: request.id,
                actor: { userId: `U0CLICK${i}` },
                previewHash: request.previewHash,
              },
              { from: ['pending'], at: at(1), live: true },
            ),
          ),
        );

        expect(answers.filter((a) => a !== undefined)).toHaveLength(1);
        const events = (await changes.history(request.id))?.events ?? [];
        expect(events.filter((e) => e.type === 'approved')).toHaveLength(1);
        expect(await changes.verifyJournal()).toMatchObject({ ok: true, events: 2 });
      });

      it('records one message of several posted for a request at once (unannounced), and none after it', async () => {
        const store = await fresh();
        const changes = store.changes();
        const request = await changes.create(sampleRequest(), RITA, at(0));
        const SYSTEM = { userId: 'system:approvals' };

        const answers = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            changes.transition(
              request.id,
              { type: 'message', id: request.id, actor: SYSTEM, message: { channel: 'C0OPS', ts: `1.${i}` } },
              { from: ['pending'], at: at(1), unannounced: true },
            ),
          ),
        );

        const won = answers.filter((a) => a !== undefined);
        expect(won).toHaveLength(1);
        expect((await changes.get(request.id))?.message).toEqual(won[0]?.message);
        const events = (await changes.history(request.id))?.events ?? [];
        expect(events.map((e) => e.type)).toEqual(['created', 'message']);
        // Without the guard a message is still recorded (an edit moves the preview, say).
        const moved = await changes.transition(
          request.id,
          { type: 'message', id: request.id, actor: SYSTEM, message: { channel: 'C0OPS', ts: '2.0' } },
          { from: ['pending'], at: at(2) },
        );
        expect(moved?.message).toEqual({ channel: 'C0OPS', ts: '2.0' });
      });

      it('refuses the claim at and after expiry, and expires each overdue request once', async () => {
        const store = await fresh();
        const changes = store.changes();
        const old = await changes.create(sampleRequest({ createdS: 0, ttlS: 60 }), RITA, at(0));
        const young = await changes.create(sampleRequest({ createdS: 30, ttlS: 60 }), RITA, at(30));

        const late = await changes.transition(
          old.id,
          { type: 'approved', id: old.id, actor: ALEX, previewHash: old.previewHash },
          { from: ['pending'], at: at(60), live: true },
        );
        const first = await changes.expireDue(at(61));
        const second = await changes.expireDue(at(62));

        expect(late).toBeUndefined();
        expect(first.map((r) => [r.id, r.state])).toEqual([[old.id, 'expired']]);
        expect(second).toEqual([]);
        expect((await changes.get(young.id))?.state).toBe('pending');
        expect((await changes.history(old.id))?.events.map((e) => [e.type, e.actor.userId])).toEqual([
          ['created', RITA.userId],
          ['expired', 'system:approvals'],
        ]);
      });

      it('lists newest first, filtered by state, requester, tool and time, and pages', async () => {
        const store = await fresh();
        const changes = store.changes();
        const a = await changes.create(sampleRequest({ createdS: 0 }), RITA, at(0));
        const b = await changes.create(sampleRequest({ createdS: 10, requester: ALEX }), ALEX, at(10));
        const c = await changes.create(sampleRequest({ createdS: 20, tool: 'delete_network' }), RITA, at(20));
        const d = await changes.create(sampleRequest({ createdS: 30 }), RITA, at(30));
        await changes.transition(
          d.id,
          { type: 'cancelled', id: d.id, actor: RITA },
          { from: ['pending'], at: at(31), live: true },
        );
        const ids = (list: ChangeRequest[]) => list.map((r) => r.id);

        expect(ids(await changes.list())).toEqual([d.id, c.id, b.id, a.id]);
        expect(ids(await changes.list({ state: 'pending' }))).toEqual([c.id, b.id, a.id]);
        expect(ids(await changes.list({ state: ['cancelled', 'expired'] as ChangeState[] }))).toEqual([d.id]);
        expect(ids(await changes.list({ requester: ALEX.userId }))).toEqual([b.id]);
        expect(ids(await changes.list({ tool: 'delete_network' }))).toEqual([c.id]);
        expect(ids(await changes.list({ since: new Date(at(10)).toISOString() }))).toEqual([
          d.id,
          c.id,
          b.id,
        ]);
        expect(ids(await changes.list({ limit: 2 }))).toEqual([d.id, c.id]);
        expect(ids(await changes.list({ limit: 2, offset: 2 }))).toEqual([b.id, a.id]);
        expect(await changes.count()).toBe(4);
        expect(await changes.count({ state: 'pending', requester: RITA.userId })).toBe(2);
      });

      it("leaves out the requests that ran a change set's steps when asked, in lists and counts", async () => {
        const store = await fresh();
        const changes = store.changes();
        const set = await changes.create(sampleRequest({ createdS: 0, tool: 'change_set' }), RITA, at(0));
        const step = await changes.create(
          { ...sampleRequest({ createdS: 1 }), setOf: set.id, setStep: 1 },
          RITA,
          at(1),
        );
        const other = await changes.create(sampleRequest({ createdS: 2, requester: ALEX }), ALEX, at(2));
        await changes.transition(
          step.id,
          { type: 'cancelled', id: step.id, actor: RITA },
          { from: ['pending'], at: at(3), live: true },
        );
        const ids = (list: ChangeRequest[]) => list.map((r) => r.id);

        expect(ids(await changes.list({ requester: RITA.userId }))).toEqual([step.id, set.id]);
        expect(ids(await changes.list({ requester: RITA.userId, withoutSetSteps: true }))).toEqual([set.id]);
        expect(ids(await changes.list({ withoutSetSteps: true }))).toEqual([other.id, set.id]);
        expect(await changes.count({ requester: RITA.userId })).toBe(2);
        expect(await changes.count({ requester: RITA.userId, withoutSetSteps: true })).toBe(1);
        expect(await changes.count({ withoutSetSteps: true })).toBe(2);
        expect(await changes.count({ state: 'cancelled', withoutSetSteps: true })).toBe(0);
        expect(await changes.count({ state: 'pending', withoutSetSteps: true })).toBe(2);
        expect(await changes.count({ tool: 'create_network', withoutSetSteps: true })).toBe(1);
      });

      it('filters by site', async () => {
        const store = await fresh();
        const changes = store.changes();
        const home = await changes.create(sampleRequest({ createdS: 0 }), RITA, at(0));
        const branch = await changes.create(sampleRequest({ createdS: 1, site: 'branch' }), RITA, at(1));

        expect((await changes.list({ site: 'default' })).map((r) => r.id)).toEqual([home.id]);
        expect((await changes.list({ site: 'branch' })).map((r) => r.id)).toEqual([branch.id]);
        expect(await changes.count({ site: 'branch', state: 'pending' })).toBe(1);
      });

      it('lets one of 10 concurrent reminder claims win, once for good, and never after a decision', async () => {
        const store = await fresh();
        const changes = store.changes();
        const waiting = await changes.create(sampleRequest(), RITA, at(0));
        const decided = await changes.create(sampleRequest(), RITA, at(0));
        await changes.transition(
          decided.id,
          { type: 'cancelled', id: decided.id, actor: RITA },
          { from: ['pending'], at: at(1), live: true },
        );
        const remind = (id: string, seconds: number) =>
          changes.transition(
            id,
            { type: 'reminded', id, actor: SAM },
            { from: ['pending'], at: at(seconds), live: true, notReminded: true },
          );

        const answers = await Promise.all(Array.from({ length: 10 }, () => remind(waiting.id, 300)));
        const again = await remind(waiting.id, 400);
        const afterCancel = await remind(decided.id, 300);

        expect(answers.filter((a) => a !== undefined)).toHaveLength(1);
        expect(answers.find((a) => a !== undefined)).toMatchObject({
          state: 'pending',
          remindedAt: '2030-01-01T00:05:00.000Z',
        });
        expect(again).toBeUndefined();
        expect(afterCancel).toBeUndefined();
        expect((await changes.get(waiting.id))?.remindedAt).toBe('2030-01-01T00:05:00.000Z');
        expect((await changes.history(waiting.id))?.events.map((e) => e.type)).toEqual([
          'created',
          'reminded',
        ]);
        const reopened = await reopen(store);
        expect(
          await reopened
            .changes()
            .transition(
              waiting.id,
              { type: 'reminded', id: waiting.id, actor: SAM },
              { from: ['pending'], at: at(500), live: true, notReminded: true },
            ),
        ).toBeUndefined();
        expect(await reopened.changes().verifyJournal()).toMatchObject({ ok: true, events: 4 });
      });

      it('answers history questions read-only: changeHistory() sees every request and appends nothing', async () => {
        const store = await fresh();
        const changes = store.changes();
        const request = await changes.create(sampleRequest(), RITA, at(0));
        await changes.transition(
          request.id,
          { type: 'message', id: request.id, actor: SAM, message: { channel: 'C0OPS', ts: '1.2' } },
          { from: ['pending'], at: at(1) },
        );
        const head = await changes.journalHead();

        const reader = store.changeHistory();
        const listed = await reader.list({ state: 'pending' });
        const history = await reader.history(request.id);

        expect(listed.map((r) => r.id)).toEqual([request.id]);
        expect(await reader.count()).toBe(1);
        expect((await reader.get(request.id))?.message).toEqual({ channel: 'C0OPS', ts: '1.2' });
        expect(history?.events.map((e) => e.type)).toEqual(['created', 'message']);
        expect(await changes.journalHead()).toEqual(head);
      });
    });

    describe('restart', () => {
      it('continues the same chain and keeps every request after a reopen', async () => {
        const before = await fresh();
        const request = await before.changes().create(sampleRequest(), RITA, at(0));
        const headBefore = await before.changes().journalHead();

        const after = await reopen(before);
        const cancelled = await after
          .changes()
          .transition(
            request.id,
            { type: 'cancelled', id: request.id, actor: RITA },
            { from: ['pending'], at: at(5), live: true },
          );

        expect(cancelled?.state).toBe('cancelled');
        const events = (await after.changes().history(request.id))?.events ?? [];
        expect(events.map((e) => [e.seq, e.type])).toEqual([
          [1, 'created'],
          [2, 'cancelled'],
        ]);
        expect(events[1]?.prev).toBe(headBefore.head);
        expect(await after.changes().verifyJournal()).toMatchObject({ ok: true, events: 2 });
      });

      it('leaves its own runs alone, and after a restart marks them unknown (executing) or not run (approved) once, never to run again', async () => {
        const before = await fresh();
        const changes = before.changes();
        const running = await changes.create(sampleRequest({ createdS: 0 }), RITA, at(0));
        const claimed = await changes.create(sampleRequest({ createdS: 1 }), RITA, at(1));
        const waiting = await changes.create(sampleRequest({ createdS: 2 }), RITA, at(2));
        for (const r of [running, claimed]) {
          await changes.transition(
            r.id,
            { type: 'approved', id: r.id, actor: ALEX, previewHash: r.previewHash },
            { from: ['pending'], at: at(3), live: true },
          );
        }
        await changes.transition(
          running.id,
          { type: 'executing', id: running.id, actor: ALEX },
          { from: ['approved'], at: at(4), ownedBySelf: true },
        );
        const whileAlive = await changes.recoverInterrupted(at(5));

        const after = await reopen(before);
        const recovered = await after.changes().recoverInterrupted(at(6));
        const again = await after.changes().recoverInterrupted(at(7));
        const rerun = await after
          .changes()
          .transition(
            running.id,
            { type: 'executing', id: running.id, actor: ALEX },
            { from: ['approved', 'executing'], at: at(8), ownedBySelf: true },
          );

        expect(whileAlive).toEqual([]);
        expect(recovered.map((r) => [r.request.id, r.previous, r.request.state])).toEqual([
          [running.id, 'executing', 'unknown'],
          // Caught before `executing` was recorded: the write is sent only after it, so not run.
          [claimed.id, 'approved', 'failed'],
        ]);
        expect(recovered[0]?.request.error?.code).toBe('outcome_unknown');
        expect(recovered[1]?.request).toMatchObject({ notRun: true, error: { code: 'interrupted' } });
        expect(again).toEqual([]);
        expect(rerun).toBeUndefined();
        expect((await after.changes().get(waiting.id))?.state).toBe('pending');
        expect(await after.changes().verifyJournal()).toMatchObject({ ok: true, events: 8 });
      });
    });

    describe('pending by expiry', () => {
      it('pages the live pending requests soonest expiry first, leaves out requesters, counts them, and after a reopen', async () => {
        const store = await fresh();
        const changes = store.changes();
        const MCP_ALEX = { userId: 'mcp:U0ALEX', name: 'an MCP client via MCP (token U0ALEX)' };
        // Created in one order, expiring in another; two pairs share an expiry (the id decides).
        const plan: [string, number, number, typeof RITA][] = [
          ['cr_pexp_a', 0, 900, RITA],
          ['cr_pexp_b', 1, 300, ALEX],
          ['cr_pexp_c', 2, 100, RITA],
          ['cr_pexp_e', 3, 598, MCP_ALEX],
          ['cr_pexp_d', 4, 597, RITA],
          ['cr_pexp_f', 5, 50, { userId: 'U0SAM', name: 'sam' }],
          ['cr_pexp_g', 6, 2000, RITA],
        ];
        for (const [id, createdS, ttlS, who] of plan)
          await changes.create(sampleRequest({ id, createdS, ttlS, requester: who }), who, at(createdS));
        // One decided (no longer pending).
        await changes.transition(
          'cr_pexp_a',
          { type: 'approved', id: 'cr_pexp_a', actor: ALEX, previewHash: 'a'.repeat(64) },
          { from: ['pending'], at: at(10), live: true },
        );
        const ids = (found: { id: string }[]) => found.map((r) => r.id);

        // At 60 s, cr_pexp_f (expiry 55 s) is overdue: waiting for nobody.
        const live = { liveAt: at(60) };
        expect(ids(await changes.pendingByExpiry(live))).toEqual([
          'cr_pexp_c',
          'cr_pexp_b',
          'cr_pexp_d',
          'cr_pexp_e',
          'cr_pexp_g',
        ]);
        expect(await changes.countPending(live)).toBe(5);
        // Exactly at its expiry a request is no longer live.
        expect(ids(await changes.pendingByExpiry({ liveAt: at(102), limit: 1 }))).toEqual(['cr_pexp_b']);
        const notAlex = { liveAt: at(60), notRequestedBy: ['U0ALEX', 'mcp:U0ALEX'] };
        expect(ids(await changes.pendingByExpiry(notAlex))).toEqual(['cr_pexp_c', 'cr_pexp_d', 'cr_pexp_g']);
        expect(await changes.countPending(notAlex)).toBe(3);
        expect(ids(await changes.pendingByExpiry({ ...notAlex, limit: 2, offset: 1 }))).toEqual([
          'cr_pexp_d',
          'cr_pexp_g',
        ]);
        expect(await changes.pendingByExpiry({ ...notAlex, offset: 3 })).toEqual([]);

        const after = await reopen(store);
        expect(ids(await after.changes().pendingByExpiry({ ...live, limit: 3, offset: 1 }))).toEqual([
          'cr_pexp_b',
          'cr_pexp_d',
          'cr_pexp_e',
        ]);
        // The sweep expires the overdue ones, oldest created first, and they leave the listing.
        const expired = await after.changes().expireDue(at(402));
        expect(ids(expired)).toEqual(['cr_pexp_b', 'cr_pexp_c', 'cr_pexp_f']);
        expect(ids(await after.changes().pendingByExpiry({ liveAt: 0 }))).toEqual([
          'cr_pexp_d',
          'cr_pexp_e',
          'cr_pexp_g',
        ]);
        expect(await after.changes().countPending({ liveAt: 0, notRequestedBy: ['U0RITA'] })).toBe(1);
      });
    });

    describe('bot data', () => {
      it('keeps JSON values by key, across a reopen', async () => {
        const before = await fresh();
        await before.data.set('zone-description:default:z1', 'Cameras & NVR');
        await before.data.set('zone-description:default:z2', { note: 'old', n: 2 });
        await before.data.set('zone-description:default:z3', 'gone soon');
        await before.data.delete('zone-description:default:z3');
        await before.data.delete('never-set');

        const after = await reopen(before);

        expect(await after.data.get('zone-description:default:z1')).toBe('Cameras & NVR');
        expect(await after.data.get('zone-description:default:z2')).toEqual({ note: 'old', n: 2 });
        expect(await after.data.get('zone-description:default:z3')).toBeUndefined();
        expect((await after.data.keys()).sort()).toEqual([
          'zone-description:default:z1',
          'zone-description:default:z2',
        ]);
        await after.data.set('zone_description:other', 'an underscore, not a colon');
        // A prefix is matched as written: `_` is no wildcard.
        expect((await after.data.keys('zone-description:default:z')).sort()).toEqual([
          'zone-description:default:z1',
          'zone-description:default:z2',
        ]);
        expect(await after.data.keys('zone_')).toEqual(['zone_description:other']);
        expect(await after.data.keys('nothing-here:')).toEqual([]);
      });
    });

    it('reports itself healthy while it can be used', async () => {
      const store = await fresh();

      expect(await store.health()).toEqual({ kind: store.kind, ok: true });
    });
  });
}
