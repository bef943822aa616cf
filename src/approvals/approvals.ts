import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { isBotError, NotAuthorizedError, ResourceNotFoundError, ValidationError } from '../errors.js';
import { type Logger, scrubSecrets } from '../log.js';
import type { ToolContext } from '../tools/define-tool.js';
import type { ToolRegistry } from '../tools/registry.js';
import { canonicalJson, diffPreviews, previewHash } from './canonical.js';
import { JOURNAL_FILE, Journal, type JournalEntry, type JournalEvent } from './journal.js';
import type { ApprovalPolicy } from './policy.js';
import { capForJournal, redactSecrets } from './redact.js';
import type {
  Actor,
  ApproveOutcome,
  CancelOutcome,
  ChangeRequest,
  ChangeState,
  ErrorSummary,
  MessageRef,
} from './types.js';

/** What Approvals.open needs. */
export interface ApprovalsOptions {
  dataDir: string;
  registry: ToolRegistry;
  context: ToolContext;
  policy: ApprovalPolicy;
  ttlSeconds: number;
  logger: Logger;
  /** Milliseconds since the epoch; tests pass a controllable clock. */
  now?: () => number;
}

/** The actor of events nobody clicked: expiry, recovery after a crash, message bookkeeping. */
export const SYSTEM_ACTOR: Actor = { userId: 'system:approvals' };

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** 'cr_' + 20 base32 characters (100 random bits): unguessable, URL-safe, fits a button value. */
function newId(): string {
  // 256 is a multiple of 32, so masking each byte keeps the characters uniform.
  return `cr_${[...randomBytes(20)].map((byte) => BASE32[byte & 31]).join('')}`;
}

/** An error as kept on the request: its stable code and its sentence, secrets scrubbed, never a stack. */
function summarize(error: unknown): ErrorSummary {
  const message = scrubSecrets(error instanceof Error ? error.message : String(error));
  return { code: isBotError(error) ? error.code : 'internal_error', message };
}

const snapshot = (request: ChangeRequest): ChangeRequest => structuredClone(request);

/**
 * Change requests: dry-run preview, approval by someone allowed, exactly one execution.
 * Every transition is journaled (synchronously, fsynced) before it takes effect in memory, and
 * the in-memory state is rebuilt from the journal on open.
 */
export class Approvals {
  private readonly requests = new Map<string, ChangeRequest>();
  private readonly now: () => number;

  private constructor(
    private readonly journal: Journal,
    private readonly options: ApprovalsOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Opens DATA_DIR/approvals.jsonl, verifies and replays it; throws on a journal that does not verify. */
  static open(options: ApprovalsOptions): Approvals {
    const now = options.now ?? Date.now;
    const { journal, events } = Journal.open(join(options.dataDir, JOURNAL_FILE), { now });
    const approvals = new Approvals(journal, options);
    try {
      for (const event of events) approvals.apply(event);
      approvals.recover();
    } catch (error) {
      journal.close();
      throw error;
    }
    return approvals;
  }

  /**
   * Checks the requester, validates, runs the dry run, and journals a pending request. An older
   * pending request for the identical tool, site and arguments is superseded (see `replaces`).
   */
  async propose(input: {
    tool: string;
    args: Record<string, unknown>;
    requester: Actor;
    channel?: string;
  }): Promise<ChangeRequest> {
    const { registry, policy } = this.options;
    const decision = await policy.canRequest(input.requester, input.channel);
    if (!decision.ok) throw new NotAuthorizedError(decision.reason);
    if (registry.require(input.tool).access !== 'write') {
      throw new ValidationError([
        { field: 'tool', rule: `${input.tool} only reads; change requests are for writes` },
      ]);
    }
    // confirm and dry_run are how a request is run, not what it changes.
    const { confirm: _confirm, dry_run: _dryRun, ...args } = registry.validate(input.tool, input.args);
    const preview = await this.dryRun(input.tool, args);
    return snapshot(
      this.create({
        tool: input.tool,
        args,
        requester: input.requester,
        channel: input.channel,
        preview,
      }),
    );
  }

  /** Records which Slack message shows the request, so expiry and outcomes can edit it after a restart. */
  attachMessage(id: string, message: MessageRef): void {
    if (!this.requests.has(id)) throw new ResourceNotFoundError('change request', id);
    this.record({ type: 'message', id, actor: SYSTEM_ACTOR, message });
  }

  /** Approves and, unless the preview drifted, runs the change; exactly once however often it is clicked. */
  async approve(id: string, approver: Actor): Promise<ApproveOutcome> {
    const request = this.requests.get(id);
    if (!request) return { kind: 'not_found', id };
    const early = this.approveBlocked(request);
    if (early) return early;
    const decision = await this.options.policy.canApprove(snapshot(request), approver);
    // The policy awaited: another click may have claimed or cancelled it meanwhile.
    const late = this.approveBlocked(request);
    if (late) return late;
    if (!decision.ok) return { kind: 'refused', request: snapshot(request), reason: decision.reason };
    // The claim. No await between the state check above and this synchronous append, so exactly
    // one caller gets here for a request; every other one sees 'approved' and answers 'already'.
    this.record({ type: 'approved', id, actor: approver, previewHash: request.previewHash });
    this.options.logger.info(
      { id, tool: request.tool, approver: approver.userId },
      'change request approved',
    );
    return this.execute(request, approver);
  }

  /** Cancels a pending request; the requester or anyone allowed to approve it may. */
  async cancel(id: string, actor: Actor): Promise<CancelOutcome> {
    const request = this.requests.get(id);
    if (!request) return { kind: 'not_found', id };
    if (this.cancelBlocked(request)) return { kind: 'already', request: snapshot(request) };
    const decision = await this.options.policy.canCancel(snapshot(request), actor);
    if (this.cancelBlocked(request)) return { kind: 'already', request: snapshot(request) };
    if (!decision.ok) return { kind: 'refused', request: snapshot(request), reason: decision.reason };
    this.record({ type: 'cancelled', id, actor });
    return { kind: 'cancelled', request: snapshot(request) };
  }

  /** Expires pending requests past their time and returns them, so the UI can edit their messages. */
  expireDue(): ChangeRequest[] {
    const expired: ChangeRequest[] = [];
    for (const request of this.requests.values()) {
      if (request.state === 'pending' && this.isPastExpiry(request)) {
        this.record({ type: 'expired', id: request.id, actor: SYSTEM_ACTOR });
        expired.push(snapshot(request));
      }
    }
    return expired;
  }

  /** A copy of one request, or undefined for an id never seen (the UI says "expired or unknown, not run"). */
  get(id: string): ChangeRequest | undefined {
    const request = this.requests.get(id);
    return request ? snapshot(request) : undefined;
  }

  /** Copies of all requests, oldest first, optionally in one state. */
  list(filter: { state?: ChangeState } = {}): ChangeRequest[] {
    return [...this.requests.values()]
      .filter((request) => filter.state === undefined || request.state === filter.state)
      .map(snapshot);
  }

  /** Releases the journal; later transitions throw. */
  close(): void {
    this.journal.close();
  }

  private async dryRun(tool: string, args: Record<string, unknown>): Promise<unknown> {
    const { registry, context } = this.options;
    return redactSecrets(await registry.run(tool, { ...args, dry_run: true }, context));
  }

  /** Journals a new pending request, superseding older pending ones for the identical change. */
  private create(input: {
    tool: string;
    args: Record<string, unknown>;
    requester: Actor;
    channel?: string;
    preview: unknown;
    id?: string;
    replaces?: string;
  }): ChangeRequest {
    const id = input.id ?? newId();
    const key = canonicalJson([input.tool, input.args]);
    const stale = [...this.requests.values()].filter(
      (r) => r.state === 'pending' && r.id !== input.replaces && canonicalJson([r.tool, r.args]) === key,
    );
    for (const old of stale) {
      const differences = diffPreviews(old.preview, input.preview);
      this.record({ type: 'superseded', id: old.id, actor: input.requester, supersededBy: id, differences });
    }
    const created = this.now();
    const request: ChangeRequest = {
      id,
      tool: input.tool,
      site: typeof input.args.site_id === 'string' ? input.args.site_id : '',
      args: input.args,
      requester: input.requester,
      channel: input.channel,
      preview: input.preview,
      previewHash: previewHash(input.preview),
      createdAt: new Date(created).toISOString(),
      expiresAt: new Date(created + this.options.ttlSeconds * 1000).toISOString(),
      state: 'pending',
      replaces: input.replaces ?? stale.at(-1)?.id,
    };
    if (request.channel === undefined) delete request.channel;
    if (request.replaces === undefined) delete request.replaces;
    this.record({ type: 'created', id, actor: input.requester, request });
    this.options.logger.info({ id, tool: request.tool, site: request.site }, 'change request proposed');
    // The map holds the replayed copy, so memory and journal cannot disagree.
    return this.requests.get(id) ?? request;
  }

  /** After a won claim: re-run the dry run, compare, then run with confirm exactly once. */
  private async execute(request: ChangeRequest, approver: Actor): Promise<ApproveOutcome> {
    const { id, tool, args } = request;
    let fresh: unknown;
    try {
      fresh = await this.dryRun(tool, args);
    } catch (error) {
      const found = summarize(error);
      const summary = {
        code: found.code,
        message: `not run, the check at approval failed: ${found.message}`,
      };
      this.recordOutcome({ type: 'failed', id, actor: approver, error: summary, stage: 'recheck' });
      return { kind: 'failed', request: snapshot(request), error: summary };
    }
    if (previewHash(fresh) !== request.previewHash) {
      const found = diffPreviews(request.preview, fresh);
      const differences = found.length > 0 ? found : ['the preview changed'];
      const replacementId = newId();
      this.record({ type: 'superseded', id, actor: approver, supersededBy: replacementId, differences });
      // On behalf of the original requester: the approver clicked; they did not ask for a change.
      const replacement = this.create({
        tool,
        args,
        requester: request.requester,
        channel: request.channel,
        preview: fresh,
        id: replacementId,
        replaces: id,
      });
      this.options.logger.info({ id, replacement: replacementId, differences }, 'preview drifted; not run');
      return { kind: 'drift', request: snapshot(request), replacement: snapshot(replacement), differences };
    }
    this.record({ type: 'executing', id, actor: approver });
    let result: unknown;
    try {
      result = await this.options.registry.run(tool, { ...args, confirm: true }, this.options.context);
    } catch (error) {
      const summary = summarize(error);
      this.options.logger.warn({ id, tool, error: summary }, 'change request failed');
      this.recordOutcome({ type: 'failed', id, actor: approver, error: summary, stage: 'execute' });
      return { kind: 'failed', request: snapshot(request), error: summary };
    }
    this.recordOutcome({
      type: 'succeeded',
      id,
      actor: approver,
      result: capForJournal(redactSecrets(result)),
    });
    this.options.logger.info({ id, tool }, 'change request succeeded');
    return { kind: 'succeeded', request: snapshot(request), result };
  }

  /** Why an approve click cannot proceed (not pending, or past its time), or undefined if it can. */
  private approveBlocked(request: ChangeRequest): ApproveOutcome | undefined {
    if (request.state === 'pending' && this.isPastExpiry(request)) {
      this.record({ type: 'expired', id: request.id, actor: SYSTEM_ACTOR });
    }
    if (request.state === 'expired') return { kind: 'expired', request: snapshot(request) };
    if (request.state !== 'pending') return { kind: 'already', request: snapshot(request) };
    return undefined;
  }

  private cancelBlocked(request: ChangeRequest): boolean {
    if (request.state === 'pending' && this.isPastExpiry(request)) {
      this.record({ type: 'expired', id: request.id, actor: SYSTEM_ACTOR });
    }
    return request.state !== 'pending';
  }

  private isPastExpiry(request: ChangeRequest): boolean {
    return this.now() >= Date.parse(request.expiresAt);
  }

  /** Journal first, then memory: a transition that is not on disk has not happened. */
  private record(entry: JournalEntry): void {
    this.apply(this.journal.append(entry));
  }

  /**
   * Outcomes of a write that already ran: if the journal cannot take them, memory still tells
   * the truth now, and after a restart the request shows "outcome unknown" (the journal's view).
   */
  private recordOutcome(entry: JournalEntry): void {
    try {
      this.record(entry);
    } catch (error) {
      this.options.logger.error(
        { err: error, id: entry.id },
        'could not journal the outcome of a change; after a restart it will show as outcome unknown',
      );
      this.apply({ ...entry, seq: 0, at: new Date(this.now()).toISOString(), prev: '' });
    }
  }

  /** Applies one event to memory; the same code replays the journal and performs live transitions. */
  private apply(event: JournalEvent): void {
    if (event.type === 'created') {
      this.requests.set(event.id, structuredClone(event.request));
      return;
    }
    const request = this.requests.get(event.id);
    if (!request)
      throw new Error(
        `approvals journal event ${event.seq} (${event.type}) names unknown request ${event.id}`,
      );
    switch (event.type) {
      case 'message':
        request.message = event.message;
        break;
      case 'approved':
        request.state = 'approved';
        request.approver = event.actor;
        request.decidedAt = event.at;
        break;
      case 'executing':
        request.state = 'executing';
        break;
      case 'succeeded':
        request.state = 'succeeded';
        request.result = event.result;
        break;
      case 'failed':
        request.state = 'failed';
        request.error = event.error;
        break;
      case 'cancelled':
        request.state = 'cancelled';
        request.cancelledBy = event.actor;
        request.decidedAt = event.at;
        break;
      case 'expired':
        request.state = 'expired';
        break;
      case 'superseded':
        request.state = 'superseded';
        request.supersededBy = event.supersededBy;
        break;
      case 'outcome_unknown':
        request.state = 'unknown';
        request.error = {
          code: 'outcome_unknown',
          message: 'outcome unknown: the bot stopped while this change was running; verify on the controller',
        };
        break;
    }
  }

  /** After replay: interrupted runs become 'unknown' (never re-run by themselves); overdue ones expire. */
  private recover(): void {
    for (const request of this.requests.values()) {
      if (request.state === 'approved' || request.state === 'executing') {
        const previous = request.state;
        this.record({ type: 'outcome_unknown', id: request.id, actor: SYSTEM_ACTOR, previous });
        this.options.logger.warn(
          { id: request.id, tool: request.tool, previous },
          'change request was interrupted by a restart; outcome unknown, verify on the controller',
        );
      } else if (request.state === 'pending' && this.isPastExpiry(request)) {
        this.record({ type: 'expired', id: request.id, actor: SYSTEM_ACTOR });
      }
    }
  }
}
