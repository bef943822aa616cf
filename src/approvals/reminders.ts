import { SYSTEM_ACTOR } from '../model/change-request.js';
import type { ChangeStore } from '../store/types.js';
import type { ChangeRequest } from './types.js';

/**
 * Claims the one reminder of every request still pending `afterSeconds` after it was created (and
 * not yet expired, and shown in a message to thread the reminder under). The claim is a guarded
 * `reminded` transition, so of any number of sweeps, on one replica or several, before or after a
 * restart, exactly one gets each request back; it is journaled before anything is posted.
 */
export async function claimDueReminders(
  store: ChangeStore,
  at: number,
  afterSeconds: number,
): Promise<ChangeRequest[]> {
  if (afterSeconds <= 0) return [];
  const due = (await store.list({ state: 'pending' })).filter(
    (request) =>
      request.remindedAt === undefined &&
      request.message !== undefined &&
      at >= Date.parse(request.createdAt) + afterSeconds * 1000 &&
      at < Date.parse(request.expiresAt),
  );
  const claimed: ChangeRequest[] = [];
  for (const request of due.reverse()) {
    const reminded = await store.transition(
      request.id,
      { type: 'reminded', id: request.id, actor: SYSTEM_ACTOR },
      { from: ['pending'], at, live: true, notReminded: true },
    );
    if (reminded) claimed.push(reminded);
  }
  return claimed;
}
