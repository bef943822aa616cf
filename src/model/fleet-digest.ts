/**
 * The fleet's day as the watcher sums it up: the shape watch/ builds, get_digest answers and the
 * Slack digest shows. Here, below all three, so tools/ reads it without importing watch/.
 */

// Deliberately alike: a site's line and the fleet's totals carry the same counts, one per site and summed.
/** One site's line in the fleet digest. Counts are of the last 24 hours, `offline` of now. */
export interface FleetDigestLine {
  console: string;
  site: string;
  changes: number;
  incidents: number;
  /** Of `incidents`, those still open. */
  open: number;
  drift: number;
  offline: number;
  pending: number;
  /** Why the site's digest could not be read (its console did not answer), when it could not. */
  unreadable?: string;
}

/** The day across the fleet, or across what a channel is bound to: totals, then the sites with anything to say, troubled first. */
export interface FleetDigest {
  /** What it covers when not the whole fleet: a label (`customer=acme`), a console, or a console's site. */
  covers?: string;
  from: number;
  to: number;
  timeZone?: string;
  consoles: number;
  sites: number;
  /** Changes through the bot, each counted once (not once per site that lists them). */
  changes: number;
  incidents: number;
  open: number;
  drift: number;
  offline: number;
  pending: number;
  overdueReviews: number;
  unreadable: number;
  /** The sites with anything (or unreadable), the troubled first, then in the file's order. */
  lines: FleetDigestLine[];
  /** The sites with nothing to say, counted and not listed. */
  quiet: number;
}
