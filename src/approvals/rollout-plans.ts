/**
 * A rollout's preview: each site's dry run (its own planned state, on its own console), the
 * combined blast radius and risk, and the sites where the change would do nothing or fail. The
 * policy is asked about every site's steps with the rollout's shape (`rollout.*` in CEL), and the
 * strictest answer rules the whole.
 */
import { combineAssessments, type PlannedStep, planSet } from '../changes/change-set.js';
import { rolloutFacts, siteName, stepPlace } from '../changes/rollout.js';
import { readOpenAlerts } from '../changes/rollout-health.js';
import { isNoOpPreview } from '../format/plain-text.js';
import { redactSecrets } from '../lib/redact.js';
import type { ChangeSetRecord, RolloutRecord, RolloutSite, SetStep } from '../model/change-request.js';
import type { ChangeAssessment } from '../tools/core/assess.js';
import type { ToolContext } from '../tools/core/define-tool.js';
import type { ToolRegistry } from '../tools/core/registry.js';
import type { Actor } from './types.js';

/** The policy's assessment of one step of a set or rollout on its planned state (Approvals.assess). */
export type AssessStep = (
  change: {
    tool: string;
    args: Record<string, unknown>;
    requester: Actor;
    channel?: string;
    rollout?: Record<string, unknown>;
  },
  context: ToolContext,
) => Promise<ChangeAssessment>;

/** What planning needs: the tools, and the policy's assessment of one step. */
export interface RolloutPlanner {
  registry: ToolRegistry;
  dryRun: (step: SetStep, context: ToolContext) => Promise<unknown>;
  assess: AssessStep;
}

/**
 * Which of `sites` the plan would change: each site's steps dry-run on a planned state of its
 * own. A site whose dry run fails, or where every step would change nothing, is left out, with why.
 */
export async function probeSites(
  planner: RolloutPlanner,
  context: ToolContext,
  stepsOf: (site: RolloutSite) => SetStep[],
  sites: readonly RolloutSite[],
): Promise<{ viable: RolloutSite[]; skipped: { console: string; site: string; reason: string }[] }> {
  const viable: RolloutSite[] = [];
  const skipped: { console: string; site: string; reason: string }[] = [];
  for (const site of sites) {
    try {
      const previews: unknown[] = [];
      await planSet(
        planner.registry,
        context,
        { onFailure: 'stop', steps: stepsOf(site) },
        undefined,
        async (step, ctx) => {
          const preview = await planner.dryRun(step, ctx);
          previews.push(preview);
          return preview;
        },
      );
      if (previews.every((preview) => isNoOpPreview(preview)))
        skipped.push({ ...site, reason: 'would change nothing: it already has these settings' });
      else viable.push(site);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      skipped.push({ ...site, reason: `would fail: ${reason}` });
    }
  }
  return { viable, skipped };
}

/** One site's part of the preview: its wave and each step's dry run (console and site said once). */
function siteShown(rollout: RolloutRecord, index: number, steps: readonly PlannedStep[]) {
  const place = stepPlace(rollout, index * rollout.stepsPerSite);
  return {
    site: siteName(place),
    wave: place.wave,
    steps: steps.map(({ tool, args, preview }) => {
      const { console: _c, site_id: _s, ...rest } = args;
      const body =
        typeof preview === 'object' && preview !== null && !Array.isArray(preview)
          ? (({ console: _pc, warnings: _w, ...p }) => p)(preview as Record<string, unknown>)
          : preview;
      return { tool, args: rest, preview: body };
    }),
  };
}

/**
 * Every site of a rollout planned: each site's steps on its own planned state, each step assessed
 * with the rollout's shape; the preview lists the sites by wave, and the assessment combines all.
 * A site whose dry run now fails throws, naming the site.
 */
export async function planRollout(
  planner: RolloutPlanner,
  set: ChangeSetRecord,
  change: { requester: Actor; channel?: string },
  context: ToolContext,
): Promise<{ preview: unknown; assessment: ChangeAssessment }> {
  const rollout = set.rollout as RolloutRecord;
  const facts = rolloutFacts(rollout);
  const assessed: ChangeAssessment[] = [];
  const shown: ReturnType<typeof siteShown>[] = [];
  const warnings: string[] = [];
  for (const [index, site] of rollout.sites.entries()) {
    const k = rollout.stepsPerSite;
    const steps = set.steps.slice(index * k, (index + 1) * k);
    let planned: PlannedStep[];
    try {
      planned = await planSet(
        planner.registry,
        context,
        { onFailure: 'stop', steps },
        async (step, _n, ctx) => {
          const assessment = await planner.assess(
            { ...step, requester: change.requester, channel: change.channel, rollout: facts },
            ctx,
          );
          assessed.push(assessment);
        },
        (step, ctx) => planner.dryRun(step, ctx),
      );
    } catch (error) {
      if (error instanceof Error) error.message = `${siteName(site)}: ${error.message}`;
      throw error;
    }
    for (const step of planned) {
      const stepWarnings = (step.preview as { warnings?: unknown })?.warnings;
      if (Array.isArray(stepWarnings))
        for (const w of stepWarnings) warnings.push(`${siteName(site)}: ${String(w)}`);
    }
    shown.push(siteShown(rollout, index, planned));
  }
  // Among the warnings (outside the preview's hash): a watcher may start or stop before the approval.
  if (rollout.soakSeconds > 0)
    for (const site of rollout.sites)
      if ((await readOpenAlerts(context, site)) === undefined)
        warnings.push(
          `${siteName(site)}: alerts are not watched there; its soak reads devices and WANs only`,
        );
  const consoles = new Set(rollout.sites.map((s) => s.console)).size;
  const preview = {
    dry_run: true,
    rollout: set.title ?? 'rollout',
    sites: `${rollout.sites.length} site(s) on ${consoles} console(s), from sites=${rollout.target}`,
    waves: rollout.waves.map((size, i) => {
      const first = rollout.waves.slice(0, i).reduce((a, b) => a + b, 0);
      return `wave ${i + 1}: ${rollout.sites
        .slice(first, first + size)
        .map(siteName)
        .join(', ')}`;
    }),
    soak:
      rollout.soakSeconds > 0
        ? `${rollout.soakSeconds}s after each wave but the last, watching the done sites for devices going offline, WANs going down and new alerts the watcher opens`
        : 'none: each wave follows the one before at once',
    halts_on:
      'a write that fails, a verification mismatch (applied, not as sent), or a health regression during a soak; it then asks: continue, revert the done sites, or stop',
    per_site: shown,
    ...(rollout.skipped && rollout.skipped.length > 0
      ? { not_included: rollout.skipped.map((s) => `${s.console}/${s.site}: ${s.reason}`) }
      : {}),
    warnings,
  };
  return { preview: redactSecrets(preview), assessment: bySite(combineAssessments(assessed), rollout) };
}

/** The combined assessment with each reason named by its site (`berlin/default: …`), not its step. */
function bySite(assessment: ChangeAssessment, rollout: RolloutRecord): ChangeAssessment {
  const named = (text: string) =>
    text.replace(/^step (\d+): /, (_all, n: string) => `${siteName(stepPlace(rollout, Number(n) - 1))}: `);
  const { radius, decision } = assessment;
  return {
    ...assessment,
    radius: { ...radius, reasons: radius.reasons.map(named) },
    decision: {
      ...decision,
      reasons: decision.reasons.map(named),
      ...(decision.deny ? { deny: { ...decision.deny, reason: named(decision.deny.reason) } } : {}),
    },
  };
}
