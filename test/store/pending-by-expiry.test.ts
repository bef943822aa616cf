import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { personOf, requesterIdsOf } from '../../src/approvals/mcp-requester.js';
import { CHANGE_STATES, type ChangeRequest, type ChangeState } from '../../src/model/change-request.js';
import { PendingByExpiry } from '../../src/store/file/request-index.js';
import type { PendingFilter } from '../../src/store/types.js';
import { replay } from './index-replay.js';

const T0 = Date.parse('2026-11-26T00:00:00Z');
const minute = (m: number) => T0 + m * 60_000;

function request(id: string, expires: number, state: ChangeState, who: string): ChangeRequest {
  return {
    id,
    requester: { userId: who },
    state,
    createdAt: new Date(T0).toISOString(),
    expiresAt: new Date(minute(expires)).toISOString(),
  } as unknown as ChangeRequest;
}

/** What App Home did before the index: every pending request, filtered, sorted by expiry, sliced. */
function naive(all: ChangeRequest[], filter: PendingFilter): ChangeRequest[] {
  const excluded = filter.notRequestedBy ?? [];
  const found = all
    .filter(
      (r) =>
        r.state === 'pending' &&
        Date.parse(r.expiresAt) > filter.liveAt &&
        !excluded.includes(r.requester.userId),
    )
    .sort((a, b) => Date.parse(a.expiresAt) - Date.parse(b.expiresAt) || (a.id < b.id ? -1 : 1));
  const offset = filter.offset ?? 0;
  return found.slice(offset, filter.limit === undefined ? undefined : offset + filter.limit);
}

const state = fc.constantFrom(...CHANGE_STATES);
const who = fc.constantFrom('U1', 'U2', 'mcp:U1');
const operations = fc.array(
  fc.oneof(
    // Few distinct expiries, so equal ones (ordered by id) are common, and in any creation order.
    fc.record({ kind: fc.constant('create' as const), expires: fc.integer({ min: 0, max: 15 }), who }),
    fc.record({ kind: fc.constant('move' as const), pick: fc.nat(), to: state }),
  ),
  { maxLength: 120 },
);
const filters = fc.record(
  {
    liveAt: fc.integer({ min: -1, max: 16 }).map(minute),
    notRequestedBy: fc.uniqueArray(who, { maxLength: 2 }),
    limit: fc.integer({ min: 0, max: 30 }),
    offset: fc.integer({ min: 0, max: 30 }),
  },
  { requiredKeys: ['liveAt'] },
);

describe('PendingByExpiry (the file store’s pending requests by expiry)', () => {
  it('pages, counts and finds the overdue exactly as filtering and sorting every request would, after any creates and moves', () => {
    fc.assert(
      fc.property(operations, fc.array(filters, { minLength: 1, maxLength: 5 }), (ops, asked) => {
        const index = new PendingByExpiry();
        const requests = replay(ops, index, (id, op) => request(id, op.expires, 'pending', op.who));
        const all = [...requests.values()];
        for (const filter of asked) {
          expect(index.list(requests, filter).map((r) => r.id)).toEqual(naive(all, filter).map((r) => r.id));
          const { limit: _l, offset: _o, ...unpaged } = filter;
          expect(index.count(unpaged)).toBe(naive(all, unpaged).length);
          expect(new Set(index.overdue(filter.liveAt))).toEqual(
            new Set(
              all
                .filter((r) => r.state === 'pending' && Date.parse(r.expiresAt) <= filter.liveAt)
                .map((r) => r.id),
            ),
          );
        }
      }),
      // Arbitrary: each run checks up to 5 filters over up to 120 operations.
      { numRuns: 200 },
    );
  });

  it('leaves out exactly the requests whose person is the viewer (requesterIdsOf matches personOf)', () => {
    const ids = fc.oneof(
      fc.constantFrom(
        'U0ALEX',
        'W0ALEX',
        'U0RITA',
        'mcp:U0ALEX',
        'mcp:ci-bot',
        'mcp:mcp:U0ALEX',
        'mcp:',
        'u0alex',
      ),
      fc.string({ maxLength: 12 }),
      fc.string({ maxLength: 8 }).map((s) => `mcp:${s}`),
    );
    fc.assert(
      fc.property(ids, ids, (viewer, requester) => {
        expect(requesterIdsOf(viewer).includes(requester)).toBe(personOf({ userId: requester }) === viewer);
      }),
      { numRuns: 2000 },
    );
  });
});
