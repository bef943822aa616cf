import type { Migration } from './index.js';

// Deliberately alike: one trigger per statement kind, spelled out: a shipped migration's SQL stays as it ran.
const TRIGGERS = `DROP TRIGGER IF EXISTS netops_change_counts_insert ON netops_change_requests;
CREATE TRIGGER netops_change_counts_insert AFTER INSERT ON netops_change_requests
  REFERENCING NEW TABLE AS netops_new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION netops_change_counts_add();
DROP TRIGGER IF EXISTS netops_change_counts_update ON netops_change_requests;
CREATE TRIGGER netops_change_counts_update AFTER UPDATE ON netops_change_requests
  REFERENCING OLD TABLE AS netops_old_rows NEW TABLE AS netops_new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION netops_change_counts_add();
DROP TRIGGER IF EXISTS netops_change_counts_delete ON netops_change_requests;
CREATE TRIGGER netops_change_counts_delete AFTER DELETE ON netops_change_requests
  REFERENCING OLD TABLE AS netops_old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION netops_change_counts_add();
DROP TRIGGER IF EXISTS netops_change_counts_truncate ON netops_change_requests;
CREATE TRIGGER netops_change_counts_truncate AFTER TRUNCATE ON netops_change_requests
  FOR EACH STATEMENT EXECUTE FUNCTION netops_change_counts_add();`;

/**
 * How many requests there are per state and requester, kept by triggers in the same transaction as
 * every insert, state change and delete of a request (and emptied by a TRUNCATE), so the `changes`
 * page's "page 1 of N", App Home's counts and the pending count read a few rows instead of counting
 * every matching request (docs/decisions.md, "Listing at scale"). Triggers, not the store's
 * statements: replicas of the previous version, the journal import and an admin's SQL keep the
 * counts right too.
 *
 * The triggers are per statement with transition tables: a sweep that expires many requests adds
 * its deltas in one statement, locking the counter rows in key order, so two sweeps cannot deadlock.
 * The table is locked first so that no write slips between the backfill and the triggers.
 */
export const changeCounts: Migration = {
  version: 7,
  name: 'change-counts',
  sql: `
LOCK TABLE netops_change_requests IN SHARE ROW EXCLUSIVE MODE;

CREATE TABLE IF NOT EXISTS netops_change_counts (
  state      text NOT NULL,
  requester  text NOT NULL,
  n          bigint NOT NULL,
  PRIMARY KEY (state, requester)
);

CREATE OR REPLACE FUNCTION netops_change_counts_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO netops_change_counts AS c (state, requester, n)
      SELECT state, requester, count(*) FROM netops_new_rows
       GROUP BY state, requester ORDER BY state, requester
    ON CONFLICT (state, requester) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO netops_change_counts AS c (state, requester, n)
      SELECT state, requester, sum(delta) FROM (
        SELECT state, requester, 1 AS delta FROM netops_new_rows
        UNION ALL
        SELECT state, requester, -1 AS delta FROM netops_old_rows) AS moves
       GROUP BY state, requester HAVING sum(delta) <> 0 ORDER BY state, requester
    ON CONFLICT (state, requester) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO netops_change_counts AS c (state, requester, n)
      SELECT state, requester, -count(*) FROM netops_old_rows
       GROUP BY state, requester ORDER BY state, requester
    ON CONFLICT (state, requester) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSE
    DELETE FROM netops_change_counts;
  END IF;
  RETURN NULL;
END
$$;

${TRIGGERS}

DELETE FROM netops_change_counts;
INSERT INTO netops_change_counts (state, requester, n)
  SELECT state, requester, count(*) FROM netops_change_requests GROUP BY state, requester;
`,
};
