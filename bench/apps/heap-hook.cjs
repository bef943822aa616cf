// Preloaded by bench/idle-probe.ts (NODE_OPTIONS=--require): on SIGUSR2 the process writes its V8
// heap figures to <tmpdir>/netops-heap-<pid>.txt.
const v8 = require('node:v8');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
process.on('SIGUSR2', () => {
  // HEAP_SNAPSHOT_DIR set: a heap snapshot beside the figures, to see what holds the heap.
  if (process.env.HEAP_SNAPSHOT_DIR)
    v8.writeHeapSnapshot(path.join(process.env.HEAP_SNAPSHOT_DIR, `netops-${process.pid}.heapsnapshot`));
  const spaces = v8
    .getHeapSpaceStatistics()
    .map(
      (s) =>
        `${s.space_name.replace('_space', '')}=${(s.space_size / 1048576).toFixed(1)}/${(s.space_used_size / 1048576).toFixed(1)}`,
    )
    .join(' ');
  const m = process.memoryUsage();
  fs.writeFileSync(
    path.join(os.tmpdir(), `netops-heap-${process.pid}.txt`),
    `heapTotal ${(m.heapTotal / 1048576).toFixed(1)} used ${(m.heapUsed / 1048576).toFixed(1)} ext ${(m.external / 1048576).toFixed(1)} ab ${(m.arrayBuffers / 1048576).toFixed(1)} | ${spaces}`,
  );
});
