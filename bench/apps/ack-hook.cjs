// Preloaded by bench/ack-probe.ts (NODE_OPTIONS=--require): times, inside the app, every
// POST /slack/events from the server's 'request' event to the moment its response (the ack) is
// ended, and how long the event loop was held by other work meanwhile (monitorEventLoopDelay).
// On SIGUSR2 the figures go to <tmpdir>/netops-acks-<pid>.json and the counters start again.
const http = require('node:http');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { monitorEventLoopDelay, performance, PerformanceObserver } = require('node:perf_hooks');

const delay = monitorEventLoopDelay({ resolution: 5 });
delay.enable();
let acks = [];
// Garbage collections meanwhile: how many, their longest pause and their total (ms).
let gc = { count: 0, max: 0, total: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gc.count += 1;
    gc.total += entry.duration;
    gc.max = Math.max(gc.max, entry.duration);
  }
}).observe({ entryTypes: ['gc'] });
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, ...rest) {
  const [req, res] = rest;
  if (event === 'request' && req.method === 'POST' && (req.url ?? '').startsWith('/slack/events')) {
    const arrived = performance.now();
    const end = res.end;
    res.end = function (...args) {
      acks.push(performance.now() - arrived);
      res.end = end;
      return end.apply(this, args);
    };
  }
  return emit.call(this, event, ...rest);
};
process.on('SIGUSR2', () => {
  const sorted = [...acks].sort((a, b) => a - b);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? null;
  fs.writeFileSync(
    path.join(os.tmpdir(), `netops-acks-${process.pid}.json`),
    JSON.stringify({
      count: sorted.length,
      p50: at(50),
      p99: at(99),
      max: sorted.at(-1) ?? null,
      loopDelayP99: delay.percentile(99) / 1e6,
      loopDelayMax: delay.max / 1e6,
      gc,
    }),
  );
  acks = [];
  gc = { count: 0, max: 0, total: 0 };
  delay.reset();
});
