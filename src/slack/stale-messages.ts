import type { Approvals } from '../approvals/approvals.js';
import type { ChangeRequest } from '../approvals/types.js';
import type { Logger } from '../log.js';

/** How long a message Slack keeps refusing to edit is tried again, at every sweep. */
export const STALE_MARK_KEPT_MS = 24 * 3_600_000;

/** What the stale-message sweep uses of the presenter: the edit a Cancel click makes. */
export interface MessageRefresher {
  /** Re-renders the request's message (and its approvers' copies) from its state; rejects when Slack refuses. */
  refresh(request: ChangeRequest): Promise<void>;
}

/**
 * Edits the messages of requests a process without Slack changed (`netops mcp` over stdio
 * cancelling its task), from the marks it left in the store's data. A mark goes once its message
 * shows the request as it is now; an edit Slack refuses keeps it for the next sweep, for a day at
 * most. Every replica may sweep the same mark: the edit shows the same state, so it is made at
 * least once and an extra one changes nothing. Resolves with how many messages were edited.
 */
export async function refreshStaleMessages(
  approvals: Pick<Approvals, 'staleMessages' | 'clearStaleMessage' | 'get' | 'now'>,
  presenter: MessageRefresher,
  logger: Logger,
): Promise<number> {
  let edited = 0;
  for (const { id, markedAt } of await approvals.staleMessages()) {
    if (approvals.now() - markedAt >= STALE_MARK_KEPT_MS) {
      logger.warn(
        { request: id, marked_at: new Date(markedAt).toISOString() },
        `gave up editing a change request message another process changed: Slack refused it for ${STALE_MARK_KEPT_MS / 3_600_000} hours (/net change ${id} shows its state)`,
      );
      await approvals.clearStaleMessage(id, markedAt);
      continue;
    }
    const request = await approvals.get(id);
    // Nothing shows it (never posted, or gone from the store): nothing to edit.
    if (!request?.message) {
      await approvals.clearStaleMessage(id, markedAt);
      continue;
    }
    try {
      await presenter.refresh(request);
    } catch (error) {
      logger.warn(
        { err: error, request: id },
        'could not edit a change request message another process changed; trying again at the next sweep',
      );
      continue;
    }
    await approvals.clearStaleMessage(id, markedAt);
    edited += 1;
  }
  return edited;
}
