import type { Migration } from './index.js';

/**
 * One watch lease per console of a fleet: each console is watched by one replica at a time, and a
 * dead replica's consoles go to the others once their leases run out. Kept apart from
 * netops_leases so listing who watches what reads this table alone.
 */
export const consoleLeases: Migration = {
  version: 10,
  name: 'console-leases',
  sql: `
CREATE TABLE netops_console_leases (
  console     text PRIMARY KEY,
  holder      text NOT NULL,
  until       timestamptz NOT NULL,
  renewed_at  timestamptz NOT NULL DEFAULT now()
);
`,
};
