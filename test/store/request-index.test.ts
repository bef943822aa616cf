import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHANGE_STATES, type ChangeRequest, type ChangeState } from '../../src/model/change-request.js';
import { matchesFilter, newestFirst } from '../../src/store/file/file-store.js';
import { RequestIndex } from '../../src/store/file/request-index.js';
import type { ChangeFilter } from '../../src/store/types.js';
import { replay } from './index-replay.js';

const T0 = Date.parse('2026-11-26T00:00:00Z');

function request(id: string, minute: number, state: ChangeState, who: string, tool: string): ChangeRequest {
  return {
    id,
    tool,
    site: 'default',
    requester: { userId: who },
    state,
    createdAt: new Date(T0 + minute * 60_000).toISOString(),
  } as unknown as ChangeRequest;
}

/** What the store answered before the index: filter everything, sort, slice. */
function naive(all: ChangeRequest[], filter: ChangeFilter): ChangeRequest[] {
  const found = all.filter((r) => matchesFilter(r, filter)).sort(newestFirst);
  const offset = filter.offset ?? 0;
  return found.slice(offset, filter.limit === undefined ? undefined : offset + filter.limit);
}

const state = fc.constantFrom(...CHANGE_STATES);
const operations = fc.array(
  fc.oneof(
    fc.record({
      kind: fc.constant('create' as const),
      // Few distinct minutes, so equal creation times (ordered by id) are common, and out of order.
      minute: fc.integer({ min: 0, max: 20 }),
      who: fc.constantFrom('U1', 'U2'),
      tool: fc.constantFrom('create_network', 'delete_network'),
    }),
    fc.record({ kind: fc.constant('move' as const), pick: fc.nat(), to: state }),
  ),
  { maxLength: 120 },
);
const filters = fc.record(
  {
    state: fc.oneof(state, fc.uniqueArray(state, { minLength: 1, maxLength: 3 })),
    requester: fc.constantFrom('U1', 'U2'),
    tool: fc.constantFrom('create_network', 'delete_network'),
    since: fc.integer({ min: 0, max: 20 }).map((m) => new Date(T0 + m * 60_000).toISOString()),
    limit: fc.integer({ min: 0, max: 30 }),
    offset: fc.integer({ min: 0, max: 30 }),
  },
  { requiredKeys: [] },
);

describe('RequestIndex (the file store’s listing order)', () => {
  it('lists and counts exactly as filtering and sorting every request would, after any creates and moves', () => {
    fc.assert(
      fc.property(operations, fc.array(filters, { minLength: 1, maxLength: 5 }), (ops, asked) => {
        const index = new RequestIndex();
        const requests = replay(ops, index, (id, op) => request(id, op.minute, 'pending', op.who, op.tool));
        const all = [...requests.values()];
        for (const filter of asked) {
          expect(index.list(requests, filter, matchesFilter).map((r) => r.id)).toEqual(
            naive(all, filter).map((r) => r.id),
          );
          const { limit: _l, offset: _o, ...unpaged } = filter;
          expect(index.count(requests, unpaged, matchesFilter)).toBe(naive(all, unpaged).length);
        }
        expect(index.oldestFirst(requests).map((r) => r.id)).toEqual(
          [...all].sort((a, b) => -newestFirst(a, b)).map((r) => r.id),
        );
      }),
      { numRuns: 300 },
    );
  });
});
