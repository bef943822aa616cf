import { newRequestId } from '../changes/request-id.js';
import { type ChangePlans, ChangeRunner } from '../changes/runner.js';
import { canonicalJson, diffPreviews, previewHash } from '../lib/canonical.js';
import type { Logger } from '../log.js';
import {
  type BreakGlassRecord,
  type ChangeAssessmentRecord,
  type ChangeSetRecord,
  SYSTEM_ACTOR,
} from '../model/change-request.js';
import { Gate, type GateAction, type GateFace, type GateVerdict } from '../policy/gate.js';
import { DEFAULT_POLICY } from '../policy/policy.js';
import type { DeadlineStore } from '../store/deadlines.js';
import type {
  ChangeFilter,
  ChangeStore,
  JournalHead,
  PendingFilter,
  RequestHistory,
} from '../store/types.js';
import { assessChange, type ChangeAssessment } from '../tools/core/assess.js';
import type { ToolContext } from '../tools/core/define-tool.js';
import type { ToolRegistry } from '../tools/core/registry.js';
import { personOf } from './mcp-requester.js';
import { type ChangeListener, observeChanges } from './observed-store.js';
import type { ApprovalPeople } from './people.js';
import { Previews } from './previews.js';
import { claimDueReminders } from './reminders.js';
import { snapshotContext } from './snapshot-context.js';
import {
  assessmentRecord,
  type ChangeTiming,
  faceOf,
  type GateChange,
  gateRefusal,
  setAsProposed,
} from './terms.js';
import type { Actor, ChangeRequest } from './types.js';
import { Windows } from './windows.js';

/** What Approvals needs. */
export interface ApprovalsOptions {
  /** Where requests and the journal live: the file store or PostgreSQL (src/store). */
  store: ChangeStore;
  registry: ToolRegistry;
  context: ToolContext;
  policy: ApprovalPeople;
  ttlSeconds: number;
  logger: Logger;
  /** Milliseconds since the epoch; tests pass a controllable clock. */
  now?: () => number;
  /**
   * Where a change approved outside its policy window gets its run time (a `window`
   * deadline, fired by the ChangeTimers ticker like keep-or-revert deadlines). Without it such a
   * change is refused at its last approval rather than left waiting with nothing to run it.
   */
  deadlines?: DeadlineStore;
  /**
   * The running bot that fires deadlines for this store, if any (its name): a change confirmed at
   * the console or over MCP with a deadline runs only when one does.
   */
  timerKeeper?: () => Promise<string | undefined>;
  /**
   * Step-up sign-in (src/identity/, when an identity provider is configured): makes the one-time
   * link an approver follows when the policy asks for it. Unset: such an approval is refused.
   */
  stepUp?: StepUpPort;
}

/**
 * Makes a one-time sign-in link bound to a change, its approver and the preview hash they saw, and
 * to what the sign-in does: count the approval, or run a break-glass change on the requester's word.
 */
export interface StepUpPort {
  begin(binding: {
    changeId: string;
    approver: Actor;
    previewHash: string;
    purpose?: 'approve' | 'run_on_word';
  }): Promise<{ url: string; expiresAt: number }>;
}

/** What a front end wants to hear during an approval. */
export interface ApproveHooks {
  /**
   * Called once the claim is won, before the change runs (the UI edits the preview to
   * "Running…"). The runner awaits it a little before the write; a failure is logged only.
   */
  onClaimed?: (request: ChangeRequest) => Promise<void>;
}

/**
 * What every part of Approvals works from: the store (observed, so listeners hear each transition),
 * the gate, previews, windows and the runner; the reads; and creating a request once its preview
 * is known. The parts above it propose, decide, run and sweep.
 */
export class ApprovalsCore {
  /** The clock every decision uses (injectable, so tests can move it). */
  readonly now: () => number;
  protected readonly store: ChangeStore;
  protected readonly listeners = new Set<ChangeListener>();
  /** The one decision every path asks (src/policy/gate.ts). */
  readonly gate: Gate;
  /** What a change would do: dry runs, reverts, sets on the planned state. */
  protected readonly previews: Previews;
  /** Changes waiting for their window, and the deadlines that run them. */
  protected readonly windows: Windows;
  /** What runs a change once it is claimed (src/changes/runner.ts). */
  protected readonly runner: ChangeRunner;

  constructor(protected readonly options: ApprovalsOptions) {
    this.now = options.now ?? Date.now;
    this.store = observeChanges(options.store, (request) => this.changed(request));
    this.gate = new Gate(options.policy);
    this.previews = new Previews({
      store: this.store,
      registry: options.registry,
      context: options.context,
      now: this.now,
      assess: (change, context) => this.assess(change, context),
    });
    this.windows = new Windows({
      store: this.store,
      ...(options.deadlines ? { deadlines: options.deadlines } : {}),
      logger: options.logger,
      now: this.now,
    });
    this.runner = new ChangeRunner({
      store: this.store,
      registry: options.registry,
      context: options.context,
      logger: options.logger,
      now: this.now,
      ttlSeconds: options.ttlSeconds,
      ...(options.deadlines ? { deadlines: options.deadlines } : {}),
      plans: this.plans(),
    });
  }

  /** What the runner asks of approvals while it runs a change: previews, and a drifted change's replacement. */
  protected plans(): ChangePlans {
    return {
      recheck: async (request) => {
        const snapshot = snapshotContext(this.options.context);
        // The preview of a set is every step's, computed on the planned state.
        if (request.set) {
          const planned = await this.previews.planSet(request.set, request, snapshot);
          return [planned.preview, planned.assessment] as const;
        }
        return Promise.all([this.previews.previewFor(request, snapshot), this.assess(request, snapshot)]);
      },
      previewStep: (step) => {
        const snapshot = snapshotContext(this.options.context);
        return step.revertOf
          ? this.previews.previewFor({ tool: step.tool, args: step.args, revertOf: step.revertOf }, snapshot)
          : this.previews.dryRun(step.tool, step.args, snapshot);
      },
      previewFor: (change) => this.previews.previewFor(change),
      // On behalf of the original requester: the approver clicked; they did not ask for a change.
      replaceDrifted: (request, replacement) =>
        this.create({
          tool: request.tool,
          args: request.args,
          requester: request.requester,
          channel: request.channel,
          preview: replacement.preview,
          id: replacement.id,
          replaces: request.id,
          ...(replacement.assessment ? { assessment: assessmentRecord(replacement.assessment) } : {}),
          ...(request.set ? { set: setAsProposed(request.set) } : {}),
        }),
    };
  }

  /** Who may request, approve and cancel (App Home lists what a user may approve with it). */
  get policy(): ApprovalPeople {
    return this.options.policy;
  }

  /**
   * Calls `listener` after every change this process makes to a request (proposed, decided, run,
   * expired, reminded). Listeners only schedule work: they never delay or fail the approval path.
   * Returns a function that removes the listener.
   */
  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Claims the one reminder of requests pending longer than `afterSeconds` (0: none); each once. */
  async claimReminders(afterSeconds: number): Promise<ChangeRequest[]> {
    return claimDueReminders(this.store, this.now(), afterSeconds);
  }

  protected changed(request: ChangeRequest): void {
    for (const listener of this.listeners) {
      try {
        listener(request);
      } catch (error) {
        this.options.logger.warn({ err: error, id: request.id }, 'a change listener failed');
      }
    }
  }

  /**
   * Asks the gate whether `actor` may do `action` on `change` now, from the face the actor acts
   * through; the policy's decision is evaluated fresh (from the controller) unless given.
   */
  async decide(input: {
    action: GateAction;
    actor: Actor;
    change: GateChange;
    face?: GateFace;
    decision?: ChangeAssessment;
    timing?: ChangeTiming;
    command?: string;
    /** Nothing to evaluate the policy on (drift the bot cannot revert). */
    unassessed?: boolean;
  }): Promise<{ verdict: GateVerdict; assessment?: ChangeAssessment }> {
    const face = input.face ?? faceOf(input.actor);
    const undecided =
      input.unassessed === true || input.action === 'cancel' || input.action === 'cancel_scheduled';
    const assessment =
      input.decision ?? (undecided ? undefined : await this.assess({ ...input.change, face }));
    const first = input.timing?.first;
    const keeper = first && input.action === 'confirm' ? await this.timerKeeper() : undefined;
    const verdict = await this.gate.decide({
      action: input.action,
      face,
      actor: input.actor,
      change: {
        requester: input.change.requester,
        ...(input.change.channel !== undefined ? { channel: input.change.channel } : {}),
        ...(input.change.approvedBy ? { approvedBy: input.change.approvedBy } : {}),
        ...(input.change.assessment ? { assessment: input.change.assessment } : {}),
        ...(input.change.breakGlass ? { breakGlass: { approvals: input.change.breakGlass.approvals } } : {}),
      },
      ...(assessment ? { decision: assessment.decision } : {}),
      ...(first ? { timing: first } : {}),
      ...(keeper ? { timerKeeper: keeper } : {}),
      ...(input.command ? { command: input.command } : {}),
    });
    if (verdict.verdict === 'refuse') {
      this.options.logger.info(
        {
          action: input.action,
          face,
          tool: input.change.tool,
          actor: input.actor.userId,
          reason: verdict.reason,
        },
        'refused by the gate',
      );
    }
    return { verdict, ...(assessment ? { assessment } : {}) };
  }

  /** decide(), throwing the refusal (NotAuthorizedError, nothing written); the assessment it used. */
  protected async require(input: Parameters<ApprovalsCore['decide']>[0]): Promise<GateVerdict> {
    const { verdict } = await this.decide(input);
    if (verdict.verdict === 'refuse') throw gateRefusal(verdict);
    return verdict;
  }

  /** The gate's REQUESTERS and WRITE_CHANNELS part, asked before anything reads the controller. */
  protected async requireAsker(requester: Actor, channel: string | undefined): Promise<void> {
    const asker = await this.gate.mayAsk(requester, channel);
    if (asker.verdict === 'refuse') throw gateRefusal(asker);
  }

  protected async timerKeeper(): Promise<string | undefined> {
    try {
      return await this.options.timerKeeper?.();
    } catch (error) {
      this.options.logger.warn({ err: error }, 'could not tell whether a bot keeps the deadlines');
      return undefined;
    }
  }

  /**
   * The change's blast radius and what the policy in effect requires of it, read fresh
   * from the controller now (at proposal, at each approval, right before it runs).
   */
  async assess(
    change: {
      tool: string;
      args: Record<string, unknown>;
      requester: Actor;
      channel?: string;
      set?: ChangeSetRecord;
      /** The face it is asked through (the requester's, unless someone acts on it elsewhere). */
      face?: GateFace;
      /** A step of a rollout: the rollout's shape, for the policy's `rollout.*`. */
      rollout?: Record<string, unknown>;
    },
    context: ToolContext = snapshotContext(this.options.context),
  ): Promise<ChangeAssessment> {
    // A set is assessed step by step on the planned state, and the strictest step rules.
    if (change.set) return (await this.previews.planSet(change.set, change, context)).assessment;
    // In a fleet the blast radius is read on the change's own console, like its dry run.
    const named = change.args.console;
    const on =
      typeof named === 'string' && context.consoles?.fleet
        ? { ...context, gateway: context.consoles.gateway(named), console: named }
        : context;
    return assessChange(
      on,
      {
        tool: change.tool,
        args: change.args,
        requester: personOf(change.requester),
        channel: change.channel ?? '',
        face: change.face ?? faceOf(change.requester),
        ...(change.rollout ? { rollout: change.rollout } : {}),
      },
      context.guardrails?.policy ?? DEFAULT_POLICY,
      this.now(),
    );
  }

  /** One request, or undefined for an id never seen (the UI says "expired or unknown, not run"). */
  async get(id: string): Promise<ChangeRequest | undefined> {
    return this.store.get(id);
  }

  /** Requests newest first, filtered (state, requester, tool, since) and paged. */
  async list(filter: ChangeFilter = {}): Promise<ChangeRequest[]> {
    return this.store.list(filter);
  }

  /** How many requests match. */
  async count(filter: Omit<ChangeFilter, 'limit' | 'offset'> = {}): Promise<number> {
    return this.store.count(filter);
  }

  /** Pending requests live at `filter.liveAt`, soonest expiry first, a page at a time. */
  async pendingByExpiry(filter: PendingFilter): Promise<ChangeRequest[]> {
    return this.store.pendingByExpiry(filter);
  }

  /** How many pending requests `pendingByExpiry` would list without paging. */
  async countPending(filter: Omit<PendingFilter, 'limit' | 'offset'>): Promise<number> {
    return this.store.countPending(filter);
  }

  /** One request with every journal event about it. */
  async history(id: string): Promise<RequestHistory | undefined> {
    return this.store.history(id);
  }

  /** The journal's event count and last hash. */
  async journalHead(): Promise<JournalHead> {
    return this.store.journalHead();
  }

  /** The request as stored now, expired first if it is pending past its time. */
  protected async current(known: ChangeRequest): Promise<ChangeRequest> {
    return this.settle((await this.store.get(known.id)) ?? known);
  }

  /** Expires a pending request that is past its time (once, whoever gets there first). */
  protected async settle(request: ChangeRequest): Promise<ChangeRequest> {
    const at = this.now();
    if (request.state !== 'pending' || at < Date.parse(request.expiresAt)) return request;
    const expired = await this.store.transition(
      request.id,
      { type: 'expired', id: request.id, actor: SYSTEM_ACTOR },
      { from: ['pending'], at, overdue: true },
    );
    return expired ?? (await this.store.get(request.id)) ?? request;
  }

  /**
   * Journals a new pending request, superseding older pending ones for the identical change that
   * the new requester may cancel (their own, or any if they may approve them); someone else's
   * stays pending beside the new one, so nobody retires a request they could not cancel.
   */
  protected async create(input: {
    tool: string;
    args: Record<string, unknown>;
    requester: Actor;
    channel?: string;
    preview: unknown;
    id?: string;
    replaces?: string;
    revertAfterSeconds?: number;
    revertAfterRule?: string;
    forSeconds?: number;
    revertOf?: string;
    assessment?: ChangeAssessmentRecord;
    set?: ChangeSetRecord;
    breakGlass?: BreakGlassRecord;
  }): Promise<ChangeRequest> {
    const id = input.id ?? newRequestId();
    const key = canonicalJson([input.tool, input.args]);
    const pending = await this.store.list({ state: 'pending', tool: input.tool });
    const same = pending
      .filter((r) => r.id !== input.replaces && canonicalJson([r.tool, r.args]) === key)
      .reverse();
    const stale: ChangeRequest[] = [];
    for (const old of same) {
      const mayCancel =
        old.requester.userId === input.requester.userId ||
        (await this.decide({ action: 'cancel', actor: input.requester, face: 'slack', change: old })).verdict
          .verdict === 'allow';
      if (mayCancel) stale.push(old);
    }
    let replaced: string | undefined;
    for (const old of stale) {
      const differences = diffPreviews(old.preview, input.preview);
      const superseded = await this.store.transition(
        old.id,
        { type: 'superseded', id: old.id, actor: input.requester, supersededBy: id, differences },
        { from: ['pending'], at: this.now() },
      );
      if (superseded) replaced = old.id;
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
      replaces: input.replaces ?? replaced,
    };
    if (input.revertAfterSeconds !== undefined) request.revertAfterSeconds = input.revertAfterSeconds;
    if (input.revertAfterRule !== undefined) request.revertAfterRule = input.revertAfterRule;
    if (input.forSeconds !== undefined) request.forSeconds = input.forSeconds;
    if (input.revertOf !== undefined) request.revertOf = input.revertOf;
    if (input.assessment !== undefined) request.assessment = input.assessment;
    if (input.set !== undefined) request.set = input.set;
    if (input.breakGlass !== undefined) request.breakGlass = input.breakGlass;
    if (request.channel === undefined) delete request.channel;
    if (request.replaces === undefined) delete request.replaces;
    const stored = await this.store.create(request, input.requester, created);
    this.options.logger.info({ id, tool: request.tool, site: request.site }, 'change request proposed');
    return stored;
  }
}
