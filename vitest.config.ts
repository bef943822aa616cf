import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    // Each file starts its own simulator on an ephemeral loopback port, so files can run in parallel.
    pool: 'forks',
    globalSetup: ['test/global/postgres.ts'],
    testTimeout: 15_000,
    hookTimeout: 15_000,
    reporters: ['default'],
  },
});
