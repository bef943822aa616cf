import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { z } from 'zod';
import type { Gateway } from '../../src/gateway/types.js';

/** One request as a fake server saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: unknown;
  at: number;
}

/** Answers one request; may delay, destroy the socket, or never answer. */
export type Handler = (req: SeenRequest, res: ServerResponse) => unknown;

/** A small purpose-built HTTP server on an ephemeral loopback port. */
export interface FakeServer {
  url: string;
  requests: SeenRequest[];
  /** Requests whose path ends with `suffix` (and whose method matches, when given). */
  seen(suffix: string, method?: string): SeenRequest[];
  close(): Promise<void>;
}

/** Starts a fake server that records every request and hands it to `handler`. */
export async function startFake(handler: Handler): Promise<FakeServer> {
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = text;
      }
      const seen: SeenRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        body,
        at: Date.now(),
      };
      requests.push(seen);
      Promise.resolve(handler(seen, res)).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    seen: (suffix, method) =>
      requests.filter((r) => r.path.endsWith(suffix) && (method === undefined || r.method === method)),
    // Deliberately alike: closing a node HTTP server at once, as the OIDC fake does; the two fakes share nothing else.
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Sends a JSON answer. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string | string[]> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

/** A first Integration page of up to 200 that holds `data`, of `totalCount` records in all. */
export function sendFirstPage(res: ServerResponse, data: unknown[], totalCount = data.length): void {
  sendJson(res, 200, { offset: 0, limit: 200, count: data.length, totalCount, data });
}

/** A classic `{meta:{rc:"ok"},data}` answer. */
export function sendClassic(
  res: ServerResponse,
  data: unknown[],
  headers: Record<string, string> = {},
): void {
  sendJson(res, 200, { meta: { rc: 'ok' }, data }, headers);
}

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'unifi');

/** A fixture body from test/fixtures/unifi. */
export function fixture(relativePath: string): unknown {
  return JSON.parse(readFileSync(join(FIXTURES, relativePath), 'utf8'));
}

/** A lenient network record schema for tests. */
export const networkSchema = z.looseObject({ _id: z.string(), name: z.string() });

/** What reading the default site's networks threw; the value read when nothing was thrown. */
export function networkReadError(gateway: Gateway): Promise<unknown> {
  return gateway.classicRead('default', 'rest/networkconf', networkSchema).catch((e: unknown) => e);
}

/** Time an async operation, returning its settled outcome and the elapsed ms. */
export async function timed<T>(run: () => Promise<T>): Promise<{ error: unknown; value?: T; ms: number }> {
  const started = Date.now();
  try {
    const value = await run();
    return { error: undefined, value, ms: Date.now() - started };
  } catch (error) {
    return { error, ms: Date.now() - started };
  }
}

/** Options of the mini controller: a purpose-built UniFi OS or self-hosted login flow. */
export interface MiniControllerOptions {
  flavor: 'unifi-os' | 'self-hosted';
  username?: string;
  password?: string;
  apiKey?: string;
}

/** A mini controller that logs in, rotates CSRF tokens and can expire its sessions. */
export interface MiniController extends FakeServer {
  readonly logins: number;
  /** The CSRF token the controller expects next (UniFi OS). */
  readonly csrf: string;
  /** Every CSRF token handed out so far, in order. */
  readonly csrfIssued: string[];
  /** Every session cookie value handed out so far. */
  readonly sessionsIssued: string[];
  expireSessions(): void;
}

/**
 * Serves `rest/networkconf` under `/proxy/network` (UniFi OS) or the root (self-hosted), with the
 * real login routes, cookies (`TOKEN` / `unifises`), CSRF checks on writes and rotation through
 * `X-Updated-CSRF-Token` after each write.
 */
export async function startMiniController(options: MiniControllerOptions): Promise<MiniController> {
  const unifiOs = options.flavor === 'unifi-os';
  const prefix = unifiOs ? '/proxy/network' : '';
  const cookieName = unifiOs ? 'TOKEN' : 'unifises';
  const sessions = new Set<string>();
  const csrfIssued: string[] = [];
  const sessionsIssued: string[] = [];
  let logins = 0;
  let csrf = '';
  const networks: { _id: string; name: string }[] = [{ _id: '64ab0c9e8f1a2b3c4d5e6f70', name: 'Default' }];

  const issueCsrf = () => {
    csrf = `csrf-${csrfIssued.length + 1}-${Math.random().toString(36).slice(2)}`;
    csrfIssued.push(csrf);
    return csrf;
  };
  const cookieOf = (headers: IncomingHttpHeaders) =>
    String(headers.cookie ?? '')
      .split(';')
      .map((c) => c.trim().split('='))
      .find(([name]) => name === cookieName)?.[1];

  const server = await startFake((req, res) => {
    if (req.path === '/' && req.method === 'GET') {
      if (unifiOs) {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>UniFi OS</html>');
      } else {
        res.writeHead(302, { location: '/manage' });
        res.end();
      }
      return;
    }
    const loginPath = unifiOs ? '/api/auth/login' : '/api/login';
    if (req.path === loginPath && req.method === 'POST') {
      logins += 1;
      const body = z.object({ username: z.string(), password: z.string() }).safeParse(req.body);
      if (
        !body.success ||
        body.data.username !== options.username ||
        body.data.password !== options.password
      ) {
        if (unifiOs) {
          sendJson(res, 401, {
            code: 'AUTHENTICATION_FAILED_INVALID_CREDENTIALS',
            message: 'Invalid credentials',
          });
        } else {
          sendJson(res, 400, { meta: { rc: 'error', msg: 'api.err.Invalid' }, data: [] });
        }
        return;
      }
      const session = `${cookieName.toLowerCase()}-${logins}-${Math.random().toString(36).slice(2)}`;
      sessions.add(session);
      sessionsIssued.push(session);
      const headers: Record<string, string | string[]> = {
        'set-cookie': [`${cookieName}=${session}; Path=/; HttpOnly; SameSite=Strict`],
      };
      if (unifiOs) {
        headers['x-csrf-token'] = issueCsrf();
        sendJson(res, 200, fixture('classic/auth-login-unifios.aiounifi.json'), headers);
      } else {
        sendJson(res, 200, { meta: { rc: 'ok' }, data: [] }, headers);
      }
      return;
    }
    if (!req.path.startsWith(`${prefix}/api/s/`)) {
      sendJson(res, 404, { meta: { rc: 'error', msg: 'api.err.NotFound' }, data: [] });
      return;
    }
    const byKey = options.apiKey !== undefined && req.headers['x-api-key'] === options.apiKey;
    const session = cookieOf(req.headers);
    const bySession = session !== undefined && sessions.has(session);
    if (!byKey && !bySession) {
      if (unifiOs) {
        res.writeHead(401, { 'content-type': 'text/html' });
        res.end('<html><body>401 Unauthorized</body></html>');
      } else {
        sendJson(res, 401, { meta: { rc: 'error', msg: 'api.err.LoginRequired' }, data: [] });
      }
      return;
    }
    const isWrite = req.method !== 'GET';
    if (bySession && unifiOs && isWrite && req.headers['x-csrf-token'] !== csrf) {
      sendJson(res, 403, { meta: { rc: 'error', msg: 'api.err.InvalidCsrfToken' }, data: [] });
      return;
    }
    const rotated: Record<string, string> =
      bySession && unifiOs && isWrite ? { 'x-updated-csrf-token': issueCsrf() } : {};
    if (req.path.endsWith('/rest/networkconf') && req.method === 'GET') {
      sendClassic(res, networks, rotated);
      return;
    }
    if (req.path.endsWith('/rest/networkconf') && req.method === 'POST') {
      const name = z.object({ name: z.string() }).parse(req.body).name;
      const created = { _id: `64ab0c9e8f1a2b3c4d5e${String(networks.length).padStart(4, '0')}`, name };
      networks.push(created);
      sendClassic(res, [created], rotated);
      return;
    }
    sendJson(res, 400, { meta: { rc: 'error', msg: 'api.err.InvalidObject' }, data: [] });
  });

  return {
    ...server,
    get logins() {
      return logins;
    },
    get csrf() {
      return csrf;
    },
    csrfIssued,
    sessionsIssued,
    expireSessions: () => sessions.clear(),
  };
}

/** Servers and gateways a test file starts, all closed after each test. */
export function closedAfterEach(): { servers: FakeServer[]; gateways: Gateway[] } {
  const tracked = { servers: [] as FakeServer[], gateways: [] as Gateway[] };
  afterEach(async () => {
    await Promise.all(tracked.gateways.splice(0).map((g) => g.close()));
    await Promise.all(tracked.servers.splice(0).map((s) => s.close()));
  });
  return tracked;
}
