import type { Migration } from './index.js';

/**
 * Named leases (the one watcher among the replicas). Versions 3 and 4 belong to other
 * work; migrations apply by version, so the gap is harmless.
 */
export const watch: Migration = {
  version: 5,
  name: 'watch',
  sql: `
CREATE TABLE netops_leases (
  name        text PRIMARY KEY,
  holder      text NOT NULL,
  until       timestamptz NOT NULL
);
`,
};
