/**
 * Rollouts: one write (or a plan) on many sites, in waves. A rollout is a change set whose steps
 * are the per-site writes (each naming its console and site), with wave boundaries and a soak
 * between waves; set-runner.ts runs it with the set's claims and recovery. Here: which sites
 * `sites=` names, how `waves=` splits them, `soak=`, and the set a rollout becomes.
 */
import { ValidationError } from '../errors.js';
import type { ChangeSetRecord, RolloutRecord, RolloutSite, SetStep } from '../model/change-request.js';
import { DURATION_RULE, parseDuration } from '../policy/duration.js';
import type { ConsoleSummary } from '../tools/core/context.js';

/** The most sites one rollout writes to. */
export const MAX_ROLLOUT_SITES = 200;
/** The longest soak between two waves: a run holds its claim all that time. */
export const MAX_SOAK_SECONDS = 24 * 3_600;
const WAVE_RULE =
  'must list wave sizes separated by commas: a number of sites, a percentage (25%), or rest last';

/**
 * `waves=1,25%,rest` for `total` sites: how many sites each wave holds, in order. A number is that
 * many sites, a percentage that share of all sites (rounded up, at least one), `rest` (last only)
 * every site left. Waves past the last site are dropped; sites left after the last wave form one
 * more wave. Throws ValidationError naming `waves` and the rule broken.
 */
export function splitWaves(spec: string | readonly string[], total: number): number[] {
  const parts = (typeof spec === 'string' ? spec.split(',') : spec.flatMap((s) => s.split(',')))
    .map((part) => part.trim().toLowerCase())
    .filter((part) => part !== '');
  const refuse = (rule: string): never => {
    throw new ValidationError([{ field: 'waves', rule }]);
  };
  if (parts.length === 0) refuse(WAVE_RULE);
  if (total < 1) refuse('there are no sites to split into waves');
  const waves: number[] = [];
  let left = total;
  for (const [index, part] of parts.entries()) {
    if (left === 0) break;
    let size: number;
    if (part === 'rest') {
      if (index !== parts.length - 1) refuse(`rest must be the last wave (it is wave ${index + 1})`);
      size = left;
    } else if (/^\d{1,3}%$/.test(part)) {
      const percent = Number(part.slice(0, -1));
      if (percent < 1 || percent > 100) refuse(`${part}: a percentage must be between 1% and 100%`);
      size = Math.max(1, Math.ceil((total * percent) / 100));
    } else if (/^\d{1,4}$/.test(part)) {
      size = Number(part);
      if (size < 1) refuse(`${part}: a wave holds at least one site`);
    } else {
      return refuse(`${part}: ${WAVE_RULE}`);
    }
    size = Math.min(size, left);
    waves.push(size);
    left -= size;
  }
  if (left > 0) waves.push(left);
  return waves;
}

/** `soak=10m` in seconds (0 when not given): the wait after each wave but the last. */
export function soakSeconds(value: unknown): number {
  if (value === undefined) return 0;
  const text = Array.isArray(value) ? value.join(',') : String(value);
  const seconds = text.trim() === '0' ? 0 : parseDuration(text);
  if (seconds === undefined) throw new ValidationError([{ field: 'soak', rule: DURATION_RULE }]);
  if (seconds > MAX_SOAK_SECONDS)
    throw new ValidationError([{ field: 'soak', rule: 'must be at most 24h (the run waits that long)' }]);
  return seconds;
}

/** Lists the sites of one console when its entry names none (a read of its site list). */
export type ListSites = (console: string) => Promise<readonly string[]>;

/**
 * The sites `sites=` names, in the consoles file's order: `*` (every site of every console), a
 * label (`customer=acme`: every site of the consoles with that label), or `console/site` pairs
 * (commas between). Unknown consoles and labels matching nothing are refused, naming `sites`.
 */
export async function resolveSites(
  target: string | readonly string[],
  consoles: readonly ConsoleSummary[],
  listSites: ListSites,
): Promise<RolloutSite[]> {
  const parts = (typeof target === 'string' ? [target] : [...target])
    .flatMap((part) => part.split(','))
    .map((part) => part.trim())
    .filter((part) => part !== '');
  const refuse = (rule: string): never => {
    throw new ValidationError([{ field: 'sites', rule }]);
  };
  if (parts.length === 0)
    refuse('must name the sites: a console label (customer=acme), console/site pairs, or *');
  const sitesOf = async (entry: ConsoleSummary) =>
    (entry.sites ?? (await listSites(entry.name))).map((site) => ({ console: entry.name, site }));
  let found: RolloutSite[] = [];
  const [first] = parts;
  if (parts.length === 1 && first === '*') {
    for (const entry of consoles) found.push(...(await sitesOf(entry)));
  } else if (parts.length === 1 && first?.includes('=')) {
    const [key = '', value = ''] = first.split('=', 2);
    const matching = consoles.filter((entry) => entry.labels[key.trim()] === value.trim());
    if (matching.length === 0) refuse(`no console has the label ${first}`);
    for (const entry of matching) found.push(...(await sitesOf(entry)));
  } else {
    const names = consoles.map((entry) => entry.name);
    found = parts.map((part) => {
      const [console = '', site = '', extra] = part.split('/');
      if (console === '' || site === '' || extra !== undefined)
        refuse(`${part}: give console/site pairs (berlin/default), a label (customer=acme), or *`);
      if (!names.includes(console))
        refuse(`${part}: no console is named ${console} (this bot serves ${names.join(', ')})`);
      return { console, site };
    });
  }
  const seen = new Set<string>();
  const unique = found.filter((each) => {
    const key = `${each.console}/${each.site}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  if (unique.length > MAX_ROLLOUT_SITES)
    refuse(`names ${unique.length} sites; a rollout writes to at most ${MAX_ROLLOUT_SITES}`);
  return unique;
}

/** One site's steps: the plan's writes, each aimed at that console and site. */
export function siteSteps(
  plan: readonly { tool: string; args: Record<string, unknown> }[],
  site: RolloutSite,
): SetStep[] {
  return plan.map(({ tool, args }) => {
    const { site: _typed, site_id: _id, console: _console, ...rest } = args;
    return { tool, args: { ...rest, console: site.console, site_id: site.site } };
  });
}

/** A rollout as the change set that runs it: every site's steps in order, onFailure stop. */
export function rolloutSet(
  plan: readonly { tool: string; args: Record<string, unknown> }[],
  rollout: Omit<RolloutRecord, 'waves' | 'stepsPerSite'> & { waveSpec: string },
  title?: string,
): ChangeSetRecord {
  const waves = splitWaves(rollout.waveSpec, rollout.sites.length);
  return {
    title: title ?? `rollout of ${plan.map((step) => step.tool).join(', ')} to ${rollout.target}`,
    // A halt leaves the done sites as they are: reverting them is a decision, not a reflex.
    onFailure: 'stop',
    steps: rollout.sites.flatMap((site) => siteSteps(plan, site)),
    rollout: { ...rollout, waves, stepsPerSite: plan.length },
  };
}

/** Where step `index` (0-based) of a rollout writes, and which wave it is in (1-based). */
export function stepPlace(
  rollout: RolloutRecord,
  index: number,
): RolloutSite & { wave: number; siteIndex: number } {
  const siteIndex = Math.floor(index / rollout.stepsPerSite);
  let wave = 1;
  let upTo = 0;
  for (const [n, size] of rollout.waves.entries()) {
    upTo += size;
    wave = n + 1;
    if (siteIndex < upTo) break;
  }
  const site = rollout.sites[siteIndex] ?? { console: '?', site: '?' };
  return { ...site, wave, siteIndex };
}

/** Whether step `index` is the last of its wave, and not of the last wave (a soak follows it). */
export function endsWave(rollout: RolloutRecord, index: number): number | undefined {
  if ((index + 1) % rollout.stepsPerSite !== 0) return undefined;
  const sitesDone = Math.floor(index / rollout.stepsPerSite) + 1;
  let upTo = 0;
  for (const [n, size] of rollout.waves.entries()) {
    upTo += size;
    if (sitesDone === upTo && n < rollout.waves.length - 1) return n + 1;
  }
  return undefined;
}

/** What the CEL policy sees of a rollout (`rollout.sites`, `rollout.waves`, `rollout.soak_seconds`…). */
export function rolloutFacts(rollout: RolloutRecord): Record<string, unknown> {
  return {
    sites: rollout.sites.length,
    consoles: [...new Set(rollout.sites.map((s) => s.console))].length,
    waves: rollout.waves,
    first_wave: rollout.waves[0] ?? 0,
    soak_seconds: rollout.soakSeconds,
  };
}

/** A site as every message names it. */
export const siteName = (site: RolloutSite): string => `${site.console}/${site.site}`;
