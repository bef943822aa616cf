/**
 * `discover: site_manager`: the consoles one cloud key sees, from Site Manager's `/v1/hosts` and
 * `/v1/sites` (every page), each served through the connector, with the labels and sites the
 * consoles file adds. Asked once, at start: the fleet a process serves does not change under it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { GatewayUnavailableError } from '../errors.js';
import type { Logger } from '../log.js';
import {
  type ConsoleEntry,
  type ConsolesFile,
  ConsolesFileError,
  type ConsolesFileProblem,
} from './consoles-file.js';
import {
  type DiscoveredHost,
  type DiscoveredMatch,
  type Env,
  mergeDiscovered,
  resolveCloud,
} from './resolve.js';

/** Site Manager did not answer at start (after its retries), or answered with something else. */
export class DiscoveryError extends GatewayUnavailableError {
  constructor(url: string, why: string, status?: number) {
    super(`Site Manager at ${url} did not list the consoles: ${why}`, status);
    this.name = 'DiscoveryError';
  }
}

const envelope = z.looseObject({
  data: z.array(z.unknown(), { error: 'data is not a list' }),
  nextToken: z.string().nullable().optional(),
});

const hostSchema = z.looseObject({
  id: z.string().min(1),
  type: z.string().optional(),
  reportedState: z
    .looseObject({ name: z.string().optional(), hostname: z.string().optional() })
    .nullable()
    .optional(),
});

const siteSchema = z.looseObject({
  hostId: z.string().min(1),
  meta: z.looseObject({ name: z.string().min(1) }),
});

/** One page of a Site Manager list: its records, and the token of the next page (absent on the last). */
export interface SiteManagerPage {
  data: unknown[];
  nextToken: string | undefined;
}

/** Reads a Site Manager list answer; undefined when it is not the envelope `{data:[…], nextToken?}`. */
export function readPage(body: unknown): SiteManagerPage | undefined {
  const parsed = envelope.safeParse(body);
  if (!parsed.success) return undefined;
  const next = parsed.data.nextToken;
  return { data: parsed.data.data, nextToken: next === null || next === '' ? undefined : next };
}

/**
 * The hosts of `/v1/hosts` with the site names `/v1/sites` gives each. A record that is not a host
 * (no id) is skipped and counted, not fatal: one odd record must not stop a fleet from starting.
 */
export function hostsOf(
  hostRecords: readonly unknown[],
  siteRecords: readonly unknown[],
): { hosts: DiscoveredHost[]; skipped: number } {
  const sites = new Map<string, string[]>();
  let skipped = 0;
  for (const record of siteRecords) {
    const site = siteSchema.safeParse(record);
    if (!site.success) {
      skipped += 1;
      continue;
    }
    const list = sites.get(site.data.hostId) ?? [];
    list.push(site.data.meta.name);
    sites.set(site.data.hostId, list);
  }
  const hosts: DiscoveredHost[] = [];
  for (const record of hostRecords) {
    const host = hostSchema.safeParse(record);
    if (!host.success) {
      skipped += 1;
      continue;
    }
    const state = host.data.reportedState;
    const own = sites.get(host.data.id);
    hosts.push({
      id: host.data.id,
      name: state?.name ?? state?.hostname ?? host.data.id,
      ...(own !== undefined ? { sites: own } : {}),
    });
  }
  return { hosts, skipped };
}

/** Fetches one Site Manager route with the key; tests pass their own. */
export type SiteManagerGet = (route: string, query: Readonly<Record<string, string>>) => Promise<unknown>;

// A loop guard: a Site Manager that hands back tokens forever is not listing consoles.
const MAX_PAGES = 100;

/** Every record of a paginated list route, following `nextToken` until the last page (none, or empty). */
export async function listAll(get: SiteManagerGet, route: string, url: string): Promise<unknown[]> {
  const records: unknown[] = [];
  let token: string | undefined;
  for (let pages = 0; pages < MAX_PAGES; pages += 1) {
    // Site Manager's own page size: the reference documents no maximum to ask for.
    const query: Record<string, string> = token === undefined ? {} : { nextToken: token };
    const page = readPage(await get(route, query));
    if (page === undefined) throw new DiscoveryError(url, `${route} did not answer {data:[…]}`);
    records.push(...page.data);
    token = page.nextToken;
    if (token === undefined) return records;
  }
  throw new DiscoveryError(url, `${route} had more than ${MAX_PAGES} pages`);
}

/**
 * Problems of a discovered fleet the file can be pointed at: an entry asking for a site its
 * console does not have. Channel bindings to a console not discovered are only warnings: a
 * console removed from the account must not stop the rest of the fleet.
 */
export function discoveredProblems(
  file: ConsolesFile,
  matches: readonly DiscoveredMatch[],
): { problems: ConsolesFileProblem[]; warnings: string[] } {
  const problems: ConsolesFileProblem[] = [];
  for (const { console, host, overlay } of matches) {
    if (overlay?.sites === undefined || host.sites === undefined) continue;
    const missing = overlay.sites.filter((site) => !host.sites?.includes(site));
    if (missing.length > 0)
      problems.push({
        line: overlay.line,
        path: `consoles[${file.consoles.indexOf(overlay)}].sites`,
        rule: `${console.name} has no site ${missing.join(', ')} (Site Manager lists ${host.sites.join(', ')})`,
      });
  }
  const warnings: string[] = [];
  const served = new Map(matches.map((m) => [m.console.name, m.host]));
  for (const [channel, binding] of file.channels) {
    if (binding.kind !== 'console') continue;
    const host = served.get(binding.console);
    if (host === undefined)
      warnings.push(`channel ${channel} is bound to ${binding.console}, which discovery did not serve`);
    else if (binding.site !== undefined && host.sites !== undefined && !host.sites.includes(binding.site))
      warnings.push(
        `channel ${channel} is bound to site ${binding.site} of ${binding.console}, which Site Manager does not list`,
      );
  }
  return { problems, warnings };
}

/** What discovery found: the consoles to serve, and what to tell the operator. */
export interface Discovered {
  consoles: ConsoleEntry[];
  /** Site Manager's names and ids, for the start log line. */
  hosts: number;
  warnings: string[];
}

/** Lists the hosts and sites, merges them with the file, and checks the file against them. */
export async function discoverConsoles(
  file: ConsolesFile,
  cloudUrl: string,
  get: SiteManagerGet,
): Promise<Discovered> {
  const [hostRecords, siteRecords] = await Promise.all([
    listAll(get, '/v1/hosts', cloudUrl),
    listAll(get, '/v1/sites', cloudUrl),
  ]);
  const { hosts, skipped } = hostsOf(hostRecords, siteRecords);
  const merged = mergeDiscovered(file, hosts);
  const { problems, warnings } = discoveredProblems(file, merged.matches);
  if (problems.length > 0) throw new ConsolesFileError(file.file, problems);
  if (merged.consoles.length === 0) {
    const why =
      hosts.length === 0
        ? 'the cloud key sees no console'
        : `include leaves out every one of the ${hosts.length} consoles the cloud key sees`;
    throw new ConsolesFileError(file.file, [
      {
        line: file.include?.[0]?.line ?? file.cloud?.line,
        path: file.include ? 'include' : 'cloud',
        rule: why,
      },
    ]);
  }
  return {
    consoles: merged.consoles,
    hosts: hosts.length,
    warnings: [
      ...warnings,
      ...merged.unmatched.map((name) => `consoles file entry ${name} matches no discovered console`),
      ...merged.unusedInclude.map((pattern) => `include ${pattern} matches no discovered console`),
      ...(skipped > 0 ? [`${skipped} Site Manager records were not hosts or sites and were skipped`] : []),
    ],
  };
}

/** How Site Manager is asked at start: each call's timeout, and how many retries after a failure. */
export interface FetchPolicy {
  timeoutMs: number;
  retries: number;
  /** The wait before the first retry, doubled each time (a Retry-After asks for longer). */
  backoffMs: number;
}

const RETRIED = new Set([429, 500, 502, 503, 504]);
// A Retry-After longer than this is not waited for at start: the process manager's restart is.
const MAX_RETRY_AFTER_MS = 30_000;

function retryAfterMs(header: string | null): number {
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, MAX_RETRY_AFTER_MS) : 0;
}

/**
 * A SiteManagerGet over HTTP with the cloud key. A refused key is the file's problem (the line of
 * `cloud`); no answer, or 429 / 5xx after the retries, is a DiscoveryError. The key goes only in
 * the header: no message quotes it.
 */
export function siteManagerFetch(
  file: ConsolesFile,
  cloud: { url: string; apiKey: string },
  policy: FetchPolicy,
): SiteManagerGet {
  return async (route, query) => {
    const url = `${cloud.url}${route}?${new URLSearchParams(query).toString()}`;
    let last = 'no answer';
    let asked = 0;
    for (let attempt = 0; attempt <= policy.retries; attempt += 1) {
      if (attempt > 0) await sleep(Math.max(policy.backoffMs * 2 ** (attempt - 1), asked));
      asked = 0;
      let response: Response;
      try {
        response = await fetch(url, {
          headers: { 'X-API-KEY': cloud.apiKey, Accept: 'application/json' },
          redirect: 'error',
          signal: AbortSignal.timeout(policy.timeoutMs),
        });
      } catch (error) {
        last =
          error instanceof Error && error.name === 'TimeoutError'
            ? `no answer in ${policy.timeoutMs} ms`
            : 'connection failed';
        continue;
      }
      if (response.status === 401 || response.status === 403)
        throw new ConsolesFileError(file.file, [
          {
            line: file.cloud?.line,
            path: file.cloud?.apiKeyEnv !== undefined ? 'cloud.api_key_env' : 'cloud.api_key_file',
            rule: `Site Manager refused the key (HTTP ${response.status}): check ${file.cloud?.apiKeyEnv ?? file.cloud?.apiKeyFile ?? 'the cloud key'}`,
          },
        ]);
      if (response.ok) {
        try {
          return await response.json();
        } catch {
          throw new DiscoveryError(cloud.url, `${route} did not answer JSON`, response.status);
        }
      }
      last = `HTTP ${response.status} on ${route}`;
      asked = retryAfterMs(response.headers.get('retry-after'));
      await response.body?.cancel();
      if (!RETRIED.has(response.status)) throw new DiscoveryError(cloud.url, last, response.status);
    }
    throw new DiscoveryError(cloud.url, `${last} (after ${policy.retries + 1} tries)`);
  };
}

/** How discovery asks at start: a blip is retried; a Site Manager that stays silent stops the start. */
export const START_FETCH: Omit<FetchPolicy, 'timeoutMs'> = { retries: 2, backoffMs: 500 };

/**
 * The consoles a discovering file serves, asked of Site Manager now. Throws ConsolesFileError (the
 * key missing or refused, a site the console lacks) or DiscoveryError (Site Manager silent).
 */
export async function discoverAtStart(
  file: ConsolesFile,
  env: Env,
  options: { timeoutMs: number; logger: Logger; get?: SiteManagerGet },
): Promise<ConsoleEntry[]> {
  const cloud = resolveCloud(file, env);
  if (cloud === undefined) throw new Error('a discovering consoles file has a cloud key (the parser checks)');
  const get = options.get ?? siteManagerFetch(file, cloud, { ...START_FETCH, timeoutMs: options.timeoutMs });
  const found = await discoverConsoles(file, cloud.url, get);
  for (const warning of found.warnings) options.logger.warn(warning);
  options.logger.info(
    { consoles: found.consoles.map((each) => each.name), hosts: found.hosts },
    'discovered the consoles from Site Manager',
  );
  return found.consoles;
}
