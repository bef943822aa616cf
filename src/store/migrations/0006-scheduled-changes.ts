import type { Migration } from './index.js';

/**
 * A change fully approved outside its policy window waits in the state `scheduled`
 * until the window opens. The state column's check gains that one value (it only widens, so a
 * replica of the previous version keeps working beside this one).
 */
export const scheduledChanges: Migration = {
  version: 6,
  name: 'scheduled-changes',
  sql: `
ALTER TABLE netops_change_requests DROP CONSTRAINT IF EXISTS netops_change_requests_state_check;
ALTER TABLE netops_change_requests ADD CONSTRAINT netops_change_requests_state_check
  CHECK (state IN ('pending', 'approved', 'executing', 'succeeded', 'failed',
                   'cancelled', 'expired', 'superseded', 'unknown', 'scheduled'));
`,
};
