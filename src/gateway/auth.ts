import type { IncomingHttpHeaders } from 'node:http';
import { GatewayAuthError, GatewayUnavailableError, RateLimitedError } from '../errors.js';
import type { Logger } from '../log.js';
import { readErrorBody } from './envelopes.js';
import { noControllerAnswer } from './error-mapping.js';
import { type Deployment, displayUrl, joinUrl } from './paths.js';
import { markRetryable, parseRetryAfter } from './retry.js';
import type { RawResponse, Transport } from './transport.js';

/** How the gateway proves who it is. */
export type Credentials =
  | { kind: 'api-key'; apiKey: string }
  | { kind: 'session'; username: string; password: string };

/** Headers to send with one request, and the session they belong to. */
export interface AuthTicket {
  headers: Record<string, string>;
  /** Which login produced these headers (0 with an API key); a 401 renews only if it is still current. */
  generation: number;
}

/** What the authenticator needs from the rest of the gateway. */
export interface AuthOptions {
  credentials: Credentials;
  transport: Transport;
  /** The controller's base URL (logins are outside the Network prefix). */
  url: string;
  host: string;
  timeoutMs: number;
  deployment: () => Promise<Deployment>;
  logger: Logger;
}

const CSRF_HEADER = 'X-CSRF-Token';

/**
 * API key or session auth. Sessions log in lazily and once (concurrent first requests share one
 * login), keep the newest CSRF token the controller hands out, and log in again only when a
 * request with the current session is refused.
 */
export class Authenticator {
  private readonly cookies = new Map<string, string>();
  private csrf: string | undefined;
  private generation = 0;
  private session: Promise<void> | undefined;

  constructor(private readonly options: AuthOptions) {}

  /** True for username/password sessions (they may expire and be renewed). */
  get usesSession(): boolean {
    return this.options.credentials.kind === 'session';
  }

  /** Headers for the next request, logging in first if there is no session. */
  async ticket(): Promise<AuthTicket> {
    const credentials = this.options.credentials;
    if (credentials.kind === 'api-key') {
      return { headers: { 'X-API-KEY': credentials.apiKey }, generation: 0 };
    }
    await this.ensureSession();
    const headers: Record<string, string> = {};
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    if (cookie !== '') headers.cookie = cookie;
    if (this.csrf !== undefined) headers[CSRF_HEADER] = this.csrf;
    return { headers, generation: this.generation };
  }

  /** Follows CSRF rotation and refreshed cookies on any response of the current session. */
  observe(headers: IncomingHttpHeaders, generation: number): void {
    if (!this.usesSession || generation !== this.generation) return;
    this.absorbCookies(headers);
    const rotated = headerValue(headers['x-updated-csrf-token']) ?? headerValue(headers['x-csrf-token']);
    if (rotated !== undefined) this.csrf = rotated;
  }

  /**
   * Logs in again after a 401 on a request made with `generation`. If another request already
   * renewed that session, this waits for (or reuses) the newer one instead of logging in twice.
   */
  async renew(generation: number): Promise<void> {
    if (generation === this.generation) this.session = undefined;
    await this.ensureSession();
  }

  private ensureSession(): Promise<void> {
    if (this.session === undefined) {
      const session = this.login();
      this.session = session;
      session.catch(() => {
        if (this.session === session) this.session = undefined;
      });
    }
    return this.session;
  }

  private async login(): Promise<void> {
    const credentials = this.options.credentials;
    if (credentials.kind !== 'session') return;
    const deployment = await this.options.deployment();
    const route = deployment === 'unifi-os' ? '/api/auth/login' : '/api/login';
    // A new generation first, so answers still in flight for the old session are not absorbed.
    this.generation += 1;
    this.cookies.clear();
    this.csrf = undefined;
    const response = await this.options.transport.send({
      method: 'POST',
      url: joinUrl(this.options.url, route),
      headers: { accept: 'application/json' },
      body: { username: credentials.username, password: credentials.password, rememberMe: true },
      timeoutMs: this.options.timeoutMs,
    });
    this.checkLogin(response, route);
    this.absorbCookies(response.headers);
    const sessionCookie = deployment === 'unifi-os' ? 'TOKEN' : 'unifises';
    if (!this.cookies.has(sessionCookie) && this.cookies.size === 0) {
      throw new GatewayAuthError(
        `login to ${this.options.host} returned no session cookie (${sessionCookie}); ` +
          'check GATEWAY_URL points at the controller',
      );
    }
    this.csrf =
      headerValue(response.headers['x-updated-csrf-token']) ??
      headerValue(response.headers['x-csrf-token']) ??
      this.cookies.get('csrf_token') ??
      csrfFromJwt(this.cookies.get('TOKEN'));
    this.options.logger.info({ deployment, route }, 'logged in to the controller');
  }

  private checkLogin(response: RawResponse, route: string): void {
    const { status } = response;
    const host = this.options.host;
    const elsewhere = noControllerAnswer(response, {
      api: 'classic',
      method: 'POST',
      path: route,
      requestPath: route,
      host,
      baseUrl: displayUrl(this.options.url),
    });
    if (elsewhere !== undefined) throw elsewhere;
    const body = readErrorBody(response.json);
    if (status >= 200 && status < 300 && body === undefined) return;
    if (status === 429) {
      const retryAfterMs = parseRetryAfter(response.headers['retry-after']);
      const seconds = retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000);
      // Not retryable: hammering a login limit only extends the lockout.
      throw new RateLimitedError(`${host} refused the login: too many login attempts`, seconds);
    }
    if (status === 502 || status === 503 || status === 504) {
      throw markRetryable(
        new GatewayUnavailableError(`${host} answered HTTP ${status} to the login`, status),
        { reason: `login HTTP ${status}` },
      );
    }
    if (status >= 500) {
      throw new GatewayUnavailableError(
        `${host} answered HTTP ${status} to the login (an internal error of the controller)`,
        status,
      );
    }
    if (status === 499 || /2fa|mfa/i.test(body?.code ?? '')) {
      throw new GatewayAuthError(
        `login to ${host} needs multi-factor authentication, which the bot cannot supply: ` +
          'use a local admin without MFA, or an API key (GATEWAY_API_KEY)',
        status,
      );
    }
    throw new GatewayAuthError(
      `login to ${host} (${route}) was refused: check GATEWAY_USERNAME and GATEWAY_PASSWORD`,
      status,
    );
  }

  private absorbCookies(headers: IncomingHttpHeaders): void {
    for (const line of headers['set-cookie'] ?? []) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age\s*=\s*0\s*$/i.test(a));
      if (value === '' || expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}

/** UniFi OS also carries the CSRF token in the TOKEN JWT payload (`csrfToken`), as Art-of-WiFi reads it. */
function csrfFromJwt(token: string | undefined): string | undefined {
  const payload = token?.split('.')[1];
  if (payload === undefined) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    if (typeof claims === 'object' && claims !== null && 'csrfToken' in claims) {
      return typeof claims.csrfToken === 'string' ? claims.csrfToken : undefined;
    }
  } catch {
    // Not a JWT: no token to take from it.
  }
  return undefined;
}
