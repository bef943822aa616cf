import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import type { RecordedRequest, Simulator } from '../../src/simulator/index.js';

/** What one piece of work asked of the controller, wave by wave. */
export interface Waves<T> {
  /** Sequential round trips: requests sent together are one wave. */
  waves: string[][];
  requests: number;
  outcome: { ok: true; value: T } | { ok: false; error: unknown };
}

// A wave is over when no request has arrived for this long and across a few turns of the event
// loop (an I/O poll among them), so requests sent together always land in the same wave.
const QUIET_MS = 20;
const QUIET_TURNS = 5;

/**
 * Counts controller round trips without timing them: the simulator holds every request, and the
 * held ones are answered together once the work has sent all it can without an answer. The number
 * of releases is the number of sequential round trips the work needed. The bot and the simulator
 * share the event loop, so a busy machine slows both and cannot split a wave.
 */
export class RoundTripCounter {
  private held: { request: RecordedRequest; release: () => void }[] = [];
  private arrivals = 0;

  constructor(sim: Simulator) {
    sim.injectFault({
      kind: 'hold',
      times: Number.POSITIVE_INFINITY,
      until: (request) =>
        new Promise<void>((release) => {
          this.arrivals += 1;
          this.held.push({ request, release });
        }),
    });
  }

  /** Runs `work`, answering its requests one wave at a time. */
  async count<T>(work: () => Promise<T>): Promise<Waves<T>> {
    let settled = false;
    const outcome = work().then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    void outcome.then(() => {
      settled = true;
    });
    const waves: string[][] = [];
    for (;;) {
      await this.quiet();
      if (this.held.length > 0) {
        const wave = this.held.splice(0);
        waves.push(wave.map(({ request }) => `${request.method} ${request.route}`));
        for (const { release } of wave) release();
        continue;
      }
      if (settled) break;
    }
    return { waves, requests: waves.flat().length, outcome: await outcome };
  }

  private async quiet(): Promise<void> {
    for (;;) {
      const before = this.arrivals;
      await sleep(QUIET_MS);
      for (let turn = 0; turn < QUIET_TURNS; turn++) await nextTurn();
      if (this.arrivals === before) return;
    }
  }
}
