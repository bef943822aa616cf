import type { AckLatencyResult } from '../parts/acks.js';
import type { BurstRow } from '../parts/burst.js';
import { ERROR_BUDGET_MS, type ErrorScenario } from '../parts/errors.js';
import type { FleetRow } from '../parts/fleet.js';
import { fleetBudgetRows } from '../parts/fleet-report.js';
import type { FleetWatchRow } from '../parts/fleet-watch.js';
import type { GuardrailsRow } from '../parts/guardrails.js';
import type { ReadsResult } from '../parts/reads.js';
import type { RoundsResult } from '../parts/rounds.js';
import type { StartupResult } from '../parts/startup.js';
import type { StoreScaleResult } from '../parts/store-scale.js';
import type { TelemetryRow, ToolFigure } from '../parts/telemetry.js';
import type { TopologyRow } from '../parts/topology.js';
import type { WatchRow } from '../parts/watch.js';
import { idleRssMet, median, medianItem } from './stats.js';

/** What the parts measured; a part that was not selected (or failed) is absent. */
export interface PartResults {
  startup?: StartupResult;
  acks?: AckLatencyResult[];
  reads?: ReadsResult;
  rounds?: RoundsResult;
  errors?: ErrorScenario[];
  topology?: TopologyRow[];
  telemetry?: TelemetryRow;
  guardrails?: GuardrailsRow;
  watch?: WatchRow;
  /** Run with the watch part: the same watcher over a simulated fleet. */
  fleetWatch?: FleetWatchRow;
  burst?: BurstRow;
  store?: StoreScaleResult;
  fleet?: FleetRow;
}

/** One row of the budget table, as measured. */
export interface BudgetRow {
  measure: string;
  now: string;
  floor: string;
  ratio: string;
  budget: string;
  /** undefined: reported without a budget. */
  met: boolean | undefined;
}

/** Numbers for tables: fixed digits, thousands separators, an en dash for what is missing. */
export function fmt(n: number | undefined, digits = 0): string {
  if (n === undefined || !Number.isFinite(n)) return '–';
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

const times = (n: number) => `${fmt(n, 2)}×`;
const verdict = (met: boolean | undefined) => (met === undefined ? '—' : met ? 'met' : '**not met**');

/** Tools the budget table names for rounds, in its order. */
const ISSUE_ROUND_TOOLS = ['list_vlans', 'list_firewall_zones', 'list_acl_rules', 'get_dpi_statistics'];

/** The budgets, judged against this run. */
export function budgetRows(results: PartResults): BudgetRow[] {
  const rows: BudgetRow[] = [];
  if (results.store) {
    const { small, large, ratios } = results.store;
    // An older saved result holds the file store's figures only.
    const backends =
      results.store.backends ??
      (small && large && ratios ? [{ kind: 'file' as const, small, large, ratios }] : []);
    for (const b of backends) {
      for (const [query, ratio] of Object.entries(b.ratios)) {
        const budgeted = !(b.unbudgeted ?? []).includes(query);
        rows.push({
          measure: `store (${b.kind === 'file' ? 'file' : 'PostgreSQL'}): ${query}, ${fmt(b.large.entries)} journal entries / ${fmt(b.large.pending)} pending`,
          now: `${(b.large.ms[query] ?? 0).toFixed(3)} ms`,
          floor: `${(b.small.ms[query] ?? 0).toFixed(3)} ms (${fmt(b.small.entries)} entries / ${fmt(b.small.pending)} pending)`,
          ratio: times(ratio),
          budget: budgeted ? '≤ 2×' : '— (for comparison)',
          met: budgeted ? ratio <= 2 : undefined,
        });
      }
    }
  }
  if (results.burst) {
    const b = results.burst;
    rows.push({
      measure: `controller requests for ${b.people} mixed lookups at once (${b.lookups} kinds, fresh bot, controller ${fmt(b.latencyMs)} ms)`,
      now: `${fmt(b.requests)} requests${b.failed > 0 ? ` (${b.failed} lookups failed)` : ''}`,
      floor: `${fmt(b.distinct)} distinct resources`,
      ratio: times(b.requests / Math.max(1, b.distinct)),
      budget: '= distinct resources',
      met: b.requests === b.distinct && b.failed === 0,
    });
  }
  if (results.fleetWatch) {
    const f = results.fleetWatch;
    rows.push({
      measure: `controller requests per console per minute with the watcher on (polls every ${fmt(f.intervalS)} s, sweeps every ${fmt(f.driftIntervalS)} s, ${fmt(f.windowS)} s counted per console), ${fmt(f.consoles)} consoles`,
      now: `${fmt(f.fleetPerMinute, 1)} (consoles from ${fmt(f.fleetLowest, 1)} to ${fmt(f.fleetHighest, 1)})`,
      floor: `${fmt(f.onePerMinute, 1)} (1 console)`,
      ratio: times(f.ratio),
      budget: '1× ± 0.05',
      met: Math.abs(f.ratio - 1) <= 0.05,
    });
  }
  // The budget is judged on Slack's traffic shape, the open loop; the closed loop (each sender sends
  // again once acked) saturates 2 cores and measures CPU per answered command: printed beside it.
  for (const ack of results.acks ?? []) {
    const a = ack.arrivals;
    if (!a) continue;
    rows.push({
      measure: `ack p99 over ${fmt(a.bot.acks)} acks: ${a.bursts ?? 1} bursts a repeat of ${a.people} people each sending one command within ${fmt(a.windowMs / 1000)} s (open loop), controller ${fmt(ack.latencyMs)} ms, watcher 1 s, drift 5 s, samples 5 s, timers 1 s running`,
      now: `${fmt(a.bot.p99)} ms`,
      floor: `${fmt(a.floor.p99)} ms (bare Bolt); ${fmt(a.answeringFloor.p99)} ms (answering)`,
      ratio: `${times(a.p99Ratio)}; ${times(a.p99RatioAnswering)}`,
      budget: '≤ 1.30×',
      met: a.p99Ratio <= 1.3,
    });
  }
  for (const ack of results.acks ?? []) {
    rows.push({
      measure: `ack p99 under saturation (closed loop: 50 senders each sending again once acked, about 200 commands a second), controller ${fmt(ack.latencyMs)} ms`,
      now: `${fmt(ack.bot.p99)} ms`,
      floor: `${fmt(ack.floor.p99)} ms (bare Bolt, answering nothing); ${fmt(ack.answeringFloor?.p99)} ms (bare Bolt answering)`,
      ratio: `${times(ack.p99Ratio)}; ${times(ack.p99RatioAnswering ?? Number.NaN)}`,
      budget: 'not a budget: CPU per answered command on 2 cores',
      met: undefined,
    });
  }
  for (const ack of results.acks ?? []) {
    const answers = ack.runs.map((r) => `${r.bot.answers ?? 0}/${ack.commands}`).join(', ');
    const errors = ack.runs.reduce((sum, r) => sum + (r.bot.errorAnswers ?? 0), 0);
    rows.push({
      measure: `response_url answers delivered, ${fmt(ack.latencyMs)} ms controller`,
      now: `${answers}${errors > 0 ? ` (${errors} errors)` : ''}`,
      floor: '—',
      ratio: '—',
      budget: 'all',
      met: ack.allAnswered,
    });
  }
  if (results.reads) {
    const r = results.reads;
    rows.push({
      measure: `read, cold (first \`${r.tool}\` after start, controller ${fmt(r.latencyMs)} ms)`,
      now: `${fmt(r.coldMs)} ms (${fmt(r.coldRequests)} requests)`,
      floor: `${fmt(r.floorColdMs + r.roundTripMs)} ms (bare Bolt answer + 1 round trip)`,
      ratio: times(r.coldRatio),
      budget: '—',
      met: undefined,
    });
    rows.push({
      measure: `read, warm (\`${r.tool}\` again within the cache lifetime)`,
      now: `${fmt(r.warmMs)} ms (${fmt(r.warmRequests)} requests)`,
      floor: `${fmt(r.floorWarmMs)} ms (bare Bolt answer)`,
      ratio: times(r.warmRatio),
      budget: '—',
      met: undefined,
    });
  }
  if (results.rounds) {
    const tools = results.rounds.tools;
    const named = ISSUE_ROUND_TOOLS.map((name) => tools.find((t) => t.tool === name));
    const worst = [...tools].sort((a, b) => b.cold.rounds - a.cold.rounds)[0];
    const over = tools.filter((t) => t.cold.rounds > 2);
    rows.push({
      measure: `sequential controller rounds, first read after start, its warm-up done (${ISSUE_ROUND_TOOLS.join(' / ')})`,
      now: `${named.map((t) => (t ? fmt(t.cold.rounds) : '–')).join(' / ')}; worst ${worst ? `${worst.tool} ${worst.cold.rounds} (${worst.cold.requests} requests)` : '–'}; ${over.length} of ${tools.length} read tools over 2`,
      floor: '1',
      ratio: worst ? times(worst.cold.rounds) : '–',
      budget: '≤ 2 rounds, every read tool',
      met: tools.length > 0 && over.length === 0,
    });
    const racing = tools.filter((t) => t.coldDuringWarmUp !== undefined);
    const racingOver = racing.filter((t) => (t.coldDuringWarmUp?.rounds ?? 0) > 2);
    const racingWorst = [...racing].sort(
      (a, b) => (b.coldDuringWarmUp?.rounds ?? 0) - (a.coldDuringWarmUp?.rounds ?? 0),
    )[0];
    rows.push({
      measure: `sequential controller rounds, a fresh bot's first read sent while its warm-up runs, the warm-up's requests (detection, site, version) counted (${ISSUE_ROUND_TOOLS.join(' / ')})`,
      now: `${named.map((t) => (t?.coldDuringWarmUp ? fmt(t.coldDuringWarmUp.rounds) : '–')).join(' / ')}; worst ${racingWorst?.coldDuringWarmUp ? `${racingWorst.tool} ${racingWorst.coldDuringWarmUp.rounds}` : '–'}; ${racingOver.length} of ${racing.length} read tools over 2`,
      floor: '1',
      ratio: racingWorst?.coldDuringWarmUp ? times(racingWorst.coldDuringWarmUp.rounds) : '–',
      budget: '≤ 2 rounds, every read tool',
      met: racing.length > 0 ? racingOver.length === 0 : undefined,
    });
    const warm = tools.filter((t) => t.warm.requests > 0);
    rows.push({
      measure: 'controller requests for a repeated read within the cache lifetime',
      now:
        warm.length === 0
          ? '0 (every read tool)'
          : warm.map((t) => `${t.tool} ${t.warm.requests}`).join(', '),
      floor: '0',
      ratio: '—',
      budget: '0',
      met: warm.length === 0,
    });
  }
  for (const scenario of results.errors ?? []) {
    const hanging = scenario.mode === 'hang';
    const typical = medianItem(scenario.runs, (run) => run.waitMs);
    const said = typical?.mentionedMs.map((m) => `${fmt(m)} ms`).join(', ') || 'no duration';
    rows.push({
      measure: `controller ${hanging ? 'hanging' : 'refusing'} (${scenario.state}): time until the user reads an error`,
      now: `${fmt(scenario.waitMs)} ms; message names ${said}${typical?.isError === false ? ' (not an error: answered from elsewhere)' : ''}`,
      floor: '—',
      ratio: `${times(scenario.budgetRatio)} of 10 s`,
      budget: hanging ? `≤ ${ERROR_BUDGET_MS / 1000} s, and says how long the user waited` : '—',
      met: hanging ? scenario.waitMs <= ERROR_BUDGET_MS && scenario.saysWait : undefined,
    });
  }
  if (results.startup) {
    const s = results.startup;
    rows.push({
      measure: 'start to `/healthz` 200',
      now: `${fmt(s.bot.startupMs)} ms`,
      floor: `${fmt(s.floor.startupMs)} ms (bare Bolt)`,
      ratio: times(s.startupRatio),
      budget: '≤ 1.30×',
      met: s.startupRatio <= 1.3,
    });
    // Older saved runs have no steady sample, and the oldest have medians only.
    const old = s.rssLowestRatio === undefined;
    const steady = s.steadyRssRatio !== undefined;
    if (steady)
      rows.push({
        measure: `RSS at idle, ${fmt((s.steadyMs ?? 0) / 1000, 0)} s after start-up settled (${s.bot.samples.length} starts each; median, and lowest against lowest)`,
        now: `${fmt(s.bot.steadyRssMiB, 1)} MiB; lowest ${fmt(s.bot.steadyRssLowestMiB, 1)} MiB`,
        floor: `${fmt(s.floor.steadyRssMiB, 1)} MiB; lowest ${fmt(s.floor.steadyRssLowestMiB, 1)} MiB (bare Bolt)`,
        ratio: `${times(s.steadyRssRatio ?? Number.NaN)}; lowest ${times(s.steadyRssLowestRatio ?? Number.NaN)}`,
        budget: '≤ 1.20×, both',
        met: idleRssMet({ rssRatio: s.steadyRssRatio ?? Number.NaN, rssLowestRatio: s.steadyRssLowestRatio }),
      });
    rows.push({
      measure: steady
        ? `RSS ${fmt(s.idleMs / 1000, 0)} s after start-up settled, before V8's memory reducer has run in every start: printed, not judged`
        : `RSS at idle (${s.bot.samples.length} starts each; median, and lowest against lowest)`,
      now: old
        ? `${fmt(s.bot.rssMiB)} MiB`
        : `${fmt(s.bot.rssMiB, 1)} MiB; lowest ${fmt(s.bot.rssLowestMiB, 1)} MiB`,
      floor: old
        ? `${fmt(s.floor.rssMiB)} MiB (bare Bolt)`
        : `${fmt(s.floor.rssMiB, 1)} MiB; lowest ${fmt(s.floor.rssLowestMiB, 1)} MiB (bare Bolt)`,
      ratio: old
        ? times(s.rssRatio)
        : `${times(s.rssRatio)}; lowest ${times(s.rssLowestRatio ?? Number.NaN)}`,
      budget: steady ? 'not a budget: a start-up transient' : '≤ 1.20×, both',
      met: steady ? undefined : idleRssMet(s),
    });
  }
  const largest = results.topology?.at(-1);
  if (largest) {
    const full = largest.devices === 2000;
    rows.push({
      measure: `topology export (\`export_topology\` GraphML) ${fmt(largest.devices)} devices / ${fmt(largest.clients)} clients: records + graph + GraphML + redaction`,
      now: `${fmt(largest.totalMs)} ms`,
      floor: `${fmt(largest.floorMs)} ms (\`JSON.parse\`)`,
      ratio: times(largest.ratio),
      budget: full ? '≤ 2×' : '≤ 2× (judged at 2,000 / 50,000 only)',
      met: full ? largest.ratio <= 2 : undefined,
    });
    // get_network_topology answers with the built topology itself, redacted by the registry.
    const readRatio = largest.readMs / largest.floorMs;
    rows.push({
      measure: `topology read (\`get_network_topology\`) ${fmt(largest.devices)} / ${fmt(largest.clients)}: records + graph + redaction`,
      now: `${fmt(largest.readMs)} ms`,
      floor: `${fmt(largest.floorMs)} ms (\`JSON.parse\`)`,
      ratio: times(readRatio),
      budget: full ? '≤ 2×' : '≤ 2× (judged at 2,000 / 50,000 only)',
      met: full ? readRatio <= 2 : undefined,
    });
  }
  const g = results.guardrails;
  if (g?.proposeCpuRatio !== undefined) {
    const full = g.clients === 50_000;
    rows.push({
      measure: `write preview with blast radius (\`approvals.propose\` of a gateway restart) ${fmt(g.devices)} devices / ${fmt(g.clients)} clients, the bot's CPU (controller in its own process)`,
      now: `${fmt(g.proposeCpuMs)} ms CPU (${fmt(g.proposeMs)} ms wall)`,
      floor: `${fmt(g.recordsParseCpuMs)} ms (\`JSON.parse\` of stat/sta and stat/device)`,
      ratio: `${times(g.proposeCpuRatio)} CPU; ${times(g.proposeRecordsRatio ?? Number.NaN)} wall`,
      budget: full ? '≤ 3× CPU' : '≤ 3× (judged at 2,000 / 50,000 only)',
      met: full ? g.proposeCpuRatio <= 3 : undefined,
    });
  }
  if (results.fleet) rows.push(...fleetBudgetRows(results.fleet));
  return rows;
}

/** Markdown table from a header and rows of cells. */
export function table(header: string[], rows: string[][]): string {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`]
    .concat(rows.map((r) => `| ${r.join(' | ')} |`))
    .join('\n');
}

/** The whole printed report: the budget table, then one detail table per part that ran. */
export function markdownReport(results: PartResults): string {
  const out: string[] = [];
  out.push(
    table(
      ['measure', 'now', 'floor (same run)', 'ratio', 'budget', 'verdict'],
      budgetRows(results).map((r) => [r.measure, r.now, r.floor, r.ratio, r.budget, verdict(r.met)]),
    ),
  );
  if (results.acks?.length) {
    out.push(
      '### Acks under load',
      table(
        [
          'controller',
          'commands / senders / pace',
          'bot p50 / p99 ms',
          'floor p50 / p99 ms',
          'p50 / p99 ratio',
          'floor answering every command: p50 / p99 ms, bot p99 ratio to it',
          'commands waiting on the first read, their answers posted in',
          'bot p99 while those answers post / otherwise',
          'first / last answer after the first command (median run)',
          'CPU ms per command during the load: bot / floor (bot until every answer)',
        ],
        results.acks.map((a) => {
          const run = medianItem(a.runs, (r) => r.bot.p99)?.bot;
          return [
            `${fmt(a.latencyMs)} ms`,
            `${fmt(a.commands)} / ${fmt(a.senders)} / ${fmt(a.paceMs)} ms`,
            `${fmt(a.bot.p50)} / ${fmt(a.bot.p99)}`,
            `${fmt(a.floor.p50)} / ${fmt(a.floor.p99)}`,
            `${times(a.p50Ratio)} / ${times(a.p99Ratio)}`,
            a.answeringFloor
              ? `${fmt(a.answeringFloor.p50)} / ${fmt(a.answeringFloor.p99)}, ${times(a.p99RatioAnswering ?? Number.NaN)}`
              : '–',
            `${fmt(run?.waitingCommands)}, ${fmt(run?.burstMs)} ms`,
            `${fmt(run?.p99DuringAnswers)} ms (${fmt(run?.duringAnswers)} acks) / ${fmt(run?.p99Otherwise)} ms`,
            `${fmt(run?.firstAnswerMs)} / ${fmt(run?.lastAnswerMs)} ms`,
            `${fmt(median(a.runs.map((r) => r.bot.cpuMsPerCommand)), 2)} / ${fmt(median(a.runs.map((r) => r.floor.cpuMsPerCommand)), 2)} (${fmt(median(a.runs.map((r) => r.bot.cpuMsPerAnswer ?? Number.NaN)), 2)}; answering floor ${fmt(median(a.runs.map((r) => r.answeringFloor?.cpuMsPerCommand ?? Number.NaN)), 2)})`,
          ];
        }),
      ),
    );
  }
  const arrivals = (results.acks ?? []).filter((a) => a.arrivals !== undefined);
  if (arrivals.length > 0) {
    out.push(
      '### Acks of an open-loop burst (people each typing one command, at random times)',
      table(
        [
          'controller',
          'bursts of people / window',
          'bot p50 / p99 / max ms',
          'bare Bolt p50 / p99 / max ms',
          'answering floor p50 / p99 / max ms',
          'p99 per repeat: bot; bare Bolt; answering',
          'bot p99 ratio: bare Bolt; answering',
          'CPU ms per command: bot / bare Bolt / answering (until every answer)',
          'answers',
        ],
        arrivals.map((ack) => {
          const a = ack.arrivals as NonNullable<typeof ack.arrivals>;
          const f = (x: typeof a.bot) => `${fmt(x.p50)} / ${fmt(x.p99)} / ${fmt(x.max)}`;
          const per = (x: typeof a.bot) => x.runs.map((r) => fmt(r.p99)).join(', ');
          return [
            `${fmt(ack.latencyMs)} ms`,
            `${a.bursts ?? 1} of ${fmt(a.people)} / ${fmt(a.windowMs / 1000)} s`,
            f(a.bot),
            f(a.floor),
            f(a.answeringFloor),
            `${per(a.bot)}; ${per(a.floor)}; ${per(a.answeringFloor)}`,
            `${times(a.p99Ratio)}; ${times(a.p99RatioAnswering)}`,
            `${fmt(a.bot.cpuMsPerCommand, 2)} / ${fmt(a.floor.cpuMsPerCommand, 2)} / ${fmt(a.answeringFloor.cpuMsPerCommand, 2)}`,
            a.bot.runs.map((r) => `${fmt(r.answers)}/${fmt(a.people * (a.bursts ?? 1))}`).join(', '),
          ];
        }),
      ),
    );
  }
  if (results.reads) {
    const r = results.reads;
    out.push(
      `### Read overhead (\`${r.tool}\`, controller ${fmt(r.latencyMs)} ms, one round trip measured ${fmt(r.roundTripMs)} ms)`,
      table(
        ['read', 'bot ms', 'requests', 'floor ms', 'ratio', 'overhead over the floor'],
        [
          [
            'cold',
            fmt(r.coldMs),
            fmt(r.coldRequests),
            `${fmt(r.floorColdMs)} + ${fmt(r.roundTripMs)}`,
            times(r.coldRatio),
            `${fmt(r.coldOverheadMs)} ms (the answer took ${fmt(r.coldOverheadRoundTrips, 1)} round trips beyond the bare answer)`,
          ],
          [
            'warm',
            fmt(r.warmMs),
            fmt(r.warmRequests),
            fmt(r.floorWarmMs),
            times(r.warmRatio),
            `${fmt(r.warmOverheadMs)} ms`,
          ],
        ],
      ),
    );
  }
  if (results.rounds) {
    const r = results.rounds;
    out.push(
      `### Controller requests and rounds per read tool (controller ${fmt(r.latencyMs)} ms; one round trip ${fmt(r.roundTripMs)} ms; cold = first read after a start whose background warm-up is done)`,
      table(
        [
          'tool',
          'cold requests',
          'cold rounds',
          'overlap groups',
          'cold ms',
          'cold ÷ round trip',
          'warm requests',
          'warm ms',
          'without the warm-up: requests / rounds',
        ],
        r.tools.map((t) => [
          `\`${t.tool}\``,
          fmt(t.cold.requests),
          t.cold.rounds > 2 ? `**${t.cold.rounds}**` : fmt(t.cold.rounds),
          fmt(t.cold.overlapGroups),
          fmt(t.cold.ms),
          times(t.cold.roundTrips),
          fmt(t.warm.requests),
          fmt(t.warm.ms, 1),
          t.coldNoWarmUp ? `${fmt(t.coldNoWarmUp.requests)} / ${fmt(t.coldNoWarmUp.rounds)}` : '–',
        ]),
      ),
    );
  }
  if (results.errors?.length) {
    out.push(
      '### Controller down: time until the user reads an error',
      table(
        [
          'controller',
          'bot state',
          'wait ms (median)',
          'waits per repeat ms',
          'requests',
          'message (median run)',
        ],
        results.errors.map((e) => [
          e.mode === 'hang' ? 'hanging' : 'refusing',
          e.state,
          fmt(e.waitMs),
          e.runs.map((run) => fmt(run.waitMs)).join(', '),
          e.runs.map((run) => fmt(run.requests)).join(', '),
          (medianItem(e.runs, (run) => run.waitMs)?.message ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' '),
        ]),
      ),
    );
  }
  if (results.startup) {
    const s = results.startup;
    out.push(
      `### Start-up and idle memory (RSS read ${fmt(s.idleMs / 1000, 0)} s after start-up settled: the bot's controller warm-up done, the floor's first healthz 200)`,
      table(
        [
          'app',
          'start to healthz ms',
          'RSS MiB (median / lowest / median less thread arenas)',
          'samples (ms / MiB, thread arenas MiB → the same at the steady sample)',
        ],
        (['bot', 'floor'] as const).map((kind) => [
          kind === 'bot' ? 'bot' : 'bare Bolt',
          fmt(s[kind].startupMs),
          `${fmt(s[kind].rssMiB, 1)} / ${fmt(s[kind].rssLowestMiB, 1)} / ${fmt(s[kind].rssLessArenasMiB, 1)}`,
          s[kind].samples
            .map(
              (x) =>
                `${fmt(x.startupMs)} / ${fmt(x.rssMiB, 1)}${x.arenaMiB === undefined ? '' : `, ${fmt(x.arenaMiB, 1)}`}${x.steadyRssMiB === undefined ? '' : ` → ${fmt(x.steadyRssMiB, 1)}, ${fmt(x.steadyArenaMiB, 1)}`}${x.settleMs ? ` (settled ${fmt(x.settleMs)} ms after healthz)` : ''}`,
            )
            .join('; '),
        ]),
      ),
      s.steadyRssRatio === undefined
        ? `Idle RSS ratio, bot ÷ bare Bolt: medians ${times(s.rssRatio)}; lowest ${times(s.rssLowestRatio ?? Number.NaN)}; medians less thread arenas ${times(s.rssLessArenasRatio ?? Number.NaN)} (the budget is judged on the first two).`
        : `Idle RSS ratio, bot ÷ bare Bolt, ${fmt((s.steadyMs ?? 0) / 1000, 0)} s after start-up settled (judged): medians ${times(s.steadyRssRatio)}; lowest ${times(s.steadyRssLowestRatio ?? Number.NaN)}. At ${fmt(s.idleMs / 1000, 0)} s (not judged): medians ${times(s.rssRatio)}; lowest ${times(s.rssLowestRatio ?? Number.NaN)}; medians less thread arenas ${times(s.rssLessArenasRatio ?? Number.NaN)}.`,
    );
  }
  if (results.topology?.length) {
    out.push(
      '### Topology against `JSON.parse`',
      table(
        [
          'Site (devices / clients)',
          'Payload MB',
          'JSON.parse floor ms',
          'floor peak MB',
          'build ms (records + graph)',
          'redaction of the topology ms',
          'GraphML ms',
          'redaction of the GraphML ms',
          'DOT ms',
          'export ms (build + GraphML + its redaction)',
          'ratio to floor',
          'µs per node',
          'peak MB',
        ],
        results.topology.map((t) => [
          `${fmt(t.devices)} / ${fmt(t.clients)}`,
          fmt(t.payloadMb, 1),
          fmt(t.floorMs),
          fmt(t.floorPeakMb),
          `${fmt(t.buildMs)} (${fmt(t.recordsMs)} + ${fmt(t.graphMs)})`,
          fmt(t.redactMs),
          `${fmt(t.graphmlMs)} (${fmt(t.graphmlMb, 1)} MB)`,
          fmt(t.exportRedactMs),
          fmt(t.dotMs),
          fmt(t.totalMs),
          times(t.ratio),
          fmt(t.usPerNode, 1),
          fmt(t.peakMb),
        ]),
      ),
    );
  }
  const t = results.telemetry;
  if (t) {
    const tool = (f: ToolFigure) =>
      `${fmt(f.ms)} ms (CPU ${fmt(f.cpuMs)} ms) | ${times(f.ratio)} | ${times(f.cpuRatio)} | ${times(f.decodeCpuRatio ?? Number.NaN)} | ${times(f.fetchRatio)} | ${times(f.staRatio)}`;
    const row = (label: string, f: ToolFigure) => [label, ...tool(f).split(' | ')];
    // A figure with no ratios: the other columns stay empty.
    const only = (label: string, value: string) => [label, value, '', '', '', '', ''];
    out.push(
      `### Telemetry (${fmt(t.devices)} devices / ${fmt(t.clients)} clients, stat/sta ${fmt(t.payloadMb, 1)} MB, stat/device + rest/networkconf ${fmt(t.devicePayloadMb, 1)} MB; controller in a ${t.controller}; median of ${t.repeats} rounds)`,
      table(
        [
          'measure',
          'wall (CPU)',
          '÷ parse floor',
          'CPU ÷ floor CPU',
          'CPU ÷ decode + parse CPU',
          '÷ fetch + parse',
          '÷ parse of stat/sta',
        ],
        [
          [
            'floor: JSON.parse of stat/sta',
            `${fmt(t.parseMs)} ms (CPU ${fmt(t.parseCpuMs)} ms)`,
            '1×',
            '',
            '',
            '',
          ],
          only('fetch over HTTP + JSON.parse of stat/sta', `${fmt(t.fetchParseMs)} ms`),
          only(
            'floor: JSON.parse of stat/sta + stat/device + rest/networkconf',
            `${fmt(t.parseListBodiesMs)} ms`,
          ),
          only('fetch + JSON.parse of those three', `${fmt(t.fetchParseListBodiesMs)} ms`),
          row('top_clients window=now (floor: stat/sta)', t.topNow),
          row('top_clients window=1h after 4 ticks (floor: stat/sta)', t.top1h),
          row('list_clients limit=50 (floor: the three bodies)', t.listClients),
          only('top_clients now, warm cache', `${fmt(t.warmTopNowMs)} ms`),
          only('list_clients, warm cache', `${fmt(t.warmListClientsMs)} ms`),
          only('one tick through the controller (4 reads; median of 4)', `${fmt(t.tickMs)} ms`),
          only(
            'first chart in a process (chart thread starts, vega + resvg load) / a later chart',
            `${fmt(t.chart.firstMs)} ms / ${fmt(t.chart.laterMs)} ms`,
          ),
          only(
            'during the first chart: longest event-loop gap (10 ms timer) / CPU of the process, both threads',
            `${fmt(t.chart.firstMaxLoopGapMs)} ms / ${fmt(t.chart.firstMainCpuMs)} ms`,
          ),
          only(
            `an hour of samples: ${t.samples} samples of every client (typed arrays)`,
            `${fmt(t.sampleMb, 1)} MB`,
          ),
          only('the same, heap and buffers held (keys included)', `${fmt(t.heapMb, 1)} MB`),
        ],
      ),
    );
  }
  const g = results.guardrails;
  if (g) {
    out.push(
      `### Preview with blast radius (${fmt(g.devices)} devices / ${fmt(g.clients)} clients, restart of the gateway)`,
      table(
        ['measure', 'value (ratio to the JSON.parse floor)'],
        [
          ['floor: JSON.parse of stat/sta', `${fmt(g.parseMs)} ms`],
          ['restart_device dry run (preview)', `${fmt(g.previewMs)} ms (${times(g.previewRatio)})`],
          [
            'check_policy (fresh reads, blast radius, risk, 10 rules)',
            `${fmt(g.checkMs)} ms (${times(g.checkRatio)})`,
          ],
          ['preview, then blast radius and policy', `${fmt(g.bothMs)} ms (${times(g.bothRatio)})`],
          ['evaluateChange alone (10 CEL rules)', `${fmt(g.evaluateUs, 1)} µs`],
          [
            'approvals.propose: preview, blast radius and policy on one snapshot',
            `${fmt(g.proposeMs)} ms (${times(g.proposeRatio)})`,
          ],
          [
            "floor: JSON.parse of the site's records (stat/sta and stat/device), wall / CPU",
            `${fmt(g.recordsParseMs)} / ${fmt(g.recordsParseCpuMs)} ms`,
          ],
          [
            "approvals.propose against it, wall / the bot's CPU",
            `${times(g.proposeRecordsRatio ?? Number.NaN)} / ${fmt(g.proposeCpuMs)} ms CPU (${times(g.proposeCpuRatio ?? Number.NaN)})`,
          ],
        ],
      ),
    );
  }
  const w = results.watch;
  if (w) {
    out.push(
      `### Watching (polls every ${w.intervalS} s, sweeps every ${w.driftIntervalS} s, ${w.runS} s run)`,
      table(
        ['measure', 'value'],
        [
          [
            'stat/device requests per poll (each poll reads fresh; its answer fills the read cache)',
            fmt(w.requestsPerPoll, 2),
          ],
          ['controller requests per drift sweep', fmt(w.requestsPerSweep, 1)],
          ['requests per minute in this run', fmt(w.measuredPerMinute, 1)],
          ['requests per minute at the defaults (30 s, 300 s)', fmt(w.defaultPerMinute, 1)],
          [
            `offline device → alert, median of ${w.trials} (one poll interval at most)`,
            `${fmt(w.noticeMedianMs)} ms`,
          ],
          ['offline device → alert, worst', `${fmt(w.noticeMaxMs)} ms`],
        ],
      ),
    );
  }
  const f = results.fleetWatch;
  if (f) {
    out.push(
      `### Watching a fleet (polls every ${f.intervalS} s, sweeps every ${f.driftIntervalS} s, ${f.windowS} s counted per console)`,
      table(
        ['measure', 'value'],
        [
          ['requests per minute, 1 console (the floor)', fmt(f.onePerMinute, 1)],
          [`requests per console per minute, ${f.consoles} consoles (mean)`, fmt(f.fleetPerMinute, 1)],
          ['lowest and highest console', `${fmt(f.fleetLowest, 1)} / ${fmt(f.fleetHighest, 1)}`],
          ['ratio to the floor', times(f.ratio)],
        ],
      ),
    );
  }
  return out.join('\n\n');
}
