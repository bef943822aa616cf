import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    // Each file starts its own simulator on an ephemeral loopback port, so files can run in parallel.
    pool: 'forks',
    // Vitest runs one file at a time on 2 cores by default (cores − 1). Many files mostly wait (spawned
    // bots, simulators, fake Slack), so three at a time finish the suite in about two thirds of the time.
    maxWorkers: 3,
    // Files in one worker share loaded modules instead of importing src/ afresh for each file:
    // importing was most of the suite's time (an isolated run of test/tools took 3× as long). No
    // test mocks modules or stubs globals, and each file builds its own app, simulator and store.
    isolate: false,
    // No retries: a test that passes only on its second run is flaky, and a retry hides it. A test
    // that depends on timing waits for the event it needs (a log line, a request) instead.
    retry: 0,
    testTimeout: 15_000,
    hookTimeout: 15_000,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/process/**'],
          // One throwaway PostgreSQL server per run (or TEST_DATABASE_URL); each file makes its own database.
          globalSetup: ['test/global/postgres.ts', 'test/global/request-log.ts'],
          // The bot's Integration requests of every file are logged and checked against Ubiquiti's
          // document at the end: a request the real console would refuse fails the run.
          setupFiles: ['test/setup/request-log.ts'],
        },
      },
      {
        // Spawns the built program (`node dist/main.js`), as a user and the Dockerfile run it. The
        // global setup compiles dist/ first when it is stale, and only when a process test is queued.
        extends: true,
        test: {
          name: 'process',
          include: ['test/process/**/*.test.ts'],
          globalSetup: [
            'test/global/postgres.ts',
            'test/process/global-setup.ts',
            'test/global/request-log.ts',
          ],
          setupFiles: ['test/setup/request-log.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
    ],
  },
});
