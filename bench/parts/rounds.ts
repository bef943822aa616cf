import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoReadArguments } from '../../src/simulator/index.js';
import type { PartContext } from '../lib/context.js';
import { BenchController } from '../lib/controller.js';
import { benchConfig, botFromConfig } from '../lib/in-process.js';
import { type Interval, median, overlapGroups, ratio, sequentialRounds } from '../lib/stats.js';

/** Requests, rounds and time of one call. */
export interface CallFigures {
  requests: number;
  rounds: number;
  /** Groups of overlapping requests (a cross-check; less than rounds when a slow request bridges two). */
  overlapGroups: number;
  ms: number;
  /** ms ÷ one controller round trip: how many controller latencies the user waited. */
  roundTrips: number;
}

/**
 * One read tool: cold (the first read after a start, the start's background warm-up done), warm
 * (repeated within the cache lifetime), and cold without the warm-up (a command that arrives
 * before it finished, or a console one-shot).
 */
export interface ToolRounds {
  tool: string;
  args: Record<string, string>;
  cold: CallFigures;
  warm: CallFigures;
  /** Absent in results saved before the warm-up existed. */
  coldNoWarmUp?: CallFigures;
  /**
   * A fresh bot's first read sent while its warm-up runs, the warm-up's requests (detection, site,
   * version) counted with the read's: absent in results saved before this was measured.
   */
  coldDuringWarmUp?: CallFigures;
  /** The cold requests, in order, as `METHOD /path` with their times relative to the first. */
  coldRequests: { request: string; start: number; end: number }[];
}

// Deliberately alike: each part's result type and entry point follow the bench's part shape (figures, then `run…(ctx)` starting its controller).
/** Every read tool of the registry. */
export interface RoundsResult {
  latencyMs: number;
  roundTripMs: number;
  tools: ToolRounds[];
}

/**
 * For every read tool in the registry: a fresh gateway (as after a start), the tool run twice
 * in-process through the registry, the controller's requests counted and grouped into rounds from
 * their start and end times at the controller side. The controller answers in `roundLatencyMs`,
 * so requests sent together overlap and requests sent one after another do not.
 */
export async function runRounds(ctx: PartContext): Promise<RoundsResult> {
  const latencyMs = ctx.options.roundLatencyMs;
  // Traditional-rule tools work only on a legacy console; everything else on the zone-based demo.
  const zoneBased = await BenchController.start({ latencyMs });
  const legacy = await BenchController.start({ latencyMs, firewall: 'legacy' });
  const dataDir = mkdtempSync(join(tmpdir(), 'netops-bench-rounds-'));
  const tools: ToolRounds[] = [];
  try {
    const trips: number[] = [];
    for (let i = 0; i < 3; i++) trips.push(await zoneBased.roundTrip());
    const roundTripMs = median(trips);
    const config = benchConfig(zoneBased, dataDir);
    const reads = botFromConfig(config)
      .app.registry.list()
      .filter((t) => t.access === 'read');
    const legacyConfig = benchConfig(legacy, dataDir);
    for (const { name: tool, firewall } of reads) {
      // A new app and gateway per tool: nothing detected, looked up or cached, as after a start;
      // then the warm-up the bot runs in the background at start.
      const onLegacy = firewall === 'legacy';
      const toolConfig = onLegacy ? legacyConfig : config;
      const fresh = () => botFromConfig(toolConfig);
      const { gateway, app } = fresh();
      const controller = onLegacy ? legacy : zoneBased;
      try {
        await gateway.warmUp(toolConfig.defaultSite);
        const required = app.registry
          .argumentsOf(tool)
          .filter((a) => a.required && a.name !== 'site_id')
          .map((a) => a.name);
        const args = demoReadArguments(tool, required);
        const call = async (
          on = app,
          alongside?: () => Promise<unknown>,
        ): Promise<{ figures: CallFigures; intervals: Interval[] }> => {
          controller.clearRequests();
          const started = performance.now();
          const side = alongside?.();
          await on.registry.run(tool, args, on.context);
          const ms = performance.now() - started;
          await side;
          const intervals = controller.intervals();
          return {
            intervals,
            figures: {
              requests: controller.requests.length,
              rounds: sequentialRounds(intervals),
              overlapGroups: overlapGroups(intervals),
              ms,
              roundTrips: ratio(ms, roundTripMs),
            },
          };
        };
        const cold = await call();
        const coldLog = controller.requests.map((r) => ({
          request: `${r.method} ${r.path}`,
          start: r.start - (controller.requests[0]?.start ?? 0),
          end: (r.end ?? Number.NaN) - (controller.requests[0]?.start ?? 0),
        }));
        const warm = await call();
        const unwarmed = fresh().app;
        let noWarmUp: Awaited<ReturnType<typeof call>>;
        try {
          noWarmUp = await call(unwarmed);
        } finally {
          await unwarmed.close();
        }
        const racing = fresh();
        let duringWarmUp: Awaited<ReturnType<typeof call>>;
        try {
          duringWarmUp = await call(racing.app, () => racing.gateway.warmUp(toolConfig.defaultSite));
        } finally {
          await racing.app.close();
        }
        tools.push({
          tool,
          args,
          cold: cold.figures,
          warm: warm.figures,
          coldDuringWarmUp: duringWarmUp.figures,
          coldNoWarmUp: noWarmUp.figures,
          coldRequests: coldLog,
        });
        ctx.progress(
          `rounds ${tool}: cold ${cold.figures.requests} requests in ${cold.figures.rounds} rounds (without the warm-up ${noWarmUp.figures.rounds}), warm ${warm.figures.requests}`,
        );
      } finally {
        await app.close();
      }
    }
    return { latencyMs, roundTripMs, tools };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    await zoneBased.close();
    await legacy.close();
  }
}
