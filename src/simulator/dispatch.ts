import type { IncomingHttpHeaders } from 'node:http';
import type { OfficialExtra } from './api-version.js';
import { headerValue, type Principal, type SessionStore } from './auth.js';
import { type ApiKind, htmlPage, INTEGRATION_CODES, type Reply, renderError, SimError } from './envelopes.js';
import type { Router } from './router.js';
import { cloudRouter } from './routes/cloud.js';
import { legacyLogin, logout, rootPage, unifiOsLogin } from './routes/console.js';
import type { Handler } from './routes/context.js';
import { type NetworkRouters, networkRouters } from './routes/index.js';
import type { SimulatorState } from './state.js';
import type { SimulatorFlavor } from './types.js';

/** Where a path lands, decided from the path alone (also what faults match and requests record). */
export type ResolvedRoute =
  | { area: 'network'; route: string }
  | { area: 'connector'; route: string; consoleId: string }
  | { area: 'cloud'; route: string }
  | { area: 'console'; route: string };

const CONNECTOR = /^\/v1\/connector\/consoles\/([^/]+)\/proxy\/network(\/.*)?$/;
const NETWORK_PREFIX = '/proxy/network';

/** Strips the deployment prefix: `/proxy/network` on UniFi OS, nothing on a self-hosted controller. */
export function resolveRoute(flavor: SimulatorFlavor, path: string): ResolvedRoute {
  const connector = CONNECTOR.exec(path);
  if (connector) {
    let consoleId = connector[1] ?? '';
    try {
      consoleId = decodeURIComponent(consoleId);
    } catch {
      // Leave it as sent; it will not match the console id.
    }
    return { area: 'connector', route: connector[2] ?? '/', consoleId };
  }
  if (path.startsWith('/v1/')) return { area: 'cloud', route: path };
  if (flavor === 'unifi-os') {
    if (path === NETWORK_PREFIX || path.startsWith(`${NETWORK_PREFIX}/`)) {
      return { area: 'network', route: path.slice(NETWORK_PREFIX.length) || '/' };
    }
    return { area: 'console', route: path };
  }
  if (path === '/api/login' || path === '/api/logout') return { area: 'console', route: path };
  if (/^\/(api|v2|integration)\//.test(path)) return { area: 'network', route: path };
  return { area: 'console', route: path };
}

/** The API family a Network route belongs to. */
export function apiKindOf(route: string): 'classic' | 'v2' | 'integration' {
  if (route.startsWith('/integration/')) return 'integration';
  if (route.startsWith('/v2/')) return 'v2';
  return 'classic';
}

/** The error family used for answers about a resolved route (faults, auth, unknown paths). */
export function errorKindOf(target: ResolvedRoute): ApiKind {
  switch (target.area) {
    case 'network':
      return apiKindOf(target.route);
    case 'connector':
    case 'cloud':
      return 'site-manager';
    case 'console':
      return 'unifi-os';
  }
}

/** The request as the dispatcher needs it. */
export interface DispatchRequest {
  method: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Parsed JSON (undefined for an empty body), or a parse failure. */
  body: { ok: true; value: unknown } | { ok: false };
}

/** Everything the dispatcher depends on. */
export interface DispatchDeps {
  flavor: SimulatorFlavor;
  apiKey: string;
  username: string;
  password: string;
  consoleId: string;
  loginRateLimit: number;
  state: SimulatorState;
  sessions: SessionStore;
  /** The Network version played (SIMULATOR_API_VERSION): which official operations exist. */
  apiVersion?: string;
  /** Official operations served although the version played predates their document. */
  officialAlso?: readonly OfficialExtra[];
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function unauthorized(kind: ApiKind, principal: Principal): SimError {
  if (kind === 'integration') {
    const message =
      principal.kind === 'anonymous' && principal.reason === 'bad-key'
        ? 'Invalid API key'
        : 'Missing credentials';
    return new SimError(401, INTEGRATION_CODES.missingCredentials, message);
  }
  return new SimError(401, 'api.err.LoginRequired', 'Login required');
}

function unknownRoute(kind: 'classic' | 'v2' | 'integration', route: string, wrongMethod: boolean): SimError {
  if (kind === 'integration') {
    return wrongMethod
      ? new SimError(405, INTEGRATION_CODES.methodNotAllowed, 'Method not allowed')
      : new SimError(404, INTEGRATION_CODES.notFound, `No route ${route}`);
  }
  if (kind === 'v2') {
    return wrongMethod
      ? new SimError(405, 'api.err.MethodNotAllowed', 'Method not allowed')
      : new SimError(404, 'api.err.NotFound', `No route ${route}`);
  }
  // Real consoles: an unknown rest/<collection> is InvalidObject (400); any other unknown path NotFound (404).
  if (/^\/api\/s\/[^/]+\/rest\//.test(route))
    return new SimError(400, 'api.err.InvalidObject', `No route ${route}`);
  return new SimError(404, 'api.err.NotFound', `No route ${route}`);
}

/** Decides the answer to every request: console routes, Site Manager, the connector, the Network app. */
export class Dispatcher {
  readonly #routers: NetworkRouters;
  readonly #cloud: Router<Handler>;

  constructor(private readonly deps: DispatchDeps) {
    this.#routers = networkRouters(deps.apiVersion, deps.officialAlso);
    this.#cloud = cloudRouter(deps.consoleId);
  }

  /** Answers one request. Never throws: every failure becomes the API's own error body. */
  handle(request: DispatchRequest, target: ResolvedRoute): Reply {
    const kind = errorKindOf(target);
    try {
      switch (target.area) {
        case 'console':
          return this.#console(request, target.route);
        case 'cloud':
          return this.#siteManager(request, target.route);
        case 'connector':
          return this.#connector(request, target);
        case 'network':
          return this.#network(request, target.route, this.#identify(request));
      }
    } catch (error) {
      const simError =
        error instanceof SimError
          ? error
          : new SimError(500, 'api.err.ServerError', 'Internal simulator error');
      return renderError(kind, simError, target.route);
    }
  }

  #identify(request: DispatchRequest): Principal {
    return this.deps.sessions.identify(request.headers, this.deps.flavor, this.deps.apiKey);
  }

  #console(request: DispatchRequest, route: string): Reply {
    const { flavor } = this.deps;
    const { method } = request;
    if (method === 'GET' && route === '/') return rootPage(flavor);
    if (method === 'GET' && route === '/manage' && flavor === 'self-hosted')
      return htmlPage(200, 'UniFi Network');
    const body = request.body.ok ? request.body.value : undefined;
    if (flavor === 'unifi-os' && method === 'POST' && route === '/api/auth/login')
      return unifiOsLogin(this.deps, body);
    if (flavor === 'self-hosted' && method === 'POST' && route === '/api/login')
      return legacyLogin(this.deps, body);
    const logoutRoute = flavor === 'unifi-os' ? '/api/auth/logout' : '/api/logout';
    if (method === 'POST' && route === logoutRoute) {
      const principal = this.#identify(request);
      this.#checkCsrf(request, principal);
      return logout(this.deps, principal);
    }
    return htmlPage(404, 'Not Found');
  }

  #keyValid(request: DispatchRequest): boolean {
    return headerValue(request.headers['x-api-key']) === this.deps.apiKey;
  }

  #siteManager(request: DispatchRequest, route: string): Reply {
    if (!this.#keyValid(request)) throw new SimError(401, 'UNAUTHORIZED', 'unauthorized');
    const match = this.#cloud.match(request.method, route);
    if (match.kind !== 'found') throw new SimError(404, 'NOT_FOUND', `route not found: ${route}`);
    return match.handler({
      method: request.method,
      route,
      query: request.query,
      body: request.body.ok ? request.body.value : undefined,
      state: this.deps.state,
      params: match.params,
    });
  }

  // The connector forwards Integration and classic routes with the cloud key; it refuses v2.
  #connector(request: DispatchRequest, target: Extract<ResolvedRoute, { area: 'connector' }>): Reply {
    if (!this.#keyValid(request)) throw new SimError(401, 'UNAUTHORIZED', 'unauthorized');
    if (target.consoleId !== this.deps.consoleId)
      throw new SimError(404, 'NOT_FOUND', `thing not found: ${target.consoleId}`);
    if (apiKindOf(target.route) === 'v2') {
      throw new SimError(
        403,
        'FORBIDDEN',
        'the connector does not forward internal v2 routes; use the local API',
      );
    }
    return this.#network(request, target.route, { kind: 'api-key' });
  }

  #checkCsrf(request: DispatchRequest, principal: Principal): void {
    if (this.deps.flavor !== 'unifi-os' || principal.kind !== 'session' || !WRITES.has(request.method))
      return;
    if (headerValue(request.headers['x-csrf-token']) !== principal.session.csrf) {
      throw new SimError(403, 'api.err.NoPermission', 'Missing or stale X-CSRF-Token');
    }
  }

  // The Network app's security filter runs before any controller, so classic and v2 routes share its
  // classic-envelope answers (401 LoginRequired, 403 on CSRF); Integration has its own error schema.
  #authorize(
    kind: ApiKind,
    request: DispatchRequest,
    principal: Principal,
    route: string,
  ): Reply | undefined {
    const errorKind = kind === 'integration' ? 'integration' : 'classic';
    try {
      if (principal.kind === 'anonymous' || (kind === 'integration' && principal.kind !== 'api-key')) {
        throw unauthorized(kind, principal);
      }
      this.#checkCsrf(request, principal);
      return undefined;
    } catch (error) {
      if (!(error instanceof SimError)) throw error;
      return renderError(errorKind, error, route);
    }
  }

  #network(request: DispatchRequest, route: string, principal: Principal): Reply {
    const kind = apiKindOf(route);
    const refused = this.#authorize(kind, request, principal, route);
    if (refused) return refused;
    try {
      if (!request.body.ok) {
        const code =
          kind === 'classic'
            ? 'api.err.InvalidObject'
            : kind === 'v2'
              ? 'api.err.InvalidPayload'
              : INTEGRATION_CODES.malformedBody;
        throw new SimError(400, code, 'Request body is not valid JSON');
      }
      // Restarted devices and reconnecting clients come back when due, before anything reads them.
      this.deps.state.settle();
      const match = this.#routers[kind].match(request.method, route);
      if (match.kind !== 'found') throw unknownRoute(kind, route, match.kind === 'method-not-allowed');
      const reply = match.handler({
        method: request.method,
        route,
        query: request.query,
        body: request.body.value,
        state: this.deps.state,
        params: match.params,
      });
      return this.#rotateCsrf(request, principal, reply);
    } catch (error) {
      if (!(error instanceof SimError)) throw error;
      return renderError(kind, error, route);
    }
  }

  // UniFi OS hands out a new CSRF token after each successful cookie-authenticated write.
  #rotateCsrf(request: DispatchRequest, principal: Principal, reply: Reply): Reply {
    if (this.deps.flavor !== 'unifi-os' || principal.kind !== 'session') return reply;
    if (!WRITES.has(request.method) || reply.status >= 300) return reply;
    const token = this.deps.sessions.rotateCsrf(principal.session);
    return { ...reply, headers: { ...reply.headers, 'X-Updated-CSRF-Token': token } };
  }
}
