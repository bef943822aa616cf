import type { Migration } from './index.js';

/** Telemetry samples: one row per site and tick, claimed by one replica, then filled. */
export const telemetry: Migration = {
  version: 2,
  name: 'telemetry',
  sql: `
CREATE TABLE netops_telemetry_samples (
  site        text NOT NULL,
  slot        bigint NOT NULL,
  taken_at    timestamptz NOT NULL,
  -- The replica that claimed the tick and reads the controller for it.
  replica     text NOT NULL,
  -- The sample as JSON text; NULL while the claiming replica is still reading.
  payload     text,
  PRIMARY KEY (site, slot)
);
CREATE INDEX netops_telemetry_samples_age ON netops_telemetry_samples (site, taken_at);
`,
};
