import type { Migration } from './index.js';

/**
 * Durable timers: one row per change and kind, fired exactly once by the replica whose
 * conditional UPDATE claims it (`state = 'scheduled' AND due_at <= now`).
 */
export const deadlines: Migration = {
  version: 4,
  name: 'deadlines',
  sql: `
CREATE TABLE netops_deadlines (
  id           text PRIMARY KEY,
  kind         text NOT NULL,
  change_id    text NOT NULL,
  due_at       timestamptz NOT NULL,
  created_at   timestamptz NOT NULL,
  state        text NOT NULL,
  claimed_by   text,
  claimed_at   timestamptz,
  finished_at  timestamptz,
  finished_by  text,
  note         text,
  UNIQUE (change_id, kind)
);
CREATE INDEX netops_deadlines_due ON netops_deadlines (due_at) WHERE state = 'scheduled';
`,
};
