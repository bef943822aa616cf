import { randomBytes, randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/**
 * Integration error codes. Only `api.authentication.missing-credentials`, `api.rate-limit.exceeded`,
 * `api.resource-not-found` and `api.network.not-found` are documented or observed; the others
 * follow the same `api.<area>.<kebab>` pattern and are this simulator's choice.
 */
export const INTEGRATION_CODES = {
  validation: 'api.request.argument-validation-error',
  malformedBody: 'api.request.malformed-body',
  notFound: 'api.resource-not-found',
  networkNotFound: 'api.network.not-found',
  methodNotAllowed: 'api.request.method-not-allowed',
  missingCredentials: 'api.authentication.missing-credentials',
  rateLimit: 'api.rate-limit.exceeded',
} as const;

/** Which API family answers a request; each has its own success and error bodies. */
export type ApiKind = 'classic' | 'v2' | 'integration' | 'site-manager' | 'unifi-os';

/** What a handler answers: a status, a JSON body or a text body, and extra headers. */
export interface Reply {
  status: number;
  /** Serialised as JSON. Omitted (with no `text`) → an empty body. */
  body?: unknown;
  /** A raw text body (HTML pages), sent instead of `body`. */
  text?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

/** Writes a reply (JSON body, raw text or nothing); a closed response is left alone. */
export function send(res: ServerResponse, reply: Reply): void {
  if (res.destroyed || res.writableEnded) return;
  const headers: Record<string, string> = { ...reply.headers };
  let payload: string | undefined;
  if (reply.text !== undefined) {
    payload = reply.text;
    headers['Content-Type'] = reply.contentType ?? 'text/plain; charset=utf-8';
  } else if (reply.body !== undefined) {
    payload = JSON.stringify(reply.body);
    headers['Content-Type'] = 'application/json; charset=utf-8';
  }
  res.writeHead(reply.status, headers);
  res.end(payload);
}

/**
 * An error a handler throws on purpose. It carries the API's own code (`api.err.VlanUsed`,
 * `api.resource-not-found`, `NOT_FOUND`…); the dispatcher renders it in the right family's shape.
 */
export class SimError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Extra keys merged into a classic error's `meta` (e.g. `validationError`). */
    readonly meta?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'SimError';
  }
}

const STATUS_NAMES: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
};

/** The upper-snake HTTP status name the Integration and Site Manager bodies use. */
export function statusName(status: number): string {
  return STATUS_NAMES[status] ?? (status >= 500 ? 'SERVER_ERROR' : 'BAD_REQUEST');
}

/** A classic success: `{meta:{rc:"ok"},data:[…]}` (data is always an array). */
export function classicOk(data: readonly unknown[], status = 200): Reply {
  return { status, body: { meta: { rc: 'ok' }, data } };
}

/** The classic error body `{meta:{rc:"error",msg},data:[]}`. */
export function classicErrorBody(code: string, meta: Record<string, unknown> = {}): unknown {
  return { meta: { rc: 'error', msg: code, ...meta }, data: [] };
}

/** A bare JSON answer (v2 and Integration successes). */
export function json(body: unknown, status = 200): Reply {
  return { status, body };
}

/** An Integration page `{offset,limit,count,totalCount,data}`. */
export function integrationPage(items: readonly unknown[], offset: number, limit: number): Reply {
  const data = items.slice(offset, offset + limit);
  return json({ offset, limit, count: data.length, totalCount: items.length, data });
}

/** A fresh Site Manager trace id (32 hex digits, like the real ones). */
export function traceId(): string {
  return randomBytes(16).toString('hex');
}

/** A Site Manager success `{data,httpStatusCode,traceId}`. */
export function siteManagerOk(data: unknown): Reply {
  return json({ data, httpStatusCode: 200, traceId: traceId() });
}

/** A small HTML page, the way UniFi OS answers its own routes and gateway failures. */
export function htmlPage(status: number, title: string): Reply {
  return {
    status,
    contentType: 'text/html; charset=utf-8',
    text: `<!DOCTYPE html><html><head><title>${title}</title></head><body><h1>${title}</h1></body></html>\n`,
  };
}

/** Renders a SimError in the body shape of the API family that raised it. */
export function renderError(kind: ApiKind, error: SimError, requestPath: string): Reply {
  const { status, code, message } = error;
  switch (kind) {
    case 'classic':
      return { status, body: classicErrorBody(code, error.meta) };
    case 'v2':
      return { status, body: { code, message, errorCode: status } };
    case 'integration':
      return {
        status,
        body: {
          statusCode: status,
          statusName: statusName(status),
          code,
          message,
          timestamp: new Date().toISOString(),
          requestPath,
          requestId: randomUUID(),
        },
      };
    case 'site-manager':
      return { status, body: { code, httpStatusCode: status, message, traceId: traceId() } };
    case 'unifi-os':
      return { status, body: { code, message } };
  }
}
