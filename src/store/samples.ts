/**
 * Telemetry samples shared through the store: one row per site and tick (`slot`), claimed
 * by the one replica that reads the controller for it, then filled with the sample (JSON text).
 * The other replicas read the filled rows instead of polling the controller themselves.
 */
export interface StoredSample {
  slot: number;
  /** When the sample was taken (ms since the epoch). */
  at: number;
  /** The sample as JSON text (its shape belongs to src/telemetry/). */
  payload: string;
}

/** What to drop: rows older than `before`, except one row an hour until `hourlyBefore`. */
export interface SamplePrune {
  site: string;
  before: number;
  hourlyBefore: number;
  /** The tick length, so "the first row of each hour" can be told from the slot. */
  intervalMs: number;
}

export interface SampleStore {
  /**
   * Claims the tick `slot` of `site` for this replica; true for exactly one caller among all
   * replicas (the others read its sample later). The file store, one process, always says true.
   */
  claim(site: string, slot: number, at: number): Promise<boolean>;
  /** Fills a claimed row with its sample. */
  put(site: string, slot: number, at: number, payload: string): Promise<void>;
  /** Filled rows after `afterSlot`, oldest first. */
  since(site: string, afterSlot: number): Promise<StoredSample[]>;
  prune(prune: SamplePrune): Promise<void>;
}

/** True for the first slot of each hour: the one row an hour kept for the long windows. */
export function isHourlySlot(slot: number, intervalMs: number): boolean {
  return (slot * intervalMs) % 3_600_000 < intervalMs;
}
