import type { ChangeRequest, ChangeState } from '../../model/change-request.js';
import type { ChangeFilter, PendingFilter } from '../types.js';

/**
 * Listing order for the file store's requests, kept as they change instead of sorting every request
 * on every `changes` page and App Home view (a journal of 100,000 entries must answer like one of
 * 100). Newest first is creation time, then id; a request's creation time never changes, so its
 * place is fixed when it is created.
 */
export class RequestIndex {
  /** Ids, oldest first. */
  private readonly order: string[] = [];
  private readonly createdAt = new Map<string, number>();
  private readonly byState = new Map<ChangeState, Set<string>>();
  /** Each requester's ids, oldest first: a `changes user=…` page reads only that requester's. */
  private readonly byRequester = new Map<string, string[]>();
  /** The requests that ran a change set's steps (a set's `setOf` never changes). */
  private readonly setSteps = new Set<string>();

  /** Records a request as it is now (created, or moved to another state). */
  put(before: ChangeRequest | undefined, after: ChangeRequest): void {
    if (!before) {
      this.insert(after);
      if (after.setOf !== undefined) this.setSteps.add(after.id);
      let mine = this.byRequester.get(after.requester.userId);
      if (!mine) {
        mine = [];
        this.byRequester.set(after.requester.userId, mine);
      }
      this.insertOrdered(mine, after.id);
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
    // One requester's requests: walk only theirs (a user's page among thousands of others' requests).
    const walked =
      filter.requester === undefined ? this.order : (this.byRequester.get(filter.requester) ?? []);
    for (let i = walked.length - 1; i >= 0; i -= 1) {
      const id = walked[i] as string;
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
      filter.requester === undefined ? undefined : (this.byRequester.get(filter.requester) ?? []);
    if (filter.withoutSetSteps === true) {
      // All that match, less the steps that match: the steps are few, every other request is counted
      // from the sets below.
      const { withoutSetSteps: _steps, ...all } = filter;
      let steps = 0;
      for (const id of this.setSteps) {
        const request = requests.get(id);
        if (request && matches(request, all)) steps += 1;
      }
      return this.count(requests, all, matches) - steps;
    }
    const rest = filter.tool !== undefined || filter.site !== undefined || filter.since !== undefined;
    if (!rest && !sets && !byRequester) return this.order.length;
    // A request is in one state at a time, so the states' sets are disjoint.
    if (!rest && sets && !byRequester) return sets.reduce((sum, set) => sum + set.size, 0);
    const byState = sets ? this.stateCandidates(filter) : undefined;
    if (!rest && byRequester && !byState) return byRequester.length;
    // Check the smaller of the candidate sets one by one.
    const candidates =
      byState && byRequester
        ? byState.size <= byRequester.length
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
    this.insertOrdered(this.order, request.id);
  }

  /** Puts an id (its creation time known) in its place in a list kept oldest first. */
  private insertOrdered(list: string[], id: string): void {
    // Requests are nearly always created newest: append; otherwise find the place by binary search.
    const last = list[list.length - 1];
    if (last === undefined || this.compareNewestFirst(id, last) < 0) {
      list.push(id);
      return;
    }
    let low = 0;
    let high = list.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.compareNewestFirst(id, list[middle] as string) < 0) low = middle + 1;
      else high = middle;
    }
    list.splice(low, 0, id);
  }
}

type Matcher = (request: ChangeRequest, filter: ChangeFilter) => boolean;

/**
 * The file store's pending requests in expiry order (then id), kept as they change, so
 * App Home's "Waiting for you" page and the expiry sweep read the few requests they show or
 * expire instead of filtering and sorting every pending request each time.
 */
export class PendingByExpiry {
  /** Pending requests, soonest expiry first, then by id. */
  private readonly entries: { at: number; id: string }[] = [];
  /** The expiry times of each requester's pending requests, soonest first (counts without a walk). */
  private readonly byRequester = new Map<string, number[]>();

  /** Records a request as it is now (created, or moved to another state). */
  put(before: ChangeRequest | undefined, after: ChangeRequest): void {
    const was = before?.state === 'pending' ? before : undefined;
    const is = after.state === 'pending' ? after : undefined;
    if (was && is && was.expiresAt === is.expiresAt) return;
    if (was) this.remove(was);
    if (is) this.insert(is);
  }

  /** `PendingFilter` answered from the index; `requests` holds every request by id. */
  list(requests: ReadonlyMap<string, ChangeRequest>, filter: PendingFilter): ChangeRequest[] {
    const offset = filter.offset ?? 0;
    const wanted = filter.limit === undefined ? Number.POSITIVE_INFINITY : offset + filter.limit;
    const excluded = new Set(filter.notRequestedBy ?? []);
    const found: ChangeRequest[] = [];
    let seen = 0;
    for (let i = this.firstLive(filter.liveAt); i < this.entries.length && seen < wanted; i += 1) {
      const request = requests.get((this.entries[i] as { id: string }).id);
      if (!request || excluded.has(request.requester.userId)) continue;
      if (seen >= offset) found.push(request);
      seen += 1;
    }
    return found;
  }

  /** How many `list` would return without paging: the live ones, less the excluded requesters' own. */
  count(filter: Omit<PendingFilter, 'limit' | 'offset'>): number {
    let n = this.entries.length - this.firstLive(filter.liveAt);
    for (const requester of new Set(filter.notRequestedBy ?? [])) {
      const times = this.byRequester.get(requester) ?? [];
      n -= times.length - firstAfter(times, filter.liveAt);
    }
    return n;
  }

  /** Ids of the pending requests whose expiry is at or before `at` (overdue), soonest first. */
  overdue(at: number): string[] {
    return this.entries.slice(0, this.firstLive(at)).map((entry) => entry.id);
  }

  /** Index of the first entry whose expiry is after `at`. */
  private firstLive(at: number): number {
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.entries[middle] as { at: number }).at <= at) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private times(requester: string): number[] {
    let times = this.byRequester.get(requester);
    if (!times) {
      times = [];
      this.byRequester.set(requester, times);
    }
    return times;
  }

  /** Index where an entry belongs (of an equal one, if present). */
  private place(at: number, id: string): number {
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const entry = this.entries[middle] as { at: number; id: string };
      if (entry.at < at || (entry.at === at && entry.id < id)) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private insert(request: ChangeRequest): void {
    const at = Date.parse(request.expiresAt);
    this.entries.splice(this.place(at, request.id), 0, { at, id: request.id });
    const times = this.times(request.requester.userId);
    times.splice(firstAfter(times, at), 0, at);
  }

  private remove(request: ChangeRequest): void {
    const at = Date.parse(request.expiresAt);
    const i = this.place(at, request.id);
    const entry = this.entries[i];
    if (entry && entry.id === request.id) this.entries.splice(i, 1);
    const times = this.times(request.requester.userId);
    // One of the equal times, whichever: they only count.
    const last = firstAfter(times, at) - 1;
    if (times[last] === at) times.splice(last, 1);
    if (times.length === 0) this.byRequester.delete(request.requester.userId);
  }
}

/** Index of the first time after `at` in ascending `times`. */
function firstAfter(times: readonly number[], at: number): number {
  let low = 0;
  let high = times.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((times[middle] as number) <= at) low = middle + 1;
    else high = middle;
  }
  return low;
}
