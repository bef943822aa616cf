import { readFileSync } from 'node:fs';
import type { Config } from '../config.js';
import { ConfigError, type FieldIssue } from '../errors.js';
import type { RequestGuard } from '../lib/request-guard.js';
import { type Logger, silentLogger } from '../log.js';
import { type Deployment, SITE_MANAGER_URL } from './paths.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';

/** Everything createGateway needs; only `apiType` and `url` are required. */
export interface GatewayOptions {
  /** `local`: the controller at `url`; `cloud`: the Site Manager at `url` and its connector. */
  apiType: 'local' | 'cloud';
  /** Local: controller base URL (`https://192.168.1.1`, `https://host:8443`). Cloud: Site Manager base [https://api.ui.com]. */
  url: string;
  /** Sent as X-API-KEY; preferred over a session when both are given. */
  apiKey?: string;
  username?: string;
  password?: string;
  /** [true] False accepts self-signed certificates, for this client only. */
  verifyTls?: boolean;
  /** PEM contents of the CA that signed the controller's certificate. */
  ca?: string | Buffer;
  /** Cloud: the console behind the connector; discovered from /v1/hosts when there is exactly one. */
  consoleId?: string;
  /** [10000] Per-request timeout, in ms: a write's one attempt; a read's attempts get at most this, within the read budget. */
  timeoutMs?: number;
  /** Skips the `GET /` detection when the deployment is known. */
  deployment?: Deployment;
  /** Read retries; unset fields take DEFAULT_RETRY_POLICY [3 attempts, 8 s budget, 250 ms base, 2 s max step]. */
  retry?: Partial<RetryPolicy>;
  /** [10] Read cache TTL in seconds; 0 turns caching off (single-flight stays). */
  cacheTtlSeconds?: number;
  /** [200] Integration page size (the API's maximum). */
  pageSize?: number;
  /** [1000] Integration pages followed before giving up on a server that never ends. */
  maxPages?: number;
  /** [32 MiB] The largest answer read, counted after decompression (GATEWAY_MAX_RESPONSE_BYTES). */
  maxResponseBytes?: number;
  /** [3] The longest a list's validation runs before the event loop gets a turn, in ms. */
  parseSliceMs?: number;
  /** [silent] Where request lines, retries and skipped records are logged. */
  logger?: Logger;
  /** [none] Checks every request passes before it leaves (a console's breaker, a shared rate budget). */
  guards?: readonly RequestGuard[];
}

/** GatewayOptions with every default applied. */
export interface ResolvedGatewayOptions {
  apiType: 'local' | 'cloud';
  url: string;
  apiKey?: string;
  username?: string;
  password?: string;
  verifyTls: boolean;
  ca?: string | Buffer;
  consoleId?: string;
  timeoutMs: number;
  deployment?: Deployment;
  retry: RetryPolicy;
  cacheTtlSeconds: number;
  pageSize: number;
  maxPages: number;
  maxResponseBytes: number;
  parseSliceMs: number;
  logger: Logger;
  guards: readonly RequestGuard[];
}

/** Defaults that are not part of the retry policy. */
export const GATEWAY_DEFAULTS = {
  timeoutMs: 10_000,
  cacheTtlSeconds: 10,
  pageSize: 200,
  maxPages: 1000,
  // Several times the largest answer of a big site (stat/device of a few hundred devices), and small
  // enough that a gzip bomb costs the process tens of MB, not GB.
  maxResponseBytes: 32 * 1024 * 1024,
  // Short enough that an ack waits at most this behind a large answer's validation.
  parseSliceMs: 3,
} as const;

/** Applies defaults and refuses options the gateway cannot work with (ConfigError naming the variable). */
export function resolveGatewayOptions(options: GatewayOptions): ResolvedGatewayOptions {
  const issues: FieldIssue[] = [];
  const apiKey = blank(options.apiKey);
  const username = blank(options.username);
  const password = options.password === '' ? undefined : options.password;
  if (options.apiType === 'cloud' && apiKey === undefined) {
    issues.push({ field: 'GATEWAY_API_KEY', rule: 'is required when GATEWAY_API_TYPE=cloud' });
  }
  if (
    options.apiType === 'local' &&
    apiKey === undefined &&
    (username === undefined || password === undefined)
  ) {
    issues.push({
      field: 'GATEWAY_API_KEY',
      rule: 'is required (or set GATEWAY_USERNAME and GATEWAY_PASSWORD)',
    });
  }
  if (!/^https?:\/\//i.test(options.url)) {
    issues.push({ field: 'GATEWAY_URL', rule: 'must be an http:// or https:// URL' });
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return {
    apiType: options.apiType,
    url: options.url.replace(/\/+$/, ''),
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(username === undefined ? {} : { username }),
    ...(password === undefined ? {} : { password }),
    verifyTls: options.verifyTls ?? true,
    ...(options.ca === undefined ? {} : { ca: options.ca }),
    ...(blank(options.consoleId) === undefined ? {} : { consoleId: blank(options.consoleId) }),
    timeoutMs: positive(options.timeoutMs, GATEWAY_DEFAULTS.timeoutMs),
    ...(options.deployment === undefined ? {} : { deployment: options.deployment }),
    retry: {
      attempts: positive(options.retry?.attempts, DEFAULT_RETRY_POLICY.attempts),
      budgetMs: positive(options.retry?.budgetMs, DEFAULT_RETRY_POLICY.budgetMs),
      baseDelayMs: nonNegative(options.retry?.baseDelayMs, DEFAULT_RETRY_POLICY.baseDelayMs),
      maxDelayMs: nonNegative(options.retry?.maxDelayMs, DEFAULT_RETRY_POLICY.maxDelayMs),
    },
    cacheTtlSeconds: nonNegative(options.cacheTtlSeconds, GATEWAY_DEFAULTS.cacheTtlSeconds),
    pageSize: Math.min(200, positive(options.pageSize, GATEWAY_DEFAULTS.pageSize)),
    maxPages: positive(options.maxPages, GATEWAY_DEFAULTS.maxPages),
    maxResponseBytes: positive(options.maxResponseBytes, GATEWAY_DEFAULTS.maxResponseBytes),
    parseSliceMs: positive(options.parseSliceMs, GATEWAY_DEFAULTS.parseSliceMs),
    logger: options.logger ?? silentLogger(),
    guards: options.guards ?? [],
  };
}

/**
 * Gateway options from the parsed configuration. `overrides` wins: main.ts passes the built-in
 * simulator's url and key when GATEWAY_URL is unset; tests pass small budgets.
 */
export function gatewayOptionsFromConfig(
  config: Config,
  logger: Logger,
  overrides: Partial<GatewayOptions> = {},
): GatewayOptions {
  const g = config.gateway;
  const url = overrides.url ?? g.url ?? (g.apiType === 'cloud' ? SITE_MANAGER_URL : undefined);
  if (url === undefined) {
    throw new ConfigError([
      {
        field: 'GATEWAY_URL',
        rule: 'is required for a real controller (unset starts the built-in simulator)',
      },
    ]);
  }
  const base: GatewayOptions = {
    apiType: g.apiType,
    url,
    verifyTls: g.verifyTls,
    timeoutMs: g.timeoutMs,
    retry: { budgetMs: g.readBudgetMs },
    maxResponseBytes: g.maxResponseBytes,
    logger,
    ...(g.apiKey === undefined ? {} : { apiKey: g.apiKey }),
    ...(g.username === undefined ? {} : { username: g.username }),
    ...(g.password === undefined ? {} : { password: g.password }),
    ...(g.consoleId === undefined ? {} : { consoleId: g.consoleId }),
    ...(g.caFile === undefined ? {} : { ca: readCa(g.caFile) }),
  };
  return { ...base, ...overrides };
}

function readCa(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const reason = error instanceof Error && 'code' in error ? String(error.code) : 'unreadable';
    throw new ConfigError([{ field: 'GATEWAY_CA_FILE', rule: `must name a readable PEM file (${reason})` }]);
  }
}

function blank(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
}

function nonNegative(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value >= 0 ? value : fallback;
}
