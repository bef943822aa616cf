// Vitest setupFiles: before each test file, simulators started in this worker log the
// bot's Integration requests under the file's own directory, and the built programs the file
// spawns are told the same directory (SIMULATOR_REQUEST_LOG, passed on by test/helpers/bot-process.ts).
// Kept to the simulator's small log module: the checker (ajv) loads only in the global teardown.
import { join, relative } from 'node:path';
import { beforeAll, expect, inject } from 'vitest';
import { setDefaultRequestLog } from '../../src/simulator/request-log.js';

beforeAll(() => {
  const file = expect.getState().testPath ?? 'unknown';
  const dir = join(inject('requestLogDir'), encodeURIComponent(relative(process.cwd(), file)));
  setDefaultRequestLog(dir);
  process.env.SIMULATOR_REQUEST_LOG = dir;
});
