import type { Migration } from './index.js';

/**
 * The requests that ran a change set's steps (`setOf` in their data), by requester: App Home counts
 * a person's requests without them (a set is one item there), as the counters of migration
 * 7 less the steps found through this index, which holds only steps.
 */
export const setSteps: Migration = {
  version: 9,
  name: 'set-steps',
  sql: `
CREATE INDEX IF NOT EXISTS netops_change_requests_set_steps
  ON netops_change_requests (requester, state) WHERE data ? 'setOf';
`,
};
