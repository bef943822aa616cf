/**
 * The cloud in front of a simulated fleet: Site Manager (`/v1/hosts`, `/v1/sites`, `/v1/devices`)
 * over every console, and the connector proxy forwarding `/v1/connector/consoles/{id}/proxy/network/…`
 * to that console's own server, as the real connector forwards to the console's loopback. One
 * rate limit per API key counts every call made with that key, whoever makes it.
 */
import { setMaxListeners } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { headerValue } from './auth.js';
import { apiKindOf } from './dispatch.js';
import { type Reply, renderError, SimError, send, traceId } from './envelopes.js';
import { FaultQueue, faultReply } from './faults.js';
import { type CloudConsole, hostDevices, hostRecord, paged, pageOf, siteRecord } from './fleet-records.js';
import { recordOf } from './request-log.js';
import type { FaultSpec, RecordedRequest } from './types.js';

/** A console as the cloud reaches it: what Site Manager reports, and where its server listens. */
export interface CloudTarget extends CloudConsole {
  /** The console's own server (loopback), even when the fleet does not expose it. */
  readonly internalUrl: string;
  /** The key the console accepts; the connector presents it on the caller's behalf. */
  readonly localApiKey: string;
}

/** Options of the fleet's cloud server. */
export interface CloudOptions {
  /** Keys Site Manager accepts; each has its own rate limit. */
  apiKeys: readonly string[];
  /** Requests per rolling minute per key (Site Manager v1: 10 000; early access: 100). */
  rateLimitPerMinute: number;
  /** Page size when a list call gives no `pageSize`. */
  defaultPageSize: number;
  consoles: readonly CloudTarget[];
}

const WINDOW_MS = 60_000;
const CONNECTOR = /^\/v1\/connector\/consoles\/([^/]+)\/proxy\/network(\/.*)?$/;
// Hop-by-hop and length headers are the proxy's own; everything else passes through unchanged.
const DROPPED_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'content-encoding',
]);

/** A rolling one-minute window of calls per key. */
export class KeyRateLimiter {
  readonly #calls = new Map<string, number[]>();
  constructor(
    private readonly limit: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts a call; over the limit, how long until the oldest call leaves the window (ms). */
  take(key: string): { ok: true } | { ok: false; retryAfterMs: number } {
    const now = this.now();
    const calls = (this.#calls.get(key) ?? []).filter((at) => at > now - WINDOW_MS);
    this.#calls.set(key, calls);
    if (calls.length >= this.limit) return { ok: false, retryAfterMs: (calls[0] ?? now) + WINDOW_MS - now };
    calls.push(now);
    return { ok: true };
  }

  reset(): void {
    this.#calls.clear();
  }
}

function rateLimited(retryAfterMs: number): Reply {
  const seconds = Math.max(retryAfterMs, 1) / 1000;
  const error = new SimError(429, 'RATE_LIMIT', `rate limit exceeded, retry after ${seconds.toFixed(9)}s`);
  return {
    ...renderError('site-manager', error, ''),
    headers: { 'Retry-After': String(Math.ceil(seconds)) },
  };
}

async function readRaw(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks);
}

function ok(body: Record<string, unknown>): Reply {
  return { status: 200, body: { ...body, httpStatusCode: 200, traceId: traceId() } };
}

/** The fleet's cloud server: Site Manager and the connector for every console. */
export class FleetCloud {
  readonly requests: RecordedRequest[] = [];
  readonly #faults = new FaultQueue();
  readonly #limiter: KeyRateLimiter;
  readonly #server: Server = createServer();
  readonly #byId: Map<string, CloudTarget>;
  readonly #closing = new AbortController();
  #url = '';

  constructor(private readonly options: CloudOptions) {
    this.#limiter = new KeyRateLimiter(options.rateLimitPerMinute);
    this.#byId = new Map(options.consoles.map((console) => [console.id, console]));
    setMaxListeners(0, this.#closing.signal);
    this.#server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      this.#handle(req, res).catch(() => {
        if (res.headersSent || res.destroyed) return;
        send(res, renderError('site-manager', new SimError(500, 'SERVER_ERROR', 'internal error'), ''));
      });
    });
  }

  get url(): string {
    return this.#url;
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(0, '127.0.0.1', () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
    this.#url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Queues a fault on the cloud itself (Site Manager and connector routes; the full path is matched). */
  injectFault(spec: FaultSpec): void {
    this.#faults.add(spec);
  }

  clearFaults(): void {
    this.#faults.clear();
  }

  clearRequests(): void {
    this.requests.length = 0;
  }

  /** Forgets every call counted against the rate limits. */
  resetRateLimits(): void {
    this.#limiter.reset();
  }

  async close(): Promise<void> {
    this.#closing.abort();
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = (req.method ?? 'GET').toUpperCase();
    const raw = await readRaw(req);
    const text = raw.toString('utf8');
    let body: unknown = text;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      // Recorded as sent.
    }
    const record = recordOf(req, method, url, url.pathname, body);
    this.requests.push(record);
    const fault = this.#faults.take(method, url.pathname);
    if (fault?.kind === 'drop') return void req.socket.destroy();
    if (fault?.kind === 'latency') await sleep(fault.ms, undefined, { signal: this.#closing.signal });
    if (fault?.kind === 'status' || fault?.kind === 'rate-limit')
      return send(res, faultReply(fault, 'site-manager', url.pathname));

    const key = headerValue(req.headers['x-api-key']);
    if (key === undefined || !this.options.apiKeys.includes(key))
      return send(res, renderError('site-manager', new SimError(401, 'UNAUTHORIZED', 'unauthorized'), ''));
    const allowed = this.#limiter.take(key);
    if (!allowed.ok) return send(res, rateLimited(allowed.retryAfterMs));

    const connector = CONNECTOR.exec(url.pathname);
    try {
      if (connector) return send(res, await this.#forward(req, url, connector, raw));
      send(res, this.#siteManager(method, url));
    } catch (error) {
      if (!(error instanceof SimError)) throw error;
      send(res, renderError('site-manager', error, url.pathname));
    }
  }

  #console(id: string): CloudTarget {
    let decoded = id;
    try {
      decoded = decodeURIComponent(id);
    } catch {
      // Left as sent; it matches no console.
    }
    const found = this.#byId.get(decoded);
    if (!found) throw new SimError(404, 'NOT_FOUND', `thing not found: ${decoded}`);
    return found;
  }

  #siteManager(method: string, url: URL): Reply {
    if (method !== 'GET') throw new SimError(404, 'NOT_FOUND', `route not found: ${url.pathname}`);
    const { consoles, defaultPageSize } = this.options;
    const path = url.pathname;
    if (path === '/v1/hosts') {
      const page = pageOf(url.searchParams, 'hosts', defaultPageSize);
      return ok(paged(consoles.map(hostRecord), 'hosts', page));
    }
    const host = /^\/v1\/hosts\/([^/]+)$/.exec(path);
    if (host) return ok({ data: hostRecord(this.#console(host[1] ?? '')) });
    if (path === '/v1/sites') {
      const page = pageOf(url.searchParams, 'sites', defaultPageSize);
      const sites = consoles.flatMap((console) => console.sites().map((site) => siteRecord(console, site)));
      return ok(paged(sites, 'sites', page));
    }
    if (path === '/v1/devices') {
      const wanted = [...url.searchParams.getAll('hostIds[]'), ...url.searchParams.getAll('hostIds')];
      const hosts = wanted.length === 0 ? consoles : wanted.map((id) => this.#console(id));
      const page = pageOf(url.searchParams, 'devices', defaultPageSize);
      return ok(paged(hosts.map(hostDevices), 'devices', page));
    }
    throw new SimError(404, 'NOT_FOUND', `route not found: ${path}`);
  }

  async #forward(req: IncomingMessage, url: URL, match: RegExpExecArray, raw: Buffer): Promise<Reply> {
    const target = this.#console(match[1] ?? '');
    const route = match[2] ?? '/';
    if (apiKindOf(route) === 'v2')
      throw new SimError(
        403,
        'FORBIDDEN',
        'the connector does not forward internal v2 routes; use the local API',
      );
    if (target.down) throw new SimError(502, 'BAD_GATEWAY', `console ${target.id} is offline`);
    const headers: Record<string, string> = { 'X-API-KEY': target.localApiKey, Accept: 'application/json' };
    const contentType = headerValue(req.headers['content-type']);
    if (contentType !== undefined) headers['Content-Type'] = contentType;
    let upstream: Response;
    try {
      upstream = await fetch(`${target.internalUrl}/proxy/network${route}${url.search}`, {
        method: req.method ?? 'GET',
        headers,
        body: raw.length > 0 ? new Uint8Array(raw) : undefined,
        redirect: 'manual',
        signal: this.#closing.signal,
      });
    } catch {
      throw new SimError(502, 'BAD_GATEWAY', `console ${target.id} did not answer`);
    }
    const passed: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (!DROPPED_HEADERS.has(name) && name !== 'content-type' && name !== 'date') passed[name] = value;
    });
    return {
      status: upstream.status,
      text: await upstream.text(),
      contentType: upstream.headers.get('content-type') ?? 'application/octet-stream',
      headers: passed,
    };
  }
}
