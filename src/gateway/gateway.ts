import { setImmediate as nextTurn } from 'node:timers/promises';
import type { z } from 'zod';
import {
  GatewayRejectedError,
  GatewayUnavailableError,
  isBotError,
  NotSupportedError,
  ResourceNotFoundError,
} from '../errors.js';
import { mapBounded } from '../lib/map-bounded.js';
import { noteUnreadable } from '../lib/unreadable-records.js';
import { type Logger, scrubSecrets } from '../log.js';
import { REJECTED, recordParserOf } from '../records/fast-lenient.js';
import {
  GROUP_OF_OFFICIAL_ONLY,
  isCollectionPath,
  NO_PRIVATE_FALLBACK,
  type OfficialOperation,
  OPERATION_WORDS,
  offersOfficial,
  operationOfPath,
  sinceText,
} from './capabilities.js';
import { type ConsoleInfo, ConsoleVersion, versionOf } from './console-info.js';
import { StatusProbe } from './controller-status.js';
import { INVALID_RESPONSE, type IntegrationPage, invalidResponse, readIntegrationPage } from './envelopes.js';
import { type GatewayOptions, type ResolvedGatewayOptions, resolveGatewayOptions } from './options.js';
import { apiRoute, splitPath } from './paths.js';
import { type Call, Pipeline } from './pipeline.js';
import { type CachedRead, GLOBAL_SCOPE, ReadCache } from './read-cache.js';
import { guardTransport } from './request-guard.js';
import { integrationSiteSchema, SiteResolver } from './site-resolver.js';
import { createTransport, type Transport } from './transport.js';
import type { ApiKind, ControllerStatus, Gateway, ParsedList, ReadOptions, WriteMethod } from './types.js';
import {
  judgeReadBack,
  openOutcome,
  type ReadBack,
  type ReadBackTarget,
  readBackTarget,
  reportAfterReadBack,
} from './write-check.js';

/** Builds the gateway: the bot's only HTTP client to the controller. Throws ConfigError for unusable options. */
export function createGateway(options: GatewayOptions): Gateway {
  const resolved = resolveGatewayOptions(options);
  return new ControllerGateway({ ...resolved, logger: resolved.logger.child({ component: 'gateway' }) });
}

const INTEGRATION_KEY_NEEDED =
  'this tool uses the UniFi Integration API, which needs GATEWAY_API_KEY (an Integration API key: ' +
  'UniFi Network → Settings → Control Plane → Integrations); a username/password session reaches ' +
  'only the classic and v2 APIs';

// Pages after the first are requested together, up to this many at once: as many as the
// transport keeps sockets for (16), so the DPI catalogue's 12 pages cost one round trip after the
// first page, not eleven.
const PAGE_CONCURRENCY = 16;

class ControllerGateway implements Gateway {
  readonly apiType: 'local' | 'cloud';
  private readonly transport: Transport;
  private readonly pipeline: Pipeline;
  private readonly cache: ReadCache;
  private readonly sites: SiteResolver;
  private readonly logger: Logger;
  private readonly probe: StatusProbe;
  private readonly consoleVersion: ConsoleVersion;
  /** Official-only operation groups whose first request on an older console is out (probeTurn). */
  private readonly probes = new Map<string, Promise<void>>();

  constructor(private readonly options: ResolvedGatewayOptions) {
    this.apiType = options.apiType;
    this.logger = options.logger;
    this.transport = guardTransport(
      createTransport({
        timeoutMs: options.timeoutMs,
        verifyTls: options.verifyTls,
        maxResponseBytes: options.maxResponseBytes,
        logger: options.logger,
        ...(options.ca === undefined ? {} : { ca: options.ca }),
      }),
      options.guards,
      options.timeoutMs,
    );
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
    this.consoleVersion = new ConsoleVersion(
      options.apiKey === undefined
        ? undefined
        : () =>
            pipeline.read({
              api: 'integration',
              method: 'GET',
              path: 'info',
              route: apiRoute('integration', undefined, 'info'),
            }),
    );
  }

  async status(site: string): Promise<ControllerStatus> {
    const status = await this.probe.status(site);
    const known = this.consoleVersion.current();
    // Unreachable now: the next read after the reconnect asks `info` again (an upgrade restarts
    // the console). A version other than the one known is an upgrade seen by the probe.
    if (!status.reachable || (known?.version !== undefined && status.version !== known.version)) {
      this.consoleVersion.forget();
    }
    const current = this.consoleVersion.current();
    return current === undefined ? status : { ...status, apis: current.apis };
  }

  console(): Promise<ConsoleInfo> {
    return this.consoleVersion.read();
  }

  knownConsole(): ConsoleInfo | undefined {
    return this.consoleVersion.current();
  }

  offers(operation: OfficialOperation): Promise<boolean> {
    return this.consoleVersion.offers(operation);
  }

  // Deliberately alike: one read per API family, each with its own envelope and options.
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
    const entry = await this.cachedRead(call, site, options.fresh);
    return this.parsedList(entry, schema, call, (data) => asArray(data, call));
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
    const entry = await this.cachedRead(call, site, options.fresh);
    return this.parsedList(entry, schema, call, (data) => {
      if (Array.isArray(data)) return data;
      if (typeof data === 'object' && data !== null) return [data];
      throw invalidResponse('expected a JSON array or object', call.route);
    });
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
    this.refuseKnownMissing(path);
    const version = this.versionAlongside(path);
    const uuid = await this.resolveSiteUuid(site);
    const call = this.call('integration', 'GET', site, uuid, path);
    if (options.filter !== undefined) call.query = { ...call.query, filter: options.filter };
    const entry = await this.offered(
      path,
      () => this.cache.read(this.keyOf(call, site), options.fresh === true, () => this.allPages(call)),
      version,
    );
    return this.parsedList(entry, schema, call, (data) => asArray(data, call));
  }

  async integrationGet<T>(
    site: string,
    path: string,
    schema: z.ZodType<T>,
    options: ReadOptions = {},
  ): Promise<T> {
    this.requireApiKey();
    this.refuseKnownMissing(path);
    const version = this.versionAlongside(path);
    const uuid = await this.resolveSiteUuid(site);
    const call = this.call('integration', 'GET', site, uuid, path);
    const entry = await this.offered(path, () => this.cachedRead(call, site, options.fresh), version);
    return entry.derive(schema, (data) => {
      const parsed = schema.safeParse(data);
      if (parsed.success) return parsed.data;
      throw invalidResponse(
        `the object does not have the expected shape (${firstIssue(parsed.error)})`,
        call.route,
      );
    });
  }

  async integrationWrite(site: string, method: WriteMethod, path: string, body?: unknown): Promise<unknown> {
    this.requireApiKey();
    this.refuseKnownMissing(path);
    const version = this.versionAlongside(path);
    const uuid = await this.resolveSiteUuid(site);
    return this.offered(
      path,
      () => this.write(this.call('integration', method, site, uuid, path, body), site),
      version,
    );
  }

  async integrationGlobalList<T>(
    path: string,
    schema: z.ZodType<T>,
    options: ReadOptions = {},
  ): Promise<ParsedList<T>> {
    this.requireApiKey();
    this.refuseKnownMissing(path);
    const call = this.call('integration', 'GET', undefined, undefined, path);
    const entry = await this.offered(path, () =>
      this.cache.read(this.keyOf(call, GLOBAL_SCOPE), options.fresh === true, () => this.allPages(call)),
    );
    return this.parsedList(entry, schema, call, (data) => asArray(data, call));
  }

  resolveSiteUuid(site: string): Promise<string> {
    this.requireApiKey();
    return this.sites.resolve(site);
  }

  async warmUp(site: string): Promise<boolean> {
    try {
      // Detection, the site lookup and the console's version (help and /healthz show it) go out
      // together: one round, which the first commands' reads join instead of queueing behind,
      // and on a controller that never answers one wait, not one per step.
      await Promise.all([
        this.pipeline.prepare(),
        this.options.apiKey === undefined ? undefined : this.sites.resolve(site),
        this.consoleVersion.read(),
      ]);
      this.logger.debug({ site }, 'controller warm-up done');
      return true;
    } catch (error) {
      // Logged, not thrown: the bot starts anyway, and the first command meets the same
      // failure (or not) with its own read, since failed lookups are not remembered.
      const reason = scrubSecrets(error instanceof Error ? error.message : String(error));
      if (isBotError(error)) {
        this.logger.warn({ site, reason }, 'controller warm-up failed; the first command tries again');
      } else {
        this.logger.error({ site, err: error }, 'controller warm-up failed unexpectedly');
      }
      return false;
    }
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

  private cachedRead(call: Call, scope: string, fresh: boolean | undefined): Promise<CachedRead> {
    return this.cache.read(this.keyOf(call, scope), fresh === true, () => this.pipeline.read(call));
  }

  /**
   * Sends a write once; the site's cache is dropped even on failure, since a timed-out write may have
   * landed. A write answered 5xx (not 503) or not answered is read back once before anything is said
   * (write-check.ts): "not made" only when the read proves it, else "may have been made" with what
   * the read showed. The write itself is never sent again.
   */
  private async write(call: Call, site: string): Promise<unknown> {
    const target = readBackTarget(call.api, call.method as WriteMethod, call.path);
    const listCall = target === undefined ? undefined : this.collectionCall(call, target);
    // The object as last read before this write (from the cache, no request): proof of "unchanged".
    const before =
      listCall === undefined || target?.id === undefined
        ? undefined
        : findRecord(this.cache.peek(this.keyOf(listCall, site))?.value, target.id);
    try {
      return await this.pipeline.write(call);
    } catch (error) {
      this.cache.invalidate(site);
      const outcome = openOutcome(error);
      if (outcome === undefined) throw error;
      const failed = error as GatewayUnavailableError | GatewayRejectedError;
      const what = { method: call.method as WriteMethod, path: call.path };
      if (target === undefined || listCall === undefined) {
        throw reportAfterReadBack(
          failed,
          { made: 'maybe', evidence: 'the bot cannot read this change back to check it' },
          what,
        );
      }
      const readBack = await this.readBack(listCall, target, call.body);
      this.logger.info(
        { method: call.method, path: call.route, readBack: readBack.kind },
        'read back a write whose outcome was open',
      );
      const verdict = judgeReadBack({
        method: what.method,
        target,
        body: call.body,
        readBack,
        answered: outcome === 'answered',
        ...(before === undefined ? {} : { before }),
      });
      throw reportAfterReadBack(failed, verdict, what);
    } finally {
      this.cache.invalidate(site);
    }
  }

  /** The read of the collection a written object belongs to (same API, same site segment). */
  private collectionCall(call: Call, target: ReadBackTarget): Call {
    const route = target.id === undefined ? call.route : call.route.slice(0, call.route.lastIndexOf('/'));
    return {
      api: call.api,
      method: 'GET',
      path: target.collection,
      route,
      ...(call.site === undefined ? {} : { site: call.site }),
    };
  }

  /** One fresh read of the collection, not retried beyond a read's own policy; never throws. */
  private async readBack(listCall: Call, target: ReadBackTarget, body: unknown): Promise<ReadBack> {
    try {
      const data =
        listCall.api === 'integration' ? await this.allPages(listCall) : await this.pipeline.read(listCall);
      const records = Array.isArray(data) ? data : typeof data === 'object' && data !== null ? [data] : [];
      const name =
        typeof body === 'object' && body !== null && typeof (body as { name?: unknown }).name === 'string'
          ? (body as { name: string }).name
          : undefined;
      const record =
        target.id !== undefined
          ? findRecord(records, target.id)
          : records.find(
              (r): r is Record<string, unknown> =>
                typeof r === 'object' &&
                r !== null &&
                name !== undefined &&
                (r as { name?: unknown }).name === name,
            );
      return record === undefined ? { kind: 'absent' } : { kind: 'present', record };
    } catch (error) {
      return {
        kind: 'unreadable',
        reason: scrubSecrets(error instanceof Error ? error.message : String(error)),
      };
    }
  }

  /**
   * Follows Integration pages (`limit` at the maximum). The first page tells the total, so the rest
   * are requested together (bounded). Then the pages are walked in order as a one-by-one loop
   * would (`offset` moved by `count` until `totalCount`): should a page come back shorter than the
   * first (the list changed meanwhile), the gap is read where it is, one page at a time.
   */
  private async allPages(call: Call): Promise<unknown[]> {
    let sent = 0;
    const tooMany = () =>
      new GatewayRejectedError(
        INVALID_RESPONSE,
        `the controller kept sending pages of ${call.route} (more than ${this.options.maxPages}); stopped`,
      );
    const page = async (offset: number): Promise<IntegrationPage> => {
      if (sent >= this.options.maxPages) throw tooMany();
      sent += 1;
      const query = { ...call.query, offset: String(offset), limit: String(this.options.pageSize) };
      const current = readIntegrationPage(await this.pipeline.read({ ...call, query }));
      if (current === undefined) {
        throw invalidResponse(
          'expected an Integration page {offset,limit,count,totalCount,data}',
          call.route,
        );
      }
      return current;
    };
    const stepOf = (p: IntegrationPage) => (p.count > 0 ? p.count : p.data.length);

    const first = await page(0);
    const fetched = new Map<number, IntegrationPage>([[0, first]]);
    const step = stepOf(first);
    if (step > 0 && step < first.totalCount) {
      const offsets: number[] = [];
      for (let offset = step; offset < first.totalCount; offset += step) offsets.push(offset);
      if (offsets.length >= this.options.maxPages) throw tooMany();
      const pages = await mapBounded(offsets, PAGE_CONCURRENCY, page);
      offsets.forEach((offset, i) => {
        const p = pages[i];
        if (p !== undefined) fetched.set(offset, p);
      });
    }
    const records: unknown[] = [];
    let offset = 0;
    for (;;) {
      const current = fetched.get(offset) ?? (await page(offset));
      for (const record of current.data) records.push(record);
      const advance = stepOf(current);
      offset += advance;
      if (advance === 0 || offset >= current.totalCount) return records;
    }
  }

  /**
   * The records of an answer validated with `schema`, once per answer: readers of the same answer
   * share the parsed records (treat them as read-only) but each gets its own list.
   */
  private async parsedList<T>(
    entry: CachedRead,
    schema: z.ZodType<T>,
    call: Call,
    records: (data: unknown) => unknown[],
  ): Promise<ParsedList<T>> {
    // The promise is what is kept with the answer: readers arriving while it parses wait for it.
    const parsed = await entry.derive(schema, (data) => this.parseList(records(data), schema, call));
    // Counted on every read, cache hits included: the parse (and its count) is kept with the answer.
    noteUnreadable(`${call.api} ${call.route}`, parsed.skipped);
    return { items: parsed.items.slice(), skipped: parsed.skipped };
  }

  /**
   * Validates the records in slices of at most `parseSliceMs`, giving the event loop a turn between
   * slices: a large answer (50,000 clients take 100 ms or more to validate) would otherwise hold up
   * every Slack ack that arrives meanwhile (acks never wait). An answer that parses
   * within one slice, as most do, never yields.
   */
  private async parseList<T>(records: unknown[], schema: z.ZodType<T>, call: Call): Promise<ParsedList<T>> {
    const items: T[] = [];
    let skipped = 0;
    // A fastLenientObject schema parses without zod's per-record objects; a record it refuses goes
    // through safeParse below, which refuses it the same way and names the issue.
    const fast = recordParserOf(schema);
    let sliceStart = performance.now();
    for (let index = 0; index < records.length; index++) {
      if (performance.now() - sliceStart > this.options.parseSliceMs) {
        await nextTurn();
        sliceStart = performance.now();
      }
      const record = records[index];
      if (fast !== undefined) {
        const out = fast(record);
        if (out !== REJECTED) {
          items.push(out);
          continue;
        }
      }
      const parsed = schema.safeParse(record);
      if (parsed.success) {
        items.push(parsed.data);
        continue;
      }
      skipped += 1;
      // The record itself is never logged: it may carry keys (x_authkey, x_passphrase).
      this.logger.debug(
        { path: call.route, index, issue: firstIssue(parsed.error) },
        'skipped a record that does not match its schema',
      );
    }
    return { items, skipped };
  }

  /**
   * Refuses, before any request, an official operation this console answered 404 for a little
   * while ago (remembered per console, see MISSING_TTL_MS). The version alone never refuses: its
   * table is a guess about older consoles, which the console's own answer settles.
   */
  private refuseKnownMissing(path: string): void {
    const operation = operationOfPath(path);
    if (operation === undefined || !this.consoleVersion.isMissing(operation)) return;
    throw notOffered(operation, this.consoleVersion.current()?.version);
  }

  /**
   * The console's version, asked alongside the site lookup, for an operation only the official API
   * serves: on a console older than its document the first request of it goes alone (`probeTurn`).
   */
  private versionAlongside(path: string): Promise<ConsoleInfo | undefined> | undefined {
    const operation = operationOfPath(path);
    if (operation === undefined || !NO_PRIVATE_FALLBACK.has(operation)) return undefined;
    return this.consoleVersion.read().catch(() => undefined);
  }

  /**
   * Runs an official request. A 404 on a collection (a list, a create, an ordering) means the
   * console lacks the operation: it becomes NotSupportedError naming it, and is remembered. A 404
   * on one object (`acl-rules/{id}`) is that object's, unless the console reports a version older
   * than the operation's document (then the route is the likelier absentee).
   */
  private async offered<T>(
    path: string,
    send: () => Promise<T>,
    version?: Promise<ConsoleInfo | undefined>,
  ): Promise<T> {
    const operation = operationOfPath(path);
    const probe = operation === undefined ? undefined : await this.probeTurn(operation, version);
    let answered = false;
    try {
      const result = await send();
      answered = true;
      return result;
    } catch (error) {
      if (!(error instanceof ResourceNotFoundError) || operation === undefined) {
        answered = !(error instanceof GatewayUnavailableError);
        throw error;
      }
      let missing = isCollectionPath(path);
      if (!missing) {
        try {
          const info = await this.consoleVersion.read();
          missing = info.official && !knownOffers(info, operation);
        } catch {
          // The version cannot be read now: the 404 stands as it is.
        }
      }
      if (!missing) {
        answered = true;
        throw error;
      }
      for (const same of sameGroup(operation)) this.consoleVersion.markMissing(same);
      this.logger.info(
        { operation, path },
        'the console answered 404 for an official operation; refused for a while without asking',
      );
      throw notOffered(operation, this.consoleVersion.current()?.version);
    } finally {
      probe?.(answered);
    }
  }

  /**
   * On a console whose version predates the document of an operation only the official API serves,
   * the first request of it goes alone and the others wait for its answer: a console without the
   * route is then asked once, and refuses the rest unasked. Elsewhere (a version that documents it,
   * or the route seen answering) nothing waits. Returns what to call with the outcome, when this
   * request is the one that asks.
   */
  private async probeTurn(
    operation: OfficialOperation,
    version: Promise<ConsoleInfo | undefined> | undefined,
  ): Promise<((answered: boolean) => void) | undefined> {
    if (!NO_PRIVATE_FALLBACK.has(operation)) return undefined;
    const info = version === undefined ? this.consoleVersion.current() : await version;
    if (info === undefined || !info.official || knownOffers(info, operation)) return undefined;
    const key = GROUP_OF_OFFICIAL_ONLY[operation] ?? operation;
    for (let pending = this.probes.get(key); pending !== undefined; pending = this.probes.get(key)) {
      await pending;
    }
    if (this.consoleVersion.isMissing(operation)) {
      throw notOffered(operation, this.consoleVersion.current()?.version);
    }
    if (this.consoleVersion.answered(key)) return undefined;
    let settle: () => void = () => undefined;
    this.probes.set(
      key,
      new Promise<void>((resolve) => {
        settle = resolve;
      }),
    );
    return (answered) => {
      if (answered) this.consoleVersion.markAnswered(key);
      this.probes.delete(key);
      settle();
    };
  }

  private requireApiKey(): void {
    if (this.options.apiKey === undefined) throw new NotSupportedError(INTEGRATION_KEY_NEEDED);
  }
}

/** An operation and those sharing its group's only endpoint (a 404 on one refuses them all). */
function sameGroup(operation: OfficialOperation): OfficialOperation[] {
  const group = GROUP_OF_OFFICIAL_ONLY[operation];
  if (group === undefined) return [operation];
  return (Object.keys(GROUP_OF_OFFICIAL_ONLY) as OfficialOperation[]).filter(
    (other) => GROUP_OF_OFFICIAL_ONLY[other] === group,
  );
}

function knownOffers(info: ConsoleInfo, operation: OfficialOperation): boolean {
  return offersOfficial(versionOf(info), operation);
}

/** The refusal of an operation the console answered 404 for: what is missing, and what would serve it. */
function notOffered(operation: OfficialOperation, version: string | undefined): NotSupportedError {
  const on = version === undefined ? 'this console' : `this console (UniFi Network ${version})`;
  return new NotSupportedError(
    `${on} does not offer ${OPERATION_WORDS[operation]} in its official API (it answered 404); ` +
      `UniFi Network ${sinceText(operation)} documents them: update the console's Network application`,
  );
}

/** The record with this `_id` (classic, v2) or `id` (Integration) in a list answer. */
function findRecord(data: unknown, id: string): Record<string, unknown> | undefined {
  if (!Array.isArray(data)) return undefined;
  return data.find(
    (r): r is Record<string, unknown> =>
      typeof r === 'object' &&
      r !== null &&
      ((r as { _id?: unknown })._id === id || (r as { id?: unknown }).id === id),
  );
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
