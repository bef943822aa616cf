import { setTimeout as sleep } from 'node:timers/promises';
import { ConflictError } from '../errors.js';
import { previewHash } from '../lib/canonical.js';
import type { Logger } from '../log.js';
import {
  type Actor,
  type ChangeRequest,
  type ChangeSetRecord,
  type ErrorSummary,
  type SetStep,
  type SetStepStatus,
  SYSTEM_ACTOR,
} from '../model/change-request.js';
import type { ChangeStore } from '../store/types.js';
import type { ToolContext } from '../tools/core/define-tool.js';
import type { ToolRegistry } from '../tools/core/registry.js';
import { inStep, stepLines } from './change-set.js';
import type { OutcomeJournal } from './outcome-journal.js';
import { type ApproveOutcome, summarize } from './outcomes.js';
import { newRequestId } from './request-id.js';
import { inverseOf } from './revert.js';
import { endsWave, siteName, stepPlace } from './rollout.js';
import { alertsNotWatched, healthRegression, type RolloutHealth, readSiteHealth } from './rollout-health.js';
import type { ChangePlans, RunOptions } from './runner.js';

/** What running a set needs: the runner's store and clock, and the runner itself for each step. */
export interface SetRunnerOptions {
  store: ChangeStore;
  registry: ToolRegistry;
  /** Where a rollout reads its sites' health. */
  context: ToolContext;
  logger: Logger;
  now: () => number;
  /** How often a rollout's soak reads the health of its sites, ms [5 000]. */
  soakPollMs?: number;
  /** How long a step's own request would stay pending (it is claimed at once). */
  ttlSeconds: number;
  plans: ChangePlans;
  journal: OutcomeJournal;
  /** Runs one claimed step exactly as a single change runs. */
  execute: (request: ChangeRequest, approver: Actor, options: RunOptions) => Promise<ApproveOutcome>;
}

/**
 * Runs a claimed change set: its steps in order, each as a change request of its own approved
 * with the set, and on a failure the compensation its on_failure asks for. The set's record says
 * where each step is before and after its write, so a restart can settle it (recovery.ts).
 */
export class SetRunner {
  constructor(private readonly options: SetRunnerOptions) {}

  /**
   * Runs the steps of a claimed set from `start`, in order, each as a change request of its own
   * (approved with the set): dry run, before-image, write, outcome, verification, exactly as a
   * single change. The set's own record says `running` before each step's write is sent and
   * `done` or `failed` once it answered, so a restart knows where it stopped.
   */
  async run(parent: ChangeRequest, approver: Actor, start: number): Promise<ApproveOutcome> {
    let request = parent;
    const steps = (parent.set as ChangeSetRecord).steps;
    const health = new Map<string, RolloutHealth>();
    // A rollout continued after a halt watches the sites it wrote before, too.
    if (parent.set?.rollout)
      for (let index = 0; index < start; index += 1)
        if (steps[index]?.status === 'done') await this.watchSite(parent, index, health);
    for (let index = start; index < steps.length; index += 1) {
      const rollout = (request.set as ChangeSetRecord).rollout;
      // A rollout continued after a halt runs only the sites never tried.
      if (rollout && steps[index]?.status !== undefined && steps[index]?.status !== 'not_run') continue;
      try {
        if (rollout) await this.watchSite(request, index, health);
        const ran = await this.runStep(request, index, approver);
        request = ran.parent;
        if (!ran.ok) return this.finish(request, index);
        if (!rollout) continue;
        if (ran.verification?.status === 'not_as_sent') {
          const what = (ran.verification.mismatches ?? [])
            .slice(0, 3)
            .map((m) => `${m.field} sent ${JSON.stringify(m.sent)}, holds ${JSON.stringify(m.holds)}`)
            .join('; ');
          return this.halt(request, index, {
            code: 'verification_mismatch',
            message: `verification mismatch: applied, not as sent${what ? ` (${what})` : ''}`,
          });
        }
        const wave = endsWave(rollout, index);
        if (wave !== undefined) {
          const regression = await this.soak(request, wave, health);
          if (regression)
            return this.halt(request, index, { code: 'health_regression', message: regression });
        }
      } catch (error) {
        // The set's record could not be kept: stop here; what is known is reported and compensated.
        this.options.logger.error(
          { err: error, id: parent.id, step: index + 1 },
          'a change set could not record a step; stopped',
        );
        return this.finish(request, index, summarize(error));
      }
    }
    return this.finish(request, undefined);
  }

  /** The health of a rollout step's site before its first write, so its soak has a baseline. */
  private async watchSite(
    parent: ChangeRequest,
    index: number,
    health: Map<string, RolloutHealth>,
  ): Promise<void> {
    const rollout = (parent.set as ChangeSetRecord).rollout;
    if (!rollout || rollout.soakSeconds === 0) return;
    const place = stepPlace(rollout, index);
    const key = siteName(place);
    if (!health.has(key)) health.set(key, await readSiteHealth(this.options.context, place));
  }

  /**
   * The soak after wave `wave`: waits its time reading the health of every site written so far,
   * and answers the first regression (a device offline, a WAN down, a new alert) against its
   * baseline, saying where alerts are not watched. The soak passing is journaled, so the record
   * shows each wave waited.
   */
  private async soak(
    parent: ChangeRequest,
    wave: number,
    health: Map<string, RolloutHealth>,
  ): Promise<string | undefined> {
    const rollout = (parent.set as ChangeSetRecord).rollout;
    if (!rollout || rollout.soakSeconds === 0) return undefined;
    // The wait is measured on the monotonic clock: the injectable `now` dates records, not sleeps.
    const started = performance.now();
    const left = () => rollout.soakSeconds * 1000 - (performance.now() - started);
    const poll = this.options.soakPollMs ?? 5_000;
    this.options.logger.info({ id: parent.id, wave, seconds: rollout.soakSeconds }, 'rollout soaking');
    const unwatched = alertsNotWatched(health);
    for (;;) {
      await sleep(Math.max(0, Math.min(poll, left())));
      for (const [key, before] of health) {
        const [console = '', site = ''] = key.split('/');
        const now = await readSiteHealth(this.options.context, { console, site });
        const regression = healthRegression({ console, site }, before, now);
        if (regression)
          return `health regression during the soak after wave ${wave}: ${regression}${unwatched ? `; ${unwatched}` : ''}`;
      }
      if (left() <= 0) break;
    }
    await this.options.store.transition(
      parent.id,
      {
        type: 'rollout',
        id: parent.id,
        actor: SYSTEM_ACTOR,
        event: 'soaked',
        wave,
        note: `${health.size} site(s) healthy${unwatched ? `; ${unwatched}` : ''}`,
      },
      { from: ['executing'], at: this.options.now(), ownedBySelf: true },
    );
    return undefined;
  }

  /**
   * A rollout halted after step `index` (or at it, when it failed): it ends `failed`, the done
   * sites as they are, with why and where; a person continues it, reverts the done sites, or stops it.
   */
  private async halt(parent: ChangeRequest, index: number, cause: ErrorSummary): Promise<ApproveOutcome> {
    const set = parent.set as ChangeSetRecord;
    const rollout = set.rollout;
    if (!rollout) return this.finish(parent, index, cause);
    const place = stepPlace(rollout, index);
    const sitesDone = new Set(
      set.steps.flatMap((step, i) => (step.status === 'done' ? [siteName(stepPlace(rollout, i))] : [])),
    );
    const outcome = await this.fail(
      parent,
      parent,
      cause,
      `rollout halted at ${siteName(place)} (wave ${place.wave} of ${rollout.waves.length}): ${cause.message}; ${sitesDone.size} of ${rollout.sites.length} site(s) done, they stay as they are: continue, revert the done sites, or stop`,
    );
    this.options.logger.warn(
      { id: parent.id, console: place.console, site: place.site, wave: place.wave, code: cause.code },
      'rollout halted',
    );
    return outcome;
  }

  /**
   * Journals the set `failed` (`request`, its latest copy) in the name of `parent`'s approver:
   * `cause`'s codes, with `message` saying where it stopped.
   */
  private async fail(
    request: ChangeRequest,
    parent: ChangeRequest,
    cause: ErrorSummary,
    message: string,
  ): Promise<ApproveOutcome> {
    const error: ErrorSummary = {
      code: cause.code,
      message,
      ...(cause.controllerCode ? { controllerCode: cause.controllerCode } : {}),
    };
    const failed = await this.options.journal.record(
      request,
      { type: 'failed', id: parent.id, actor: parent.approver ?? SYSTEM_ACTOR, error, stage: 'execute' },
      ['executing', 'unknown'],
    );
    return { kind: 'failed', request: failed, error };
  }

  /** One step of a set: previewed now (the steps before it ran), then run as its own request. */
  private async runStep(
    parent: ChangeRequest,
    index: number,
    approver: Actor,
  ): Promise<{ parent: ChangeRequest; ok: boolean; verification?: ChangeRequest['verification'] }> {
    const n = index + 1;
    const step = (parent.set as ChangeSetRecord).steps[index] as SetStep;
    let preview: unknown;
    try {
      preview = await this.options.plans.previewStep(step);
    } catch (error) {
      const failed = await this.recordStep(parent, n, {
        status: 'failed',
        error: summarize(inStep(error, n, step.tool)),
      });
      return { parent: failed, ok: false };
    }
    const child = await this.createStep(parent, n, step, preview, step.revertOf);
    let current = await this.recordStep(parent, n, { status: 'running', changeId: child.id });
    const outcome = await this.runChild(
      child,
      approver,
      `step ${n} of change set ${parent.id}, approved with it`,
    );
    if (outcome.kind === 'succeeded') {
      current = await this.recordStep(current, n, { status: 'done', changeId: child.id });
      const { verification } = outcome.request;
      return { parent: current, ok: true, ...(verification ? { verification } : {}) };
    }
    const error =
      outcome.kind === 'failed'
        ? outcome.error
        : {
            code: 'conflict',
            message: `not run: its request is ${'request' in outcome ? outcome.request.state : 'gone'}`,
          };
    current = await this.recordStep(current, n, { status: 'failed', changeId: child.id, error });
    return { parent: current, ok: false };
  }

  /** A step's own request, pending for a moment: never superseding anything, never posted on its own. */
  private async createStep(
    parent: ChangeRequest,
    n: number,
    step: { tool: string; args: Record<string, unknown> },
    preview: unknown,
    revertOf?: string,
  ): Promise<ChangeRequest> {
    const created = this.options.now();
    const request: ChangeRequest = {
      id: newRequestId(),
      tool: step.tool,
      site: typeof step.args.site_id === 'string' ? step.args.site_id : '',
      args: step.args,
      requester: parent.requester,
      preview,
      previewHash: previewHash(preview),
      createdAt: new Date(created).toISOString(),
      expiresAt: new Date(created + this.options.ttlSeconds * 1000).toISOString(),
      state: 'pending',
      setOf: parent.id,
      setStep: n,
      ...(revertOf ? { revertOf } : {}),
    };
    return this.options.store.create(request, parent.requester, created);
  }

  /** Claims a step's request for `actor` (the set's approval covered it) and runs it once. */
  private async runChild(child: ChangeRequest, actor: Actor, note: string): Promise<ApproveOutcome> {
    const claimed = await this.options.store.transition(
      child.id,
      { type: 'approved', id: child.id, actor, previewHash: child.previewHash, note },
      { from: ['pending'], at: this.options.now() },
    );
    if (!claimed) return { kind: 'already', request: (await this.options.store.get(child.id)) ?? child };
    return this.options.execute(claimed, actor, { recheck: false });
  }

  /** Journals where a step of a set is; only the replica running the set may. */
  async recordStep(
    parent: ChangeRequest,
    step: number,
    fields: { status: SetStepStatus; changeId?: string; revertId?: string; error?: ErrorSummary },
  ): Promise<ChangeRequest> {
    const rollout = parent.set?.rollout;
    const place = rollout ? stepPlace(rollout, step - 1) : undefined;
    const recorded = await this.options.store.transition(
      parent.id,
      {
        type: 'set_step',
        id: parent.id,
        actor: SYSTEM_ACTOR,
        step,
        ...fields,
        ...(place ? { console: place.console, site: place.site } : {}),
      },
      { from: ['executing'], at: this.options.now(), ownedBySelf: true },
    );
    if (!recorded) throw new ConflictError(`change set ${parent.id} is no longer run by this process`);
    return recorded;
  }

  /**
   * The end of a set's run. All done: succeeded. A step failed at `failedAt`: with on_failure
   * rollback the steps done before it are reverted in reverse order (each a change request approved
   * by the set's approval), with stop they stay; the set ends failed, each step saying what became
   * of it.
   */
  async finish(
    parent: ChangeRequest,
    failedAt: number | undefined,
    cause?: ErrorSummary,
  ): Promise<ApproveOutcome> {
    let request = parent;
    const set = () => request.set as ChangeSetRecord;
    if (failedAt === undefined) {
      const result = { change_set: parent.id, steps: stepLines(set()) };
      const succeeded = await this.options.journal.record(
        request,
        { type: 'succeeded', id: parent.id, actor: parent.approver ?? SYSTEM_ACTOR, result },
        ['executing', 'unknown'],
      );
      this.options.logger.info({ id: parent.id, steps: set().steps.length }, 'change set succeeded');
      if (parent.revertOf) await this.options.journal.markReverted(parent.revertOf, parent.id);
      return { kind: 'succeeded', request: succeeded, result };
    }
    const failedStep = set().steps[failedAt];
    if (set().rollout) {
      const why = cause ?? failedStep?.error ?? { code: 'internal_error', message: 'it did not run' };
      return this.halt(request, failedAt, why);
    }
    if (set().onFailure === 'rollback') {
      for (let index = failedAt - 1; index >= 0; index -= 1) {
        if (set().steps[index]?.status !== 'done') continue;
        try {
          request = (await this.compensate(request, index)).parent;
        } catch (error) {
          this.options.logger.error(
            { err: error, id: parent.id, step: index + 1 },
            'a step of a change set could not be reverted',
          );
        }
      }
    }
    // Counted from what the set records (a resumed compensation reverted some before the restart).
    const before = set().steps.slice(0, failedAt);
    const reverted = before.filter((s) => s.status === 'reverted').length;
    const notReverted = before.filter((s) => s.status === 'done' || s.status === 'unknown').length;
    const why = cause ?? failedStep?.error ?? { code: 'internal_error', message: 'it did not run' };
    const done = set().steps.filter((s) => s.status === 'done').length;
    const tail =
      set().onFailure === 'stop'
        ? `on_failure=stop: the ${done} step(s) done before it stay`
        : notReverted > 0
          ? `${reverted} step(s) done before it were reverted, ${notReverted} could not be: check the steps`
          : `the ${reverted} step(s) done before it were reverted in reverse order`;
    const outcome = await this.fail(
      request,
      parent,
      why,
      `step ${failedAt + 1} (${failedStep?.tool ?? '?'}) failed: ${why.message.replace(/^step \d+ \([^)]*\): /, '')}; ${tail}`,
    );
    this.options.logger.warn(
      { id: parent.id, step: failedAt + 1, reverted, notReverted },
      'change set failed',
    );
    return outcome;
  }

  /** Reverts one done step of a set (compensation): its inverse, run at once, recorded on the set. */
  private async compensate(
    parent: ChangeRequest,
    index: number,
  ): Promise<{ parent: ChangeRequest; ok: boolean }> {
    const n = index + 1;
    const step = (parent.set as ChangeSetRecord).steps[index] as SetStep;
    const original = step.changeId ? await this.options.store.get(step.changeId) : undefined;
    const plan = original ? inverseOf(original) : { reason: 'its change request is not found' };
    const notUndone = async (reason: string) => ({
      parent: await this.recordStep(parent, n, {
        status: 'done',
        error: { code: 'conflict', message: `could not be reverted: ${reason}` },
      }),
      ok: false,
    });
    if (!original || 'reason' in plan) return notUndone('reason' in plan ? plan.reason : 'unknown');
    let child: ChangeRequest;
    try {
      const { confirm: _c, dry_run: _d, ...args } = this.options.registry.validate(plan.tool, plan.args);
      const preview = await this.options.plans.previewFor({ tool: plan.tool, args, revertOf: original.id });
      child = await this.createStep(parent, n, { tool: plan.tool, args }, preview, original.id);
    } catch (error) {
      return notUndone(summarize(error).message);
    }
    let current = await this.recordStep(parent, n, { status: 'done', revertId: child.id });
    const outcome = await this.runChild(
      child,
      SYSTEM_ACTOR,
      `compensation of change set ${parent.id}: a later step failed; reverted without a new approval, the approval of the set covered it`,
    );
    if (outcome.kind === 'succeeded') {
      current = await this.recordStep(current, n, { status: 'reverted', revertId: child.id });
      return { parent: current, ok: true };
    }
    const reason =
      outcome.kind === 'failed'
        ? outcome.error.message
        : `its revert is ${'request' in outcome ? outcome.request.state : 'gone'}`;
    return {
      parent: await this.recordStep(current, n, {
        status: 'done',
        revertId: child.id,
        error: { code: 'conflict', message: `could not be reverted: ${reason}` },
      }),
      ok: false,
    };
  }
}
