import { validateSet } from '../changes/change-set.js';
import type { ApproveOutcome } from '../changes/outcomes.js';
import {
  resolveSites,
  rolloutSet,
  siteName,
  siteSteps,
  soakSeconds,
  splitWaves,
} from '../changes/rollout.js';
import { ConflictError, ResourceNotFoundError, ValidationError } from '../errors.js';
import type {
  ChangeAssessmentRecord,
  ChangeSetRecord,
  RolloutRecord,
  RolloutSite,
} from '../model/change-request.js';
import { type GateVerdict, refusalText } from '../policy/gate.js';
import { probeSites } from './rollout-plans.js';
import { RunningApprovals } from './runs.js';
import { snapshotContext } from './snapshot-context.js';
import { setChange } from './terms.js';
import type { Actor, ChangeRequest } from './types.js';

/** A rollout as a face proposes it: the write(s) and `sites=`, `waves=`, `soak=` as typed. */
export interface RolloutProposal {
  steps: { tool: string; args: Record<string, unknown> }[];
  sites: string | string[];
  waves?: string | string[];
  soak?: unknown;
  title?: string;
  requester: Actor;
  channel?: string;
  /** Refuses a site the face may not write to (a Slack channel bound to a console), naming it. */
  allowSite?: (site: RolloutSite) => void;
}

/** Where a halted rollout can go on from: the first site never tried, and the steps after it. */
function untried(set: ChangeSetRecord): number {
  return set.steps.findIndex((step) => step.status === undefined || step.status === 'not_run');
}

/** Rollouts: proposed with every site's preview, continued or stopped after a halt. */
export class RolloutApprovals extends RunningApprovals {
  /**
   * Proposes a rollout: the sites `sites=` names, each dry-run; those where it would fail or
   * change nothing listed and left out; the rest split into waves and proposed as one change set
   * (approved once, run site by site), the gate asked about every site with the rollout's shape.
   */
  async proposeRollout(input: RolloutProposal): Promise<ChangeRequest> {
    await this.requireAsker(input.requester, input.channel);
    return this.createSet(await this.buildRollout(input), {
      requester: input.requester,
      ...(input.channel !== undefined ? { channel: input.channel } : {}),
    });
  }

  /**
   * A rollout's preview without proposing it (the console shows it before `approve? [y/N]`), with
   * the gate's verdict on the requester's own confirmation.
   */
  async previewRollout(input: RolloutProposal): Promise<{
    preview: unknown;
    previewHash: string;
    assessment: ChangeAssessmentRecord;
    verdict: GateVerdict;
  }> {
    return this.previewPlannedSet(await this.buildRollout(input), input);
  }

  /** The console's y: a rollout run at once on its requester's own authority, where the gate allows. */
  async runRolloutNow(
    input: RolloutProposal & { shownHash?: string },
  ): Promise<Extract<ApproveOutcome, { kind: 'succeeded' | 'failed' | 'already' }>> {
    return this.runSetOnOwnAuthority(await this.buildRollout(input), input);
  }

  /** The set a rollout is: sites resolved and dry-run, those that would fail or do nothing left out. */
  private async buildRollout(input: RolloutProposal): Promise<ChangeSetRecord> {
    const context = this.options.context;
    const consoles = context.consoles?.list() ?? [];
    const sites = await resolveSites(input.sites, consoles, async () => ['default']);
    for (const site of sites) input.allowSite?.(site);
    const waveSpec = [input.waves ?? 'rest'].flat().join(',');
    const soak = soakSeconds(input.soak);
    // The grammar and every argument checked once, on the first site, before anything is read.
    const [first] = sites;
    if (!first) throw new ValidationError([{ field: 'sites', rule: 'names no site' }]);
    validateSet(this.options.registry, { steps: siteSteps(input.steps, first) });
    splitWaves(waveSpec, sites.length);
    const planner = {
      registry: this.options.registry,
      assess: (change: Parameters<typeof this.assess>[0], ctx: Parameters<typeof this.assess>[1]) =>
        this.assess(change, ctx),
      dryRun: (step: { tool: string; args: Record<string, unknown> }, ctx: typeof context) =>
        this.options.registry.run(step.tool, { ...step.args, dry_run: true }, ctx),
    };
    const probed = await probeSites(
      planner,
      snapshotContext(context),
      (site) => siteSteps(input.steps, site),
      sites,
    );
    if (probed.viable.length === 0) {
      throw new ConflictError(
        `the rollout would change no site: ${probed.skipped.map((s) => `${s.console}/${s.site} ${s.reason}`).join('; ')}`,
      );
    }
    return rolloutSet(
      input.steps,
      {
        target: [input.sites].flat().join(','),
        waveSpec,
        sites: probed.viable,
        soakSeconds: soak,
        ...(probed.skipped.length > 0 ? { skipped: probed.skipped } : {}),
      },
      input.title,
    );
  }

  /** A halted rollout, checked: what may go on from it, or why nothing can. */
  private async halted(id: string): Promise<{ request: ChangeRequest; rollout: RolloutRecord }> {
    const request = await this.store.get(id);
    if (!request) throw new ResourceNotFoundError('change request', id);
    const rollout = request.set?.rollout;
    if (!rollout) throw new ConflictError(`${id} is not a rollout`);
    if (request.state !== 'failed')
      throw new ConflictError(
        `rollout ${id} is ${request.state}: only a halted rollout can be continued or stopped`,
      );
    if (rollout.stoppedBy)
      throw new ConflictError(
        `rollout ${id} was stopped by ${rollout.stoppedBy.name ?? rollout.stoppedBy.userId}`,
      );
    if (request.revertedBy) throw new ConflictError(`rollout ${id} was reverted by ${request.revertedBy}`);
    return { request, rollout };
  }

  /**
   * Continues a halted rollout on the sites never tried, with its waves and soaks: claimed from
   * `failed` exactly once across replicas (of concurrent clicks one runs it), as the one who
   * clicked, where the gate lets them. A site whose outcome is unknown must be checked first.
   */
  async continueRollout(id: string, actor: Actor): Promise<ApproveOutcome> {
    const { request, rollout } = await this.halted(id);
    const set = request.set as ChangeSetRecord;
    const start = untried(set);
    if (start < 0) throw new ConflictError(`rollout ${id} has no site left to write to`);
    const unsure = set.steps.findIndex((step) => step.status === 'unknown' || step.status === 'running');
    if (unsure >= 0) {
      const site = rollout.sites[Math.floor(unsure / rollout.stepsPerSite)];
      throw new ConflictError(
        `the outcome at ${site ? siteName(site) : '?'} is unknown: check it on the controller before the rollout goes on`,
      );
    }
    // The policy on what is left, now: the sites not yet written, on a fresh read.
    const done = Math.floor(start / rollout.stepsPerSite);
    const left = rollout.sites.slice(done);
    // The waves still to run, as the rollout split them (a wave under way keeps what is left of it).
    let skip = done;
    const waves = rollout.waves.flatMap((size) => {
      const kept = Math.max(0, size - skip);
      skip = Math.max(0, skip - size);
      return kept > 0 ? [kept] : [];
    });
    const rest = rolloutSet(
      set.steps.slice(0, rollout.stepsPerSite).map(({ tool, args }) => ({ tool, args })),
      { ...rollout, sites: left, waveSpec: waves.join(',') },
      set.title,
    );
    const assessment = await this.assess({ ...setChange(rest, request.requester), set: rest });
    const { verdict } = await this.decide({
      action: 'continue_rollout',
      actor,
      change: request,
      decision: assessment,
    });
    if (verdict.verdict === 'refuse') return { kind: 'refused', request, reason: refusalText(verdict) };
    const claimed = await this.store.transition(
      id,
      {
        type: 'approved',
        id,
        actor,
        previewHash: request.previewHash,
        note: `continued after a halt by ${actor.name ?? actor.userId}, from ${siteName(left[0] as RolloutSite)}`,
      },
      { from: ['failed'], at: this.now() },
    );
    if (!claimed) return { kind: 'already', request: (await this.store.get(id)) ?? request };
    const executing = await this.store.transition(
      id,
      { type: 'executing', id, actor },
      { from: ['approved'], at: this.now(), ownedBySelf: true },
    );
    if (!executing) return { kind: 'already', request: (await this.store.get(id)) ?? claimed };
    this.options.logger.info({ id, from: start + 1, actor: actor.userId }, 'rollout continued');
    return this.runner.continueRollout(executing, actor, start);
  }

  /** Stops a halted rollout where it is: the done sites stay, nothing more is written. */
  async stopRollout(id: string, actor: Actor): Promise<ChangeRequest> {
    const { request } = await this.halted(id);
    const { verdict } = await this.decide({
      action: 'stop_rollout',
      actor,
      change: request,
      unassessed: true,
    });
    if (verdict.verdict === 'refuse') throw new ConflictError(refusalText(verdict));
    const stopped = await this.store.transition(
      id,
      { type: 'rollout', id, actor, event: 'stopped' },
      { from: ['failed'], at: this.now() },
    );
    if (!stopped) throw new ConflictError(`rollout ${id} is no longer halted`);
    return stopped;
  }
}
