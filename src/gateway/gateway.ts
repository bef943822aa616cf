import type { z } from 'zod';
import { GatewayRejectedError, NotSupportedError } from '../errors.js';
import { type Logger, scrubSecrets } from '../log.js';
import { StatusProbe } from './controller-status.js';
import { INVALID_RESPONSE, invalidResponse, readIntegrationPage } from './envelopes.js';
import { type GatewayOptions, type ResolvedGatewayOptions, resolveGatewayOptions } from './options.js';
import { apiRoute, splitPath } from './paths.js';
import { type Call, Pipeline } from './pipeline.js';
import { GLOBAL_SCOPE, ReadCache } from './read-cache.js';
import { integrationSiteSchema, SiteResolver } from './site-resolver.js';
import { createTransport, type Transport } from './transport.js';
import type { ApiKind, ControllerStatus, Gateway, ParsedList, ReadOptions, WriteMethod } from './types.js';

/** Builds the gateway: the bot's only HTTP client to the controller. Throws ConfigError for unusable options. */
export function createGateway(options: GatewayOptions): Gateway {
  const resolved = resolveGatewayOptions(options);
  return new ControllerGateway({ ...resolved, logger: resolved.logger.child({ component: 'gateway' }) });
}

const INTEGRATION_KEY_NEEDED =
  'this tool uses the UniFi Integration API, which needs GATEWAY_API_KEY (an Integration API key: ' +
  'UniFi Network → Settings → Control Plane → Integrations); a username/password session reaches ' +
  'only the classic and v2 APIs';

class ControllerGateway implements Gateway {
  readonly apiType: 'local' | 'cloud';
  private readonly transport: Transport;
  private readonly pipeline: Pipeline;
  private readonly cache: ReadCache;
  private readonly sites: SiteResolver;
  private readonly logger: Logger;
  private readonly probe: StatusProbe;

  constructor(private readonly options: ResolvedGatewayOptions) {
    this.apiType = options.apiType;
    this.logger = options.logger;
    this.transport = createTransport({
      timeoutMs: options.timeoutMs,
      verifyTls: options.verifyTls,
      logger: options.logger,
      ...(options.ca === undefined ? {} : { ca: options.ca }),
    });
    this.pipeline = new Pipeline(options, this.transport);
    this.cache = new ReadCache(options.cacheTtlSeconds);
    this.sites = new SiteResolver(() =>
      this.integrationGlobalList('sites', integrationSiteSchema, { fresh: true }),
    );
    const pipeline = this.pipeline;
    this.probe = new StatusProbe({
      apiType: options.apiType,
      hasApiKey: options.apiKey !== undefined,
      read: (call) => pipeline.read(call),
      lastReadAt: () => pipeline.lastReadAt,
      deployment: () => pipeline.detectedDeployment,
    });
  }

  status(site: string): Promise<ControllerStatus> {
    return this.probe.status(site);
  }

  async classicRead<T>(
    site: string,
    path: string,
    schema: z.ZodType<T>,
    options: ReadOptions & { body?: unknown } = {},
  ): Promise<ParsedList<T>> {
    const call = this.call(
      'classic',
      options.body === undefined ? 'GET' : 'POST',
      site,
      site,
      path,
      options.body,
    );
    const data = await this.cachedRead(call, site, options.fresh);
    return this.parseList(asArray(data, call), schema, call);
  }

  async classicWrite(site: string, method: WriteMethod, path: string, body?: unknown): Promise<unknown[]> {
    const call = this.call('classic', method, site, site, path, body);
    const data = await this.write(call, site);
    return asArray(data, call);
  }

  async v2Read<T>(
    site: string,
    path: string,
    schema: z.ZodType<T>,
    options: ReadOptions = {},
  ): Promise<ParsedList<T>> {
    const call = this.call('v2', 'GET', site, site, path);
    const data = await this.cachedRead(call, site, options.fresh);
    if (Array.isArray(data)) return this.parseList(data, schema, call);
    if (typeof data === 'object' && data !== null) return this.parseList([data], schema, call);
    throw invalidResponse('expected a JSON array or object', call.route);
  }

  v2Write(site: string, method: WriteMethod, path: string, body?: unknown): Promise<unknown> {
    return this.write(this.call('v2', method, site, site, path, body), site);
  }

  async integrationList<T>(
    site: string,
    path: string,
    schema: z.ZodType<T>,
    options: ReadOptions & { filter?: string } = {},
  ): Promise<ParsedList<T>> {
    this.requireApiKey();
    const uuid = await this.resolveSiteUuid(site);
    const call = this.call('integration', 'GET', site, uuid, path);
    if (options.filter !== undefined) call.query = { ...call.query, filter: options.filter };
    const records = await this.cache.read(this.keyOf(call, site), options.fresh === true, () =>
      this.allPages(call),
    );
    return this.parseList(asArray(records, call), schema, call);
  }

  async integrationGet<T>(
    site: string,
    path: string,
    schema: z.ZodType<T>,
    options: ReadOptions = {},
  ): Promise<T> {
    this.requireApiKey();
    const uuid = await this.resolveSiteUuid(site);
    const call = this.call('integration', 'GET', site, uuid, path);
    const data = await this.cachedRead(call, site, options.fresh);
    const parsed = schema.safeParse(data);
    if (parsed.success) return parsed.data;
    throw invalidResponse(
      `the object does not have the expected shape (${firstIssue(parsed.error)})`,
      call.route,
    );
  }

  async integrationWrite(site: string, method: WriteMethod, path: string, body?: unknown): Promise<unknown> {
    this.requireApiKey();
    const uuid = await this.resolveSiteUuid(site);
    return this.write(this.call('integration', method, site, uuid, path, body), site);
  }

  async integrationGlobalList<T>(
    path: string,
    schema: z.ZodType<T>,
    options: ReadOptions = {},
  ): Promise<ParsedList<T>> {
    this.requireApiKey();
    const call = this.call('integration', 'GET', undefined, undefined, path);
    const records = await this.cache.read(this.keyOf(call, GLOBAL_SCOPE), options.fresh === true, () =>
      this.allPages(call),
    );
    return this.parseList(asArray(records, call), schema, call);
  }

  resolveSiteUuid(site: string): Promise<string> {
    this.requireApiKey();
    return this.sites.resolve(site);
  }

  invalidate(site?: string): void {
    this.cache.invalidate(site);
  }

  async close(): Promise<void> {
    this.cache.close();
    this.transport.close();
  }

  private call(
    api: ApiKind,
    method: Call['method'],
    site: string | undefined,
    siteSegment: string | undefined,
    rawPath: string,
    body?: unknown,
  ): Call {
    const { path, query } = splitPath(rawPath);
    return {
      api,
      method,
      path,
      route: apiRoute(api, siteSegment, path),
      ...(site === undefined ? {} : { site }),
      ...(Object.keys(query).length > 0 ? { query } : {}),
      ...(body === undefined ? {} : { body }),
    };
  }

  private keyOf(call: Call, scope: string) {
    return {
      scope,
      api: call.api,
      method: call.method,
      path: call.route,
      query: call.query,
      body: call.body,
    };
  }

  private cachedRead(call: Call, scope: string, fresh: boolean | undefined): Promise<unknown> {
    return this.cache.read(this.keyOf(call, scope), fresh === true, () => this.pipeline.read(call));
  }

  /** Sends a write once; the site's cache is dropped even on failure, since a timed-out write may have landed. */
  private async write(call: Call, site: string): Promise<unknown> {
    try {
      return await this.pipeline.write(call);
    } finally {
      this.cache.invalidate(site);
    }
  }

  /** Follows Integration pages: `limit` at the maximum, `offset` moved by `count` until `totalCount`. */
  private async allPages(call: Call): Promise<unknown[]> {
    const records: unknown[] = [];
    let offset = 0;
    for (let page = 0; ; page++) {
      if (page >= this.options.maxPages) {
        throw new GatewayRejectedError(
          INVALID_RESPONSE,
          `the controller kept sending pages of ${call.route} (more than ${this.options.maxPages}); stopped`,
        );
      }
      const query = { ...call.query, offset: String(offset), limit: String(this.options.pageSize) };
      const body = await this.pipeline.read({ ...call, query });
      const current = readIntegrationPage(body);
      if (current === undefined) {
        throw invalidResponse(
          'expected an Integration page {offset,limit,count,totalCount,data}',
          call.route,
        );
      }
      records.push(...current.data);
      const step = current.count > 0 ? current.count : current.data.length;
      offset += step;
      if (step === 0 || offset >= current.totalCount) return records;
    }
  }

  private parseList<T>(records: unknown[], schema: z.ZodType<T>, call: Call): ParsedList<T> {
    const items: T[] = [];
    let skipped = 0;
    records.forEach((record, index) => {
      const parsed = schema.safeParse(record);
      if (parsed.success) {
        items.push(parsed.data);
        return;
      }
      skipped += 1;
      // The record itself is never logged: it may carry keys (x_authkey, x_passphrase).
      this.logger.debug(
        { path: call.route, index, issue: firstIssue(parsed.error) },
        'skipped a record that does not match its schema',
      );
    });
    return { items, skipped };
  }

  private requireApiKey(): void {
    if (this.options.apiKey === undefined) throw new NotSupportedError(INTEGRATION_KEY_NEEDED);
  }
}

function asArray(data: unknown, call: Call): unknown[] {
  if (Array.isArray(data)) return data;
  throw invalidResponse('expected a list', call.route);
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid';
  const where = issue.path.length > 0 ? issue.path.map(String).join('.') : '(record)';
  return scrubSecrets(`${where}: ${issue.message}`);
}
