import {
  type ApiKind,
  classicErrorBody,
  htmlPage,
  INTEGRATION_CODES,
  type Reply,
  renderError,
  SimError,
} from './envelopes.js';
import type { FaultSpec } from './types.js';

interface PendingFault {
  spec: FaultSpec;
  remaining: number;
}

function matches(spec: FaultSpec, method: string, route: string): boolean {
  if (spec.method !== undefined && spec.method.toUpperCase() !== method.toUpperCase()) return false;
  if (spec.route === undefined) return true;
  if (typeof spec.route === 'string') return route.includes(spec.route);
  // A global or sticky RegExp keeps state between test() calls; use a stateless copy.
  return new RegExp(spec.route.source, spec.route.flags.replace(/[gy]/g, '')).test(route);
}

/** Injected faults, consumed in the order they were added. */
export class FaultQueue {
  #pending: PendingFault[] = [];

  /** Queues a fault; `times` defaults to 1 and may be Infinity. */
  add(spec: FaultSpec): void {
    const times = spec.times ?? 1;
    if (!(times > 0)) throw new RangeError('FaultSpec.times must be greater than 0');
    this.#pending.push({ spec, remaining: times });
  }

  /** Drops every queued fault. */
  clear(): void {
    this.#pending = [];
  }

  /** The first queued fault matching the request, consuming one use of it. */
  take(method: string, route: string): FaultSpec | undefined {
    const fault = this.#pending.find((pending) => matches(pending.spec, method, route));
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.#pending = this.#pending.filter((pending) => pending !== fault);
    return fault.spec;
  }
}

const RATE_LIMIT_CODES: Record<ApiKind, string> = {
  integration: INTEGRATION_CODES.rateLimit,
  'site-manager': 'RATE_LIMIT',
  'unifi-os': 'AUTHENTICATION_FAILED_LIMIT_REACHED',
  classic: 'api.err.TooManyRequests',
  v2: 'api.err.TooManyRequests',
};

const STATUS_CODES: Record<number, string> = {
  400: 'api.err.Invalid',
  401: 'api.err.LoginRequired',
  403: 'api.err.NoPermission',
  404: 'api.err.NotFound',
};

/** The answer to a `status` or `rate-limit` fault, shaped for the API family of the route. */
export function faultReply(
  fault: Extract<FaultSpec, { kind: 'status' | 'rate-limit' }>,
  kind: ApiKind,
  route: string,
): Reply {
  if (fault.kind === 'rate-limit') {
    const seconds = fault.retryAfterSeconds;
    const error = new SimError(429, RATE_LIMIT_CODES[kind], `rate limit exceeded, retry after ${seconds}s`);
    return { ...renderError(kind, error, route), headers: { 'Retry-After': String(seconds) } };
  }
  if (fault.body !== undefined) {
    return typeof fault.body === 'string'
      ? {
          status: fault.status,
          text: fault.body,
          contentType: fault.contentType ?? 'text/html; charset=utf-8',
        }
      : { status: fault.status, body: fault.body };
  }
  // UniFi OS answers 502/503 from its proxy with an HTML page while the Network app restarts.
  if (fault.status === 502 || fault.status === 503) {
    return htmlPage(fault.status, fault.status === 502 ? '502 Bad Gateway' : '503 Service Unavailable');
  }
  const code =
    STATUS_CODES[fault.status] ?? (fault.status >= 500 ? 'api.err.ServerError' : 'api.err.Invalid');
  return { status: fault.status, body: classicErrorBody(code) };
}
