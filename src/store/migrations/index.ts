import { initial } from './0001-initial.js';
import { telemetry } from './0002-telemetry.js';
import { deadlines } from './0004-deadlines.js';
import { watch } from './0005-watch.js';
import { scheduledChanges } from './0006-scheduled-changes.js';
import { changeCounts } from './0007-change-counts.js';
import { pendingByExpiry } from './0008-pending-by-expiry.js';
import { setSteps } from './0009-set-steps.js';
import { consoleLeases } from './0010-console-leases.js';
import { rateBudgets } from './0011-rate-budgets.js';

/**
 * One schema change. Migrations only add (tables, columns, indexes), so a replica of the
 * previous version keeps working beside a newer one during a rolling deploy.
 */
export interface Migration {
  /** 1, 2, 3 … in order; applied once each, recorded in netops_schema_migrations. */
  version: number;
  name: string;
  sql: string;
}

/** Every migration, oldest first. SQL lives in TypeScript modules so it ships inside dist/. */
export const MIGRATIONS: readonly Migration[] = [
  initial,
  telemetry,
  deadlines,
  watch,
  scheduledChanges,
  changeCounts,
  pendingByExpiry,
  setSteps,
  consoleLeases,
  rateBudgets,
];
