import { createGateway } from '../../src/gateway/index.js';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { silentLogger } from '../../src/log.js';
import { startSimulator } from '../../src/simulator/index.js';
import { bringDeviceBack, takeDeviceDown } from '../../src/simulator/scenario-controls.js';
import { createRegistry } from '../../src/tools/index.js';
import { Watcher } from '../../src/watch/index.js';
import type { Incident } from '../../src/watch/types.js';
import { type PartContext, sleep } from '../lib/context.js';
import { median } from '../lib/stats.js';
import { benchWatchConfig, NO_CHANGES, quietNotifier } from '../lib/watch-parts.js';

/** The watcher's figures: its load on the controller, and how soon it notices a device going offline. */
export interface WatchRow {
  /** The run: its poll and sweep intervals (s) and length (s). */
  intervalS: number;
  driftIntervalS: number;
  runS: number;
  polls: number;
  /**
   * stat/device requests per poll, measured: 1, since each poll reads the controller fresh (its
   * answer goes into the read cache for commands, and it joins an identical read in flight).
   */
  requestsPerPoll: number;
  requestsPerSweep: number;
  /** Requests per minute measured in the run, and what that makes at the defaults (30 s, 300 s). */
  measuredPerMinute: number;
  defaultPerMinute: number;
  /** Device taken down → alert posted, ms (median and max over the trials), at `intervalS`. */
  noticeMedianMs: number;
  noticeMaxMs: number;
  trials: number;
}

/**
 * In-process against the simulator over real HTTP, with the gateway's read cache on (as deployed;
 * the watcher's own reads bypass it, and fill it):
 * the watcher polls every second and sweeps every 5 s for the run, the requests it sends are
 * counted, and a device is taken down at random moments to time the alert.
 */
export async function runWatch(ctx: PartContext): Promise<WatchRow> {
  const intervalS = 1;
  const driftIntervalS = 5;
  const runS = ctx.options.quick ? 15 : 40;
  const trials = ctx.options.quick ? 4 : 10;
  const sim = await startSimulator();
  const gateway = createGateway({
    apiType: 'local',
    url: sim.url,
    apiKey: sim.apiKey,
    logger: silentLogger(),
  });
  let posted: ((incident: Incident) => void) | undefined;
  const data = new MemoryStore();
  const registry = createRegistry('default');
  const watcher = new Watcher({
    config: benchWatchConfig(intervalS, driftIntervalS),
    site: 'default',
    gateway,
    data,
    changes: NO_CHANGES,
    holder: 'bench',
    notifier: quietNotifier((incident) => posted?.(incident)),
    logger: silentLogger(),
    registry,
    context: { gateway, logger: silentLogger(), store: data },
  });
  try {
    await gateway.warmUp('default');
    ctx.progress(`watch: ${runS} s of polling every ${intervalS} s, sweeps every ${driftIntervalS} s`);
    const before = sim.requests.length;
    const polls = () => sim.requests.filter((r) => r.route.endsWith('/stat/device')).length;
    const pollsBefore = polls();
    watcher.start();
    await sleep(runS * 1000);
    const sent = sim.requests.slice(before);
    const pollCount = polls() - pollsBefore;
    const sweepRequests = sent.length - pollCount;
    const sweeps = Math.max(1, Math.floor(runS / driftIntervalS));
    const requestsPerSweep = sweepRequests / sweeps;
    const noticed: number[] = [];
    for (let trial = 0; trial < trials; trial += 1) {
      await sleep(Math.random() * intervalS * 1000);
      const device = trial % 2 === 0 ? 'Living Room AP' : 'Office Switch';
      const seen = new Promise<number>((resolve) => {
        posted = (incident) => {
          if (incident.subject === device) resolve(performance.now());
        };
      });
      const at = performance.now();
      takeDeviceDown(sim.state, device);
      noticed.push((await seen) - at);
      bringDeviceBack(sim.state, device);
      await sleep(intervalS * 1500);
    }
    ctx.progress(`watch: noticed an offline device in ${noticed.map((n) => n.toFixed(0)).join(', ')} ms`);
    return {
      intervalS,
      driftIntervalS,
      runS,
      polls: Math.round(runS / intervalS),
      requestsPerPoll: Number((pollCount / (runS / intervalS)).toFixed(2)),
      requestsPerSweep: Number(requestsPerSweep.toFixed(1)),
      measuredPerMinute: Number(((sent.length / runS) * 60).toFixed(1)),
      defaultPerMinute: Number((60 / 30 + (requestsPerSweep * 60) / 300).toFixed(1)),
      noticeMedianMs: Math.round(median(noticed)),
      noticeMaxMs: Math.round(Math.max(...noticed)),
      trials,
    };
  } finally {
    await watcher.stop();
    await gateway.close();
    await sim.close();
  }
}
