import type { ChangeRequest } from '../model/change-request.js';
import type { ChangeStore } from '../store/types.js';

/** Told about a request after a change this process made to it took effect; must not throw or block. */
export type ChangeListener = (request: ChangeRequest) => void;

/**
 * The change store with every successful write reported to `changed`: creation, each transition
 * that happened, each expiry and recovery. Reads pass straight through. Front ends use it to
 * refresh what they show (App Home) without the approval path knowing they exist.
 */
export function observeChanges(store: ChangeStore, changed: ChangeListener): ChangeStore {
  return {
    get replicaId() {
      return store.replicaId;
    },
    async create(request, actor, at) {
      const created = await store.create(request, actor, at);
      changed(created);
      return created;
    },
    async transition(id, entry, guard) {
      const after = await store.transition(id, entry, guard);
      if (after) changed(after);
      return after;
    },
    async expireDue(at) {
      const expired = await store.expireDue(at);
      for (const request of expired) changed(request);
      return expired;
    },
    async recoverInterrupted(at) {
      const recovered = await store.recoverInterrupted(at);
      for (const { request } of recovered) changed(request);
      return recovered;
    },
    get: (id) => store.get(id),
    list: (filter) => store.list(filter),
    count: (filter) => store.count(filter),
    pendingByExpiry: (filter) => store.pendingByExpiry(filter),
    countPending: (filter) => store.countPending(filter),
    history: (id) => store.history(id),
    journalHead: () => store.journalHead(),
    verifyJournal: () => store.verifyJournal(),
  };
}
