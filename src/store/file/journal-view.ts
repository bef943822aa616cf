import type { ChangeRequest } from '../../model/change-request.js';
import { applyEvent } from '../apply-event.js';
import type { JournalEvent } from '../journal-format.js';
import type { ChangeFilter, ChangeReader, RequestHistory } from '../types.js';
import { matchesFilter, newestFirst } from './file-store.js';
import { readCommittedEvents } from './journal.js';

interface Replayed {
  requests: Map<string, ChangeRequest>;
  events: Map<string, JournalEvent[]>;
}

/**
 * The change requests of a journal file, read-only: each question re-reads and verifies the file
 * (so a console sees what the bot appended a moment ago) and never opens it for writing, so it can
 * neither append nor fork the chain the bot owns.
 */
export class JournalView implements ChangeReader {
  constructor(readonly path: string) {}

  async get(id: string): Promise<ChangeRequest | undefined> {
    return this.replay().requests.get(id);
  }

  async list(filter: ChangeFilter = {}): Promise<ChangeRequest[]> {
    const found = [...this.replay().requests.values()]
      .filter((r) => matchesFilter(r, filter))
      .sort(newestFirst);
    const offset = filter.offset ?? 0;
    return found.slice(offset, filter.limit === undefined ? undefined : offset + filter.limit);
  }

  async count(filter: Omit<ChangeFilter, 'limit' | 'offset'> = {}): Promise<number> {
    let n = 0;
    for (const request of this.replay().requests.values()) if (matchesFilter(request, filter)) n += 1;
    return n;
  }

  async history(id: string): Promise<RequestHistory | undefined> {
    const { requests, events } = this.replay();
    const request = requests.get(id);
    return request ? { request, events: events.get(id) ?? [] } : undefined;
  }

  private replay(): Replayed {
    const requests = new Map<string, ChangeRequest>();
    const events = new Map<string, JournalEvent[]>();
    for (const event of readCommittedEvents(this.path)) {
      requests.set(event.id, applyEvent(requests.get(event.id), event));
      const list = events.get(event.id);
      if (list) list.push(event);
      else events.set(event.id, [event]);
    }
    return { requests, events };
  }
}
