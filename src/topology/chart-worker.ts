import { parentPort, threadId } from 'node:worker_threads';
import { type RateChart, renderRateChartPngHere } from './chart.js';

/*
 * The chart thread: vega, vega-lite and resvg load and render here, not on the bot's
 * event loop, so a first `/net top` (about 1.7 s of module loading) holds no ack and no telemetry
 * tick. chart.ts starts this file as a worker and sends it one chart per message.
 */

/** A chart to draw, numbered so that answers find their caller. */
export interface ChartRequest {
  id: number;
  chart: RateChart;
}

/** The PNG (its buffer transferred, not copied), or the error's message; with this thread's id. */
export type ChartReply =
  | { id: number; png: Uint8Array; threadId: number }
  | { id: number; error: string; threadId: number };

const port = parentPort;
if (!port) throw new Error('chart-worker.ts runs as a worker thread only');
port.on('message', (request: ChartRequest) => {
  renderRateChartPngHere(request.chart).then(
    (drawn) => {
      // Its own buffer, so that it can be transferred whole.
      const png =
        drawn.byteOffset === 0 && drawn.byteLength === drawn.buffer.byteLength ? drawn : drawn.slice();
      const reply: ChartReply = { id: request.id, png, threadId };
      port.postMessage(reply, [png.buffer as ArrayBuffer]);
    },
    (error: unknown) => {
      const reply: ChartReply = {
        id: request.id,
        error: error instanceof Error ? error.message : String(error),
        threadId,
      };
      port.postMessage(reply);
    },
  );
});
