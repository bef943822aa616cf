// `BENCH_BOT_NODE_OPTIONS="--require bench/apps/cpu-profile-hook.cjs"` (an absolute path): a CPU
// profile of each bot the bench starts, written to $CPU_PROFILE_DIR (default the OS temp dir) as
// <pid>.cpuprofile when it stops. Node 20 refuses `--cpu-prof` in NODE_OPTIONS; V8's profiler through
// node:inspector needs no flag.
const inspector = require('node:inspector');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { tmpdir } = require('node:os');

const session = new inspector.Session();
session.connect();
session.post('Profiler.enable', () =>
  session.post('Profiler.setSamplingInterval', { interval: 500 }, () => session.post('Profiler.start')),
);
let written = false;
const write = () => {
  if (written) return;
  written = true;
  session.post('Profiler.stop', (error, result) => {
    if (error) return;
    writeFileSync(
      join(process.env.CPU_PROFILE_DIR ?? tmpdir(), `${process.pid}.cpuprofile`),
      JSON.stringify(result.profile),
    );
  });
};
process.on('SIGTERM', write);
process.on('SIGINT', write);
process.prependListener('exit', write);
