import type { ChangeRequest, ChangeState } from '../records.js';
import type { ChangeFilter } from '../types.js';

/**
 * Listing order for the file store's requests, kept as they change instead of sorting every
 * request on every `changes` page and App Home view (issue 26: a journal of 100,000 entries must
 * answer like one of 100). Newest first is creation time, then id; a request's creation time never
 * changes, so its place is fixed when it is created.
 */
export class RequestIndex {
  /** Ids, oldest first. */
  private readonly order: string[] = [];
  private readonly createdAt = new Map<string, number>();
  private readonly byState = new Map<ChangeState, Set<string>>();
  private readonly byRequester = new Map<string, Set<string>>();

  /** Records a request as it is now (created, or moved to another state). */
  put(before: ChangeRequest | undefined, after: ChangeRequest): void {
    if (!before) {
      this.insert(after);
      let mine = this.byRequester.get(after.requester.userId);
      if (!mine) {
        mine = new Set();
        this.byRequester.set(after.requester.userId, mine);
      }
      mine.add(after.id);
    } else if (before.state !== after.state) this.byState.get(before.state)?.delete(after.id);
    let ids = this.byState.get(after.state);
    if (!ids) {
      ids = new Set();
      this.byState.set(after.state, ids);
    }
    ids.add(after.id);
  }

  /** The matching requests, newest first, `offset` and `limit` applied. */
  list(
    requests: ReadonlyMap<string, ChangeRequest>,
    filter: ChangeFilter,
    matches: Matcher,
  ): ChangeRequest[] {
    const offset = filter.offset ?? 0;
    const wanted = filter.limit === undefined ? Number.POSITIVE_INFINITY : offset + filter.limit;
    const found: ChangeRequest[] = [];
    if (wanted <= 0) return found;
    const since = filter.since === undefined ? undefined : Date.parse(filter.since);
    const sets = this.stateSets(filter);
    const inStates = sets?.reduce((sum, set) => sum + set.size, 0);
    // Few requests in the asked-for states (pending among thousands done): sort just those.
    if (sets && inStates !== undefined && inStates * 8 < this.order.length) {
      const sorted = [...new Set(sets.flatMap((set) => [...set]))].sort((a, b) =>
        this.compareNewestFirst(a, b),
      );
      for (const id of sorted) {
        const request = requests.get(id);
        if (!request || !matches(request, filter)) continue;
        found.push(request);
        if (found.length >= wanted) break;
      }
      return found.slice(offset);
    }
    for (let i = this.order.length - 1; i >= 0; i -= 1) {
      const id = this.order[i] as string;
      // Older than `since` from here on: nothing further back can match.
      if (since !== undefined && (this.createdAt.get(id) ?? 0) < since) break;
      const request = requests.get(id);
      if (!request || !matches(request, filter)) continue;
      found.push(request);
      if (found.length >= wanted) break;
    }
    return found.slice(offset);
  }

  /** How many requests match (paging ignored). */
  count(requests: ReadonlyMap<string, ChangeRequest>, filter: ChangeFilter, matches: Matcher): number {
    const sets = this.stateSets(filter);
    const byRequester =
      filter.requester === undefined
        ? undefined
        : (this.byRequester.get(filter.requester) ?? new Set<string>());
    const rest = filter.tool !== undefined || filter.site !== undefined || filter.since !== undefined;
    if (!rest && !sets && !byRequester) return this.order.length;
    // A request is in one state at a time, so the states' sets are disjoint.
    if (!rest && sets && !byRequester) return sets.reduce((sum, set) => sum + set.size, 0);
    const byState = sets ? this.stateCandidates(filter) : undefined;
    if (!rest && byRequester && !byState) return byRequester.size;
    // Check the smaller of the candidate sets one by one.
    const candidates =
      byState && byRequester
        ? byState.size <= byRequester.size
          ? byState
          : byRequester
        : (byState ?? byRequester ?? this.order);
    let n = 0;
    for (const id of candidates) {
      const request = requests.get(id);
      if (request && matches(request, filter)) n += 1;
    }
    return n;
  }

  /** Oldest first. */
  oldestFirst(requests: ReadonlyMap<string, ChangeRequest>): ChangeRequest[] {
    return this.order.flatMap((id) => {
      const request = requests.get(id);
      return request ? [request] : [];
    });
  }

  /** The requests in the filter's states, or undefined without a state filter. */
  private stateCandidates(filter: ChangeFilter): Set<string> | undefined {
    const sets = this.stateSets(filter);
    if (!sets) return undefined;
    if (sets.length === 1) return sets[0];
    const union = new Set<string>();
    for (const set of sets) for (const id of set) union.add(id);
    return union;
  }

  private stateSets(filter: ChangeFilter): Set<string>[] | undefined {
    if (filter.state === undefined) return undefined;
    const states: readonly ChangeState[] = typeof filter.state === 'string' ? [filter.state] : filter.state;
    return [...new Set(states)].map((state) => this.byState.get(state) ?? new Set<string>());
  }

  /** Negative when `a` comes first in newest-first order. */
  private compareNewestFirst(a: string, b: string): number {
    const byTime = (this.createdAt.get(b) ?? 0) - (this.createdAt.get(a) ?? 0);
    if (byTime !== 0) return byTime;
    return a < b ? 1 : a > b ? -1 : 0;
  }

  private insert(request: ChangeRequest): void {
    this.createdAt.set(request.id, Date.parse(request.createdAt));
    // Requests are nearly always created newest: append; otherwise find the place by binary search.
    const last = this.order[this.order.length - 1];
    if (last === undefined || this.compareNewestFirst(request.id, last) < 0) {
      this.order.push(request.id);
      return;
    }
    let low = 0;
    let high = this.order.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.compareNewestFirst(request.id, this.order[middle] as string) < 0) low = middle + 1;
      else high = middle;
    }
    this.order.splice(low, 0, request.id);
  }
}

type Matcher = (request: ChangeRequest, filter: ChangeFilter) => boolean;
