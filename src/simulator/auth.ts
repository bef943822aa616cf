import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { SimulatorFlavor } from './types.js';

/** A logged-in session (cookie-authenticated). */
export interface Session {
  /** The cookie value. */
  token: string;
  /** The CSRF token writes must carry; replaced after every successful write (UniFi OS). */
  csrf: string;
}

/** Who a request is, as far as auth goes. */
export type Principal =
  | { kind: 'api-key' }
  | { kind: 'session'; session: Session }
  | { kind: 'anonymous'; reason: 'missing' | 'bad-key' | 'no-session' };

/** The session cookie each flavor sets. */
export function cookieName(flavor: SimulatorFlavor): string {
  return flavor === 'unifi-os' ? 'TOKEN' : 'unifises';
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Sessions, CSRF tokens and the login-attempt window. */
export class SessionStore {
  readonly #sessions = new Map<string, Session>();
  #loginAttempts: number[] = [];

  /** Opens a session. UniFi OS tokens look like JWTs carrying the CSRF token, as real ones do. */
  open(flavor: SimulatorFlavor, username: string): Session {
    const csrf = randomUUID();
    const token =
      flavor === 'unifi-os'
        ? [
            base64url({ alg: 'HS256', typ: 'JWT' }),
            base64url({
              userId: randomUUID(),
              username,
              csrfToken: csrf,
              iat: Math.floor(Date.now() / 1000),
            }),
            randomBytes(32).toString('base64url'),
          ].join('.')
        : randomBytes(24).toString('hex');
    const session = { token, csrf };
    this.#sessions.set(token, session);
    return session;
  }

  /** Ends one session. */
  close(token: string): void {
    this.#sessions.delete(token);
  }

  /** Ends every session (the console restarted, or the tokens expired). */
  expireAll(): void {
    this.#sessions.clear();
  }

  /** A new CSRF token for the session; the old one stops working. */
  rotateCsrf(session: Session): string {
    session.csrf = randomUUID();
    return session.csrf;
  }

  /** Who sent these headers: a valid API key wins; a wrong key is refused even with a cookie. */
  identify(headers: IncomingHttpHeaders, flavor: SimulatorFlavor, apiKey: string): Principal {
    const key = headerValue(headers['x-api-key']);
    if (key !== undefined && key !== '')
      return key === apiKey ? { kind: 'api-key' } : { kind: 'anonymous', reason: 'bad-key' };
    const token = parseCookies(headerValue(headers.cookie) ?? '')[cookieName(flavor)];
    if (token === undefined) return { kind: 'anonymous', reason: 'missing' };
    const session = this.#sessions.get(token);
    return session ? { kind: 'session', session } : { kind: 'anonymous', reason: 'no-session' };
  }

  /**
   * Records a login attempt unless the rolling 60 s window is full; then returns the seconds to
   * wait (the console answers 429 with Retry-After).
   */
  admitLogin(limit: number, now = Date.now()): { admitted: true } | { admitted: false; retryAfter: number } {
    this.#loginAttempts = this.#loginAttempts.filter((at) => now - at < 60_000);
    const oldest = this.#loginAttempts[0];
    if (this.#loginAttempts.length >= limit && oldest !== undefined) {
      return { admitted: false, retryAfter: Math.max(1, Math.ceil((oldest + 60_000 - now) / 1000)) };
    }
    this.#loginAttempts.push(now);
    return { admitted: true };
  }
}

/** The first value of a header that may repeat. */
export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function parseCookies(header: string): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) cookies[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return cookies;
}
