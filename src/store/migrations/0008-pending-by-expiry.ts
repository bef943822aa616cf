import type { Migration } from './index.js';

/**
 * App Home pages the pending requests by expiry (`pendingByExpiry`); this partial index
 * holds just the pending rows in that order, so a page reads its rows and a count the pending ones,
 * however long the history of decided requests grows.
 */
export const pendingByExpiry: Migration = {
  version: 8,
  name: 'pending-by-expiry',
  sql: `
CREATE INDEX IF NOT EXISTS netops_change_requests_pending_expiry
  ON netops_change_requests (expires_at, id) WHERE state = 'pending';
`,
};
