import type { z } from 'zod';
import type { GroupApis, OfficialOperation } from './capabilities.js';
import type { ConsoleInfo } from './console-info.js';
import type { Deployment } from './paths.js';

/** The three local controller APIs (the cloud connector reaches them through a proxy prefix). */
export type ApiKind = 'classic' | 'v2' | 'integration';

/** HTTP verbs that change controller state. */
export type WriteMethod = 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Options for every read. */
export interface ReadOptions {
  /** Skip the read cache (drift checks at approval time need live state). */
  fresh?: boolean;
}

/** A list parsed leniently: records that fail their schema are skipped and counted, never fatal. */
export interface ParsedList<T> {
  items: T[];
  skipped: number;
}

/** The controller as App Home shows it: reachable or not, its kind and version, the last answered read. */
export interface ControllerStatus {
  apiType: 'local' | 'cloud';
  /** A UniFi OS console, a self-hosted Network application, or the cloud connector; unset until known. */
  kind?: Deployment | 'cloud';
  reachable: boolean;
  /** The Network application's version, when the controller tells it. */
  version?: string;
  /** The last time any read got an answer from the controller, in this process (ISO 8601). */
  lastReadAt?: string;
  /** When reachability was checked (ISO 8601). */
  checkedAt: string;
  /** Why it is not reachable, as a sentence without secrets. */
  error?: string;
  /** Each tool group's endpoint generations on this console, once `info` was read. */
  apis?: GroupApis[];
}

// Deliberately alike: one read and one write per API family; their signatures differ in the options each family takes.
/**
 * Everything the tools know about the controller. Paths are relative to the API's site root:
 * classic `api/s/{site}/<path>`, v2 `v2/api/site/{site}/<path>`, Integration
 * `integration/v1/sites/{siteUuid}/<path>`. The gateway adds the deployment prefix
 * (`/proxy/network`, none for self-hosted, the cloud connector), auth, retries, caching and
 * error mapping. Reads may be retried and cached; writes are sent exactly once and invalidate
 * the site's cache.
 */
export interface Gateway {
  readonly apiType: 'local' | 'cloud';

  // Deliberately alike: each API family (classic, v2, Integration) declares its reads with the same parameters.
  /** Classic `{meta,data}` read. With `body` it is sent as POST (stat/sitedpi, stat/stadpi are reads). */
  classicRead<T>(
    site: string,
    path: string,
    schema: z.ZodType<T>,
    options?: ReadOptions & { body?: unknown },
  ): Promise<ParsedList<T>>;
  /** Classic write; returns the envelope's `data` array (the stored objects). */
  classicWrite(site: string, method: WriteMethod, path: string, body?: unknown): Promise<unknown[]>;

  /** v2 read; a bare object answer is returned as a one-item list. */
  v2Read<T>(site: string, path: string, schema: z.ZodType<T>, options?: ReadOptions): Promise<ParsedList<T>>;
  /** v2 write; returns the bare JSON answer. */
  v2Write(site: string, method: WriteMethod, path: string, body?: unknown): Promise<unknown>;

  /** Integration list under the site; follows every page. `filter` is passed as the `filter` query. */
  integrationList<T>(
    site: string,
    path: string,
    schema: z.ZodType<T>,
    options?: ReadOptions & { filter?: string },
  ): Promise<ParsedList<T>>;
  /** Integration single object under the site; 404 → ResourceNotFoundError. */
  integrationGet<T>(site: string, path: string, schema: z.ZodType<T>, options?: ReadOptions): Promise<T>;
  /** Integration write under the site; returns the bare JSON answer (undefined for an empty body). */
  integrationWrite(site: string, method: WriteMethod, path: string, body?: unknown): Promise<unknown>;
  /** Integration list outside any site (`dpi/categories`, `dpi/applications`); follows pages. */
  integrationGlobalList<T>(path: string, schema: z.ZodType<T>, options?: ReadOptions): Promise<ParsedList<T>>;

  /** The Integration UUID of a classic site name (`default`), resolved once and cached. */
  resolveSiteUuid(site: string): Promise<string>;

  /**
   * Reachability and version from one cheap read, at most every 30 s, and the time of the last
   * answered read. Read-only; never throws (an unreachable controller is an answer).
   */
  status(site: string): Promise<ControllerStatus>;

  /**
   * What every first command would otherwise wait for, done ahead (at start): controller detection
   * (or the cloud console's id), the login, and with an API key the Integration site lookup of
   * `site`. Best effort: a failure is logged and resolves false, never rejects; it is not
   * remembered, so the first command that needs it tries again.
   */
  warmUp(site: string): Promise<boolean>;
  /**
   * The console's version from `GET /integration/v1/info` and which endpoint generation each tool
   * group uses there; read once (kept ten minutes, asked again after the controller was unreachable).
   */
  console(): Promise<ConsoleInfo>;
  /** What `console()` last answered, without a request; undefined before the first read. */
  knownConsole(): ConsoleInfo | undefined;
  /** Whether this console's official API offers an operation (false without an API key). */
  offers(operation: OfficialOperation): Promise<boolean>;

  /** Drops cached reads (all sites, or one). */
  invalidate(site?: string): void;
  /** Stops timers and sockets. */
  close(): Promise<void>;
}
