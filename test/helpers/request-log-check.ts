import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoggedRequest } from '../../src/simulator/request-log.js';
import { integrationRequestProblems } from './openapi-check.js';

/**
 * The suite-wide half of "every Integration request in the whole test suite matches the 10.1.85
 * document" (a request the real console would refuse must fail a test): every request simulators
 * logged during the run (src/simulator/request-log.ts), in-process or inside a spawned built
 * program, checked with the same checker as the official-api test. The log's layout: `<dir>/<test
 * file, URI-encoded>/<pid>.jsonl`.
 */

/** One problem with where it came from. */
export interface LoggedProblem {
  testFile: string;
  problem: string;
  /** How many logged requests had this very problem in this file. */
  times: number;
}

/** A test file from its directory's name (test/setup/request-log.ts encodes it with encodeURIComponent). */
const decodeTestFile = (part: string): string => decodeURIComponent(part);

/** Every problem of every logged request under `dir`, by test file; also how many requests were read. */
export function checkRequestLog(dir: string): { problems: LoggedProblem[]; requests: number } {
  const problems = new Map<string, LoggedProblem>();
  let requests = 0;
  if (!existsSync(dir)) return { problems: [], requests };
  for (const part of readdirSync(dir, { withFileTypes: true })) {
    if (!part.isDirectory()) continue;
    const testFile = decodeTestFile(part.name);
    for (const file of readdirSync(join(dir, part.name))) {
      if (!file.endsWith('.jsonl')) continue;
      for (const line of readFileSync(join(dir, part.name, file), 'utf8').split('\n')) {
        if (line.trim() === '') continue;
        requests += 1;
        let logged: LoggedRequest;
        try {
          logged = JSON.parse(line) as LoggedRequest;
        } catch {
          // A process killed mid-write leaves half a line: it is no request, and says so.
          const key = `${testFile}\u0000unreadable`;
          const seen = problems.get(key);
          if (seen) seen.times += 1;
          else problems.set(key, { testFile, problem: `an unreadable log line in ${file}`, times: 1 });
          continue;
        }
        for (const problem of integrationRequestProblems({ ...logged, path: logged.route, headers: {} })) {
          const key = `${testFile}\u0000${problem}`;
          const seen = problems.get(key);
          if (seen) seen.times += 1;
          else problems.set(key, { testFile, problem, times: 1 });
        }
      }
    }
  }
  return { problems: [...problems.values()], requests };
}

/** Problems as lines for a report. */
export function describeProblems(problems: readonly LoggedProblem[]): string[] {
  return problems.map((p) => `${p.testFile}: ${p.problem}${p.times > 1 ? ` (${p.times} requests)` : ''}`);
}
