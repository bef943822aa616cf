import { NotAuthorizedError } from '../errors.js';
import type { Actor, ChangeRequest } from '../model/change-request.js';
import {
  compareSnapshots,
  generationChanges,
  kindsOfTool,
  readSnapshot,
  revertCall,
  type Shapes,
  type Snapshot,
  type Sources,
  shapeChanges,
} from './drift.js';
import type { Drift, DriftKind, RecordOutcome, RevertOutcome } from './types.js';
import { scopeOf, type WatcherOptions } from './watch-state.js';

/** The drift baseline: the last known configuration, and the bot's runs in flight at the last sweep. */
interface Baseline {
  takenAt: number;
  checkedAt: number;
  snapshot: Snapshot;
  /** Which generation each kind was read from (absent in baselines saved by older versions: private). */
  sources?: Sources;
  /** The kinds read in another shape than the list as served (absent: none). */
  shapes?: Shapes;
  inflight: string[];
}

const baselineKey = (site: string) => `watch:baseline:${site}`;
const driftKey = (id: string) => `watch:drift:${id}`;

/** Drift: the configuration swept against its baseline, changes made behind the bot posted, accepted or reverted. */
export class DriftWatch {
  readonly #o: WatcherOptions;
  readonly #now: () => number;

  constructor(options: WatcherOptions, now: () => number) {
    this.#o = options;
    this.#now = now;
  }

  /**
   * One configuration sweep: the baseline is taken the first time (nothing posted); afterwards each
   * object that differs and that the bot did not change is posted once, and becomes the baseline.
   */
  async sweep(): Promise<Drift[]> {
    const { gateway, site, data, logger, config, console } = this.#o;
    const scope = scopeOf(this.#o);
    const readAt = this.#now();
    const inflightNow = await this.#botRuns();
    const { snapshot: current, sources, shapes } = await readSnapshot(gateway, site, logger);
    const baseline = await data.get<Baseline>(baselineKey(scope));
    if (!baseline) {
      await data.set(baselineKey(scope), {
        takenAt: readAt,
        checkedAt: readAt,
        snapshot: current,
        sources,
        shapes,
        inflight: inflightNow.inflight,
      } satisfies Baseline);
      logger.info({ console, site, kinds: Object.keys(current) }, 'watch: drift baseline taken');
      return [];
    }
    // The bot's own changes since the last sweep (from the shared change store, so a change run by
    // another replica counts too), and runs in flight then or now: their kinds are rebased, not posted.
    const ours = await this.#botRuns(baseline.checkedAt - 60_000, baseline.inflight);
    const skip = new Set<DriftKind>(ours.kinds);
    // A kind now read from another generation (the console was upgraded, an API key added or
    // removed) has other ids: compared, every object would be "removed" and "added". Its baseline is
    // taken again, silently, and said once in the log.
    const regenerated = generationChanges(baseline.sources, sources);
    for (const { kind } of regenerated) skip.add(kind);
    if (regenerated.length > 0)
      logger.info(
        { site, kinds: regenerated },
        'watch: drift baseline taken again for kinds now read from another API generation',
      );
    // A kind now read in another shape (the official Wi-Fi details, where the baseline holds the
    // list) has fields its baseline lacks: taken again, silently, like a change of generation.
    const reshaped = shapeChanges(baseline.shapes, shapes, Object.keys(current) as DriftKind[]);
    const retaken = reshaped.changed.filter((kind) => !skip.has(kind));
    for (const kind of retaken) skip.add(kind);
    if (retaken.length > 0)
      logger.info(
        { site, kinds: retaken },
        'watch: drift baseline taken again for kinds now read in more detail',
      );
    const drifts = compareSnapshots(site, baseline.snapshot, current, readAt, skip, sources);
    if (console !== undefined) for (const drift of drifts) drift.console = console;
    await data.set(baselineKey(scope), {
      takenAt: baseline.takenAt,
      checkedAt: readAt,
      snapshot: { ...baseline.snapshot, ...current },
      sources: { ...baseline.sources, ...sources },
      shapes: reshaped.shapes,
      inflight: inflightNow.inflight,
    } satisfies Baseline);
    for (const drift of drifts) {
      drift.changedBy = await this.#adminOf(drift);
      await data.set(driftKey(drift.id), drift);
      if (!config.driftChannel) continue;
      const ref = await this.#o.notifier.postDrift(config.driftChannel, drift).catch((error: unknown) => {
        logger.warn({ err: error, drift: drift.id }, 'watch: the drift message could not be posted');
        return undefined;
      });
      if (ref) {
        drift.message = ref;
        await data.set(driftKey(drift.id), drift);
      }
    }
    if (drifts.length > 0)
      logger.info({ console, site, drifts: drifts.length }, 'watch: configuration changed outside the bot');
    return drifts;
  }

  // The controller's admin log is not in the official API and the simulator has none: unknown.
  async #adminOf(_drift: Drift): Promise<string | undefined> {
    return undefined;
  }

  async #botRuns(
    since?: number,
    previouslyInflight: readonly string[] = [],
  ): Promise<{ kinds: DriftKind[]; inflight: string[] }> {
    const recent: ChangeRequest[] = await this.#o.changes.list({ limit: 100 });
    const inflight = recent.filter((r) => r.state === 'approved' || r.state === 'executing');
    const ours =
      since === undefined
        ? inflight
        : recent.filter(
            (r) =>
              r.state === 'approved' ||
              r.state === 'executing' ||
              previouslyInflight.includes(r.id) ||
              (r.decidedAt !== undefined && Date.parse(r.decidedAt) >= since && r.state !== 'cancelled'),
          );
    return {
      kinds: [...new Set(ours.flatMap((r) => kindsOfTool(r.tool)))],
      inflight: inflight.map((r) => r.id),
    };
  }

  async #drift(id: string): Promise<Drift | undefined> {
    return this.#o.data.get<Drift>(driftKey(id));
  }

  /** Accept: the change is known; who accepted is recorded and shown. */
  async acceptDrift(id: string, actor: Actor): Promise<RecordOutcome<Drift>> {
    const drift = await this.#drift(id);
    if (!drift) return { kind: 'not_found', id };
    if (drift.acceptedBy) return { kind: 'already', value: drift };
    // Accepting makes the change behind the bot the baseline: decided like its revert, by the gate.
    const approvals = this.#o.approvals;
    if (!approvals)
      throw new NotAuthorizedError('drift is accepted through the Slack bot, which decides who may');
    const allowed = await approvals.mayAcceptDrift(revertCall(drift), drift.site, actor);
    if (!allowed.ok) throw new NotAuthorizedError(allowed.reason);
    drift.acceptedBy = actor;
    drift.acceptedAt = this.#now();
    await this.#o.data.set(driftKey(id), drift);
    if (drift.message) await this.#o.notifier.updateDrift(drift);
    return { kind: 'done', value: drift };
  }

  /** Revert: a change request that puts the object back, previewed and approved like any other. */
  async revertDrift(id: string, actor: Actor, channel?: string): Promise<RevertOutcome> {
    const drift = await this.#drift(id);
    if (!drift) return { kind: 'not_found', id };
    if (drift.revertRequestId) return { kind: 'already', drift };
    const call = revertCall(drift);
    if (!call || !this.#o.approvals) {
      const reason = drift.revertUnavailable ?? 'change requests are made by the Slack bot';
      return { kind: 'unavailable', drift, reason };
    }
    const request = await this.#o.approvals.propose({
      action: 'revert_drift',
      tool: call.tool,
      args: call.args,
      requester: actor,
      ...((channel ?? drift.message?.channel) ? { channel: channel ?? drift.message?.channel } : {}),
    });
    drift.revertRequestId = request.id;
    drift.revertedBy = actor;
    await this.#o.data.set(driftKey(id), drift);
    if (drift.message) await this.#o.notifier.updateDrift(drift);
    return { kind: 'proposed', drift, request };
  }
}
