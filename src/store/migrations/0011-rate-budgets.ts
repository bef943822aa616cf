import type { Migration } from './index.js';

/**
 * The cloud's rate budget, one token bucket per API key (by hash) shared by every replica: Site
 * Manager counts requests per key, whichever replica sends them. `tokens` may be below zero: each
 * token under zero is a request waiting for its turn. Version 10 is left to other work; migrations
 * apply by version, so a gap is harmless and a clash is renumbered here alone.
 */
export const rateBudgets: Migration = {
  version: 11,
  name: 'rate-budgets',
  sql: `
CREATE TABLE IF NOT EXISTS netops_rate_budgets (
  key_hash    text PRIMARY KEY,
  tokens      double precision NOT NULL,
  at          timestamptz NOT NULL,
  granted     boolean NOT NULL
);
`,
};
