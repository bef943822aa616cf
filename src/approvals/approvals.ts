import { z } from 'zod';
import { ResourceNotFoundError } from '../errors.js';
import {
  CHANGE_STATES,
  STALE_MESSAGE_PREFIX,
  type StaleMessageMark,
  SYSTEM_ACTOR,
  staleMessageIds,
} from '../model/change-request.js';
import type { InterruptedRequest } from '../store/types.js';
import type { ApprovalsOptions } from './approvals-core.js';
import { BreakGlassApprovals } from './break-glass.js';
import { isMcpRequester } from './mcp-requester.js';
import type { ChangeRequest, MessageRef } from './types.js';

export { SYSTEM_ACTOR } from '../model/change-request.js';
export type { ApprovalsOptions, ApproveHooks } from './approvals-core.js';
export { type ChangeTiming, faceOf, type GateChange, gateRefusal, timingOf } from './terms.js';

/** Where the store's data keeps the approvers' copies of a request's message. */
const APPROVER_COPIES_KEY = 'approver-copies:';

/** A stale-message mark as the store's data holds it (another process wrote it). */
const StaleMarkSchema = z.object({ at: z.iso.datetime() });

/** A request whose Slack message does not show its state, and when that was marked. */
export interface StaleMessage {
  id: string;
  /** When the mark was made (0 when the mark does not read as one: it is as good as expired). */
  markedAt: number;
}

/** What a sweep changed, so the UI can edit the messages of those requests (each reported once). */
export interface SweepResult {
  expired: ChangeRequest[];
  interrupted: InterruptedRequest[];
}

/**
 * Change requests: dry-run preview, approval by someone allowed, exactly one execution.
 * Every transition goes through the store, which journals it in the same step as it takes effect
 * and lets it happen only from the expected state: of concurrent clicks, on one replica or on
 * several, exactly one wins the claim and runs the change.
 *
 * Built in layers, one file each: the core (store, gate, reads, creating a request), proposals
 * (proposals.ts), decisions (decisions.ts), runs (runs.ts), and here the sweeps and the messages.
 */
export class Approvals extends BreakGlassApprovals {
  /**
   * The direct-message copies of a request's message sent to its named approvers, so every copy is
   * edited when one of them acts; kept in the store's data, so any replica that handles a click
   * edits them all.
   */
  async approverCopies(id: string): Promise<MessageRef[]> {
    return (await this.options.context.store.get<MessageRef[]>(`${APPROVER_COPIES_KEY}${id}`)) ?? [];
  }

  /** Once a request is decided for good its copies show the outcome and are edited no more. */
  async forgetApproverCopies(id: string): Promise<void> {
    await this.options.context.store.delete(`${APPROVER_COPIES_KEY}${id}`);
  }

  async addApproverCopies(id: string, copies: readonly MessageRef[]): Promise<void> {
    if (copies.length === 0) return;
    const known = await this.approverCopies(id);
    await this.options.context.store.set(`${APPROVER_COPIES_KEY}${id}`, [...known, ...copies]);
  }

  /**
   * Marks a request's Slack message as not showing its state: the process that changed the state
   * has no Slack to edit it, so the Slack bot's sweep does (staleMessages, clearStaleMessage).
   */
  async markMessageStale(id: string): Promise<void> {
    const mark: StaleMessageMark = { at: new Date(this.now()).toISOString() };
    await this.options.context.store.set(`${STALE_MESSAGE_PREFIX}${id}`, mark);
  }

  /** The requests marked as having a stale message, oldest mark first. */
  async staleMessages(): Promise<StaleMessage[]> {
    const data = this.options.context.store;
    const marked: StaleMessage[] = [];
    for (const id of staleMessageIds(await data.keys(STALE_MESSAGE_PREFIX))) {
      const raw = await data.get(`${STALE_MESSAGE_PREFIX}${id}`);
      // Gone since the keys were read: another replica's sweep edited the message.
      if (raw === undefined) continue;
      const mark = StaleMarkSchema.safeParse(raw);
      marked.push({ id, markedAt: mark.success ? Date.parse(mark.data.at) : 0 });
    }
    return marked.sort((a, b) => a.markedAt - b.markedAt);
  }

  /**
   * Removes a stale-message mark once its message is edited, unless the mark was made again since
   * `markedAt` (a later change still to show).
   */
  async clearStaleMessage(id: string, markedAt: number): Promise<void> {
    const data = this.options.context.store;
    const mark = StaleMarkSchema.safeParse(await data.get(`${STALE_MESSAGE_PREFIX}${id}`));
    if (mark.success && Date.parse(mark.data.at) > markedAt) return;
    await data.delete(`${STALE_MESSAGE_PREFIX}${id}`);
  }

  /** Builds Approvals over a store and recovers what the last run left (see sweep). */
  static async open(options: ApprovalsOptions): Promise<Approvals> {
    const approvals = new Approvals(options);
    await approvals.sweep();
    return approvals;
  }

  /**
   * Records the message that shows a request, unless one is recorded already: of several processes
   * that posted the same request (the MCP front end's and the Slack bot's sweep), exactly one is
   * kept. Returns the request with its message, or undefined when another message was first.
   */
  async announce(id: string, message: MessageRef): Promise<ChangeRequest | undefined> {
    return this.store.transition(
      id,
      { type: 'message', id, actor: SYSTEM_ACTOR, message },
      { from: CHANGE_STATES, at: this.now(), unannounced: true },
    );
  }

  /**
   * Pending requests from MCP clients that no message shows yet, older than `graceMs`: those an
   * MCP process without Slack (`netops mcp` over stdio) left for the Slack bot to post. The grace
   * leaves a request proposed in a bot's own process to that process's front end.
   */
  async unannounced(graceMs: number): Promise<ChangeRequest[]> {
    const before = this.now() - graceMs;
    const pending = await this.store.list({ state: 'pending' });
    return pending
      .filter((r) => r.message === undefined && r.channel !== undefined && isMcpRequester(r.requester))
      .filter((r) => Date.parse(r.createdAt) <= before)
      .reverse();
  }

  /**
   * Records which Slack message shows the request, so expiry and outcomes can edit it after a
   * restart. Returns the request as it is now: it may have been decided or expired meanwhile.
   */
  async attachMessage(id: string, message: MessageRef): Promise<ChangeRequest> {
    const done = await this.store.transition(
      id,
      { type: 'message', id, actor: SYSTEM_ACTOR, message },
      { from: CHANGE_STATES, at: this.now() },
    );
    if (!done) throw new ResourceNotFoundError('change request', id);
    return done;
  }

  /** Scheduled changes, soonest first: App Home lists them with Run now and Cancel. */
  async scheduledChanges(): Promise<ChangeRequest[]> {
    const found = await this.store.list({ state: 'scheduled' });
    return found.sort((a, b) => Date.parse(a.scheduledFor ?? '') - Date.parse(b.scheduledFor ?? ''));
  }

  /**
   * Cancels, as the system, a pending request no message shows: its front end could not post it
   * (Slack refused), so nobody should approve it unseen. Undefined when it was decided, or shown
   * by another process's message, meanwhile.
   */
  async withdraw(id: string): Promise<ChangeRequest | undefined> {
    return this.store.transition(
      id,
      { type: 'cancelled', id, actor: SYSTEM_ACTOR },
      { from: ['pending'], at: this.now(), unannounced: true },
    );
  }

  /** Expires pending requests past their time and returns them (each to one caller, on one replica). */
  async expireDue(): Promise<ChangeRequest[]> {
    return this.store.expireDue(this.now());
  }

  /** Marks runs whose replica is gone as `unknown` (never re-run) and returns them, each once. */
  async recoverInterrupted(): Promise<InterruptedRequest[]> {
    const recovered = await this.store.recoverInterrupted(this.now());
    for (const { request, previous } of recovered) {
      this.options.logger.warn(
        { id: request.id, tool: request.tool, previous },
        'change request was interrupted (its bot process stopped); outcome unknown, verify on the controller',
      );
    }
    return recovered;
  }

  /**
   * What runs at start and then periodically: outcomes not yet recorded are recorded, runs cut off
   * by a dead process become unknown, and overdue requests expire.
   */
  async sweep(): Promise<SweepResult> {
    await this.runner.retryUnrecorded();
    await this.windows.rescheduleOrphans().catch((error: unknown) => {
      this.options.logger.warn({ err: error }, 'could not check the deadlines of scheduled changes');
    });
    const interrupted = await this.recoverInterrupted();
    // A set cut off mid-run is settled here, once (the recovery hands it to one caller).
    for (const entry of interrupted) {
      if (!entry.request.set || entry.request.state !== 'unknown') continue;
      try {
        entry.request = await this.runner.resumeSet(entry.request);
      } catch (error) {
        this.options.logger.error(
          { err: error, id: entry.request.id },
          'could not settle an interrupted change set',
        );
      }
    }
    const expired = await this.expireDue();
    return { expired, interrupted };
  }
}
