import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventDetail, listChanges, requestSummary, showChange } from '../../src/approvals/history.js';
import { ResourceNotFoundError, ValidationError } from '../../src/errors.js';
import type { ChangeRequest } from '../../src/model/change-request.js';
import { FileStore } from '../../src/store/file/file-store.js';
import type { ChangeReader } from '../../src/store/types.js';
import { sampleRequest } from '../store/contract.js';

const RITA = { userId: 'U0RITA', name: 'rita' };
const ALEX = { userId: 'U0ALEX', name: 'Alex' };
const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const TOOLS = ['create_network', 'delete_network', 'update_traffic_route'];

let dir: string;
let store: FileStore;
let reader: ChangeReader;
const made: ChangeRequest[] = [];

/** 45 requests a minute apart: rita's creates, alex's deletes every third, one failed run. */
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'netops-history-'));
  store = new FileStore(dir);
  const changes = store.changes();
  for (let i = 0; i < 45; i += 1) {
    const requester = i % 3 === 0 ? ALEX : RITA;
    const tool = i % 3 === 0 ? 'delete_network' : 'create_network';
    made.push(
      await changes.create(sampleRequest({ createdS: i * 60, requester, tool }), requester, T0 + i * 60_000),
    );
  }
  const failed = made[44] as ChangeRequest;
  await changes.transition(
    failed.id,
    { type: 'approved', id: failed.id, actor: RITA, previewHash: failed.previewHash },
    { from: ['pending'], at: T0 + 45 * 60_000, live: true },
  );
  await changes.transition(
    failed.id,
    {
      type: 'failed',
      id: failed.id,
      actor: RITA,
      stage: 'execute',
      error: { code: 'gateway_rejected', message: 'VLAN in use' },
    },
    { from: ['approved'], at: T0 + 45 * 60_000 },
  );
  reader = store.changeHistory();
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const context = { now: T0 + 50 * 60_000, tools: TOOLS, self: 'U0ALEX' };
const list = (args: Record<string, string>, positionals: string[] = []) =>
  listChanges(reader, { args, positionals }, context);
const refusal = async (promise: Promise<unknown>) => {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ValidationError);
  return (error as ValidationError).issues;
};

describe('changes: one page of requests, newest first', () => {
  it('pages by 20 and counts every match', async () => {
    const first = await list({});
    const third = await list({ page: '3' });

    expect(first).toMatchObject({ total: 45, page: 1, pages: 3, criteria: [] });
    expect(first.requests.map((r) => r.id)).toEqual(
      made
        .slice(25)
        .reverse()
        .map((r) => r.id),
    );
    expect(third.requests.map((r) => r.id)).toEqual(
      made
        .slice(0, 5)
        .reverse()
        .map((r) => r.id),
    );
  });

  it('filters by state (with finished and open), user (me, mention, id, name), tool and time', async () => {
    const failed = await list({ state: 'failed' });
    const finished = await list({ state: 'finished' });
    const mine = await list({ user: 'me' });
    const mention = await list({ user: '<@U0RITA|rita>' });
    const byName = await list({ user: '@alex' });
    const deletes = await list({ tool: 'delete_network' });
    const lastTen = await list({ since: '10m' });
    const byDate = await list({ since: '2030-01-01T00:40:00Z' });

    expect(failed.requests.map((r) => r.id)).toEqual([made[44]?.id]);
    expect(finished.total).toBe(1);
    expect(finished.criteria).toEqual(['state=succeeded,failed,unknown']);
    expect(mine.total).toBe(15);
    expect(mention.total).toBe(30);
    expect(byName).toMatchObject({ total: 15, criteria: ['user=U0ALEX'] });
    expect(deletes.total).toBe(15);
    expect(lastTen.requests.map((r) => r.id)).toEqual(
      made
        .slice(40)
        .reverse()
        .map((r) => r.id),
    );
    expect(byDate.total).toBe(5);
  });

  it('refuses what it cannot read, naming the field and the rule', async () => {
    expect(await refusal(list({ state: 'done' }))).toEqual([
      { field: 'state', rule: expect.stringContaining('pending, approved, executing') },
    ]);
    expect((await refusal(list({ since: 'yesterday' })))[0]?.rule).toContain('24h');
    expect((await refusal(list({ tool: 'create_netwrk' })))[0]?.rule).toContain(
      'did you mean create_network',
    );
    expect((await refusal(list({ user: '@nobody' })))[0]?.rule).toContain('U…');
    expect((await refusal(list({ page: '0' })))[0]?.field).toBe('page');
    expect((await refusal(list({ sate: 'pending' })))[0]?.rule).toContain('did you mean state');
    expect((await refusal(list({}, ['pending'])))[0]?.field).toBe('arguments');
    expect(
      (
        await refusal(
          listChanges(reader, { args: { user: 'me' }, positionals: [] }, { now: T0, tools: TOOLS }),
        )
      )[0]?.rule,
    ).toContain('Slack only');
  });
});

describe('change <id>', () => {
  it('returns the request with every journal event, and says not found for an unknown id', async () => {
    const found = await showChange(reader, { args: {}, positionals: [made[44]?.id ?? ''] });
    const missing = await showChange(reader, { args: {}, positionals: ['cr_unknown'] }).catch(
      (e: unknown) => e,
    );
    const none = await showChange(reader, { args: {}, positionals: [] }).catch((e: unknown) => e);

    expect(found.events.map((e) => e.type)).toEqual(['created', 'approved', 'failed']);
    expect(found.events.map(eventDetail)).toEqual([
      expect.stringContaining('default: create_network name=Lab'),
      'preview aaaaaaaa approved',
      'failed: gateway_rejected: VLAN in use',
    ]);
    expect(missing).toBeInstanceOf(ResourceNotFoundError);
    expect(none).toBeInstanceOf(ValidationError);
    expect(requestSummary(made[0] as ChangeRequest)).toMatch(/^delete_network name=Lab\d+ vlan_id=\d+$/);
  });
});
