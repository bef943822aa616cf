import type { OfficialExtra } from './api-version.js';
import type { SiteBuilder } from './state.js';

/** How the simulated controller presents itself. */
export type SimulatorFlavor = 'unifi-os' | 'self-hosted';

/**
 * The firewall generation of the demo site: `zone-based` (zones and policies, no traditional
 * rules; what a console on current firmware runs) or `legacy` (traditional rules, no zones).
 */
export type SimulatorFirewall = 'zone-based' | 'legacy';

/** Every firewall generation, for option parsing. */
export const SIMULATOR_FIREWALLS: readonly SimulatorFirewall[] = ['zone-based', 'legacy'];

/** Options for startSimulator; every field has a deterministic default. */
export interface SimulatorOptions {
  /** `unifi-os` (default): everything under /proxy/network, login at /api/auth/login, TOKEN cookie + CSRF.
   *  `self-hosted`: no prefix, login at /api/login, unifises cookie. */
  flavor?: SimulatorFlavor;
  /** Loopback port; 0 (default) picks a free one. */
  port?: number;
  /** Accepted in X-API-KEY (local routes, Integration, and the cloud connector). Default: a fixed demo key. */
  apiKey?: string;
  username?: string;
  password?: string;
  /** Seed of the demo site's generator; same seed, same site. */
  seed?: number;
  /**
   * When the simulator started, in epoch ms: the demo's `last_seen`, `assoc_time` and the like are
   * this long before it, and agree with `uptime`. Default: the moment it starts (a demo reads as
   * current); tests fix it for byte-identical state.
   */
  startedAt?: number;
  /** Id of the console behind the simulated cloud connector (`/v1/connector/consoles/{id}/…`). */
  consoleId?: string;
  /** UniFi OS login attempts allowed per rolling 60 s before 429 (default 5, like a real console). */
  loginRateLimit?: number;
  /** The demo site's firewall generation (default `zone-based`). */
  firewall?: SimulatorFirewall;
  /** Start with DPI answering `200` with empty `data`, as many Network 10.x consoles do (default false). */
  emptyDpi?: boolean;
  /** How long a restarted device, a power-cycled port's device or a kicked client stays away, in ms (default 20 000). */
  actionDelayMs?: number;
  /**
   * Every this many ms, every client's counters advance at its demo rate (`advanceTraffic`), so the
   * bot's telemetry windows have data. 0 (default): counters move only when a test advances them.
   */
  trafficIntervalMs?: number;
  /**
   * The UniFi Network version played: `10.1` (default) offers every official operation
   * of the 10.1.85 document the bot uses; `9.0` only info, sites, devices and the clients list, and
   * every other `/integration/v1/…` route answers 404 as on a real 9.0 console. `info` reports it.
   */
  apiVersion?: string;
  /**
   * Official operations served whatever `apiVersion` says (default none): a 9.x console that
   * already has the ACL, zone or traffic matching list endpoints, as some did before 10.x.
   */
  officialAlso?: readonly OfficialExtra[];
  /**
   * A directory where each `/integration/…` request the bot sends is appended as a JSON line
   * (src/simulator/request-log.ts; the test suite checks them against the 10.1.85 document).
   * `false`: never, even when the process sets a default (a test that sends bad bodies on purpose).
   */
  requestLog?: string | false;
  /**
   * Builds the seeded sites instead of the one demo site (a fleet console's own sites); called
   * again on reset(), so it must be deterministic.
   */
  sites?: SiteBuilder;
  /** Every answer waits this many ms before it is sent (a slow console far away). Default 0. */
  delayMs?: number;
}

/** One request as the simulator received it (after the prefix is stripped from `route`). */
export interface RecordedRequest {
  method: string;
  /** The full request path, as sent, without the query string. */
  path: string;
  /** The path with the deployment prefix removed, e.g. `/api/s/default/rest/networkconf`. */
  route: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** A fault to inject; matched against method and route, consumed `times` times (default 1). */
export type FaultSpec = {
  method?: string;
  /** Substring of, or pattern over, the route (prefix stripped). Omitted: every route. */
  route?: string | RegExp;
  times?: number;
} & (
  | { kind: 'latency'; ms: number }
  /** The answer waits until `until` settles: tests release requests in waves to count round trips. */
  | { kind: 'hold'; until: (request: RecordedRequest) => Promise<void> }
  | {
      kind: 'status';
      status: number;
      body?: unknown;
      /** Content-Type of a string body [text/html; charset=utf-8]: JSON cut short is served as JSON. */
      contentType?: string;
    }
  | { kind: 'rate-limit'; retryAfterSeconds: number }
  | { kind: 'drop' }
  /**
   * The request is carried out (a write changes the site), then its answer is replaced: by `status`
   * (and `body`, as for a `status` fault) or, with `drop`, by a dropped connection. A controller that
   * applied a change and answered 500.
   */
  | { kind: 'apply-then'; status?: number; body?: unknown; contentType?: string; drop?: boolean }
  /**
   * The write is carried out with these fields of its JSON body replaced, and answered as usual:
   * a controller that stores a value other than the one sent.
   * A dotted key names a nested field of an official body (`ipv4Configuration.prefixLength`).
   */
  | { kind: 'store-as'; set: Record<string, unknown> }
);
