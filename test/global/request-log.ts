// Vitest globalSetup: simulators of the run log every Integration request the bot sends
// (src/simulator/request-log.ts); at the end of the run every logged request is checked against
// Ubiquiti's 10.1.85 document. The problems are printed, written to `problems-<project>.json` in
// the log root (scripts/test-suite.mjs fails `npm test` on them), and fail the teardown.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { checkRequestLog, describeProblems } from '../helpers/request-log-check.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where this project's simulators log the bot's Integration requests. */
    requestLogDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  // `npm test` names the root (and reads the problems file); a plain `npx vitest run` gets its own.
  const given = process.env.SIMULATOR_REQUEST_LOG_ROOT;
  const root = given ?? mkdtempSync(join(tmpdir(), 'netops-request-log-'));
  const dir = join(root, project.name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  project.provide('requestLogDir', dir);
  return () => {
    const { problems, requests } = checkRequestLog(dir);
    writeFileSync(join(root, `problems-${project.name}.json`), JSON.stringify({ requests, problems }));
    if (given === undefined) rmSync(root, { recursive: true, force: true });
    if (problems.length > 0) {
      const lines = describeProblems(problems);
      process.stderr.write(
        `\n${lines.length} Integration request problems (10.1.85 document) in project ${project.name}:\n  ${lines.join('\n  ')}\n`,
      );
      throw new Error(`${lines.length} Integration requests do not match the 10.1.85 document (see above)`);
    }
  };
}
