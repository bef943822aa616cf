import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** Compiles dist/ when it is older than src/ (scripts/ensure-build.mjs), so the process tests run what ships. */
export default function setup(): void {
  const build = spawnSync(process.execPath, [join(process.cwd(), 'scripts', 'ensure-build.mjs')], {
    stdio: 'inherit',
  });
  if (build.status !== 0) throw new Error('building dist/ for the process tests failed (see above)');
}
