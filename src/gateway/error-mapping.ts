import {
  type BotError,
  GatewayAuthError,
  GatewayRejectedError,
  GatewayUnavailableError,
  NoControllerError,
  NotSupportedError,
  RateLimitedError,
  ResourceNotFoundError,
} from '../errors.js';
import { describeControllerCode, shortCode } from './controller-codes.js';
import { readErrorBody, readSiteManagerError } from './envelopes.js';
import { describePath } from './paths.js';
import { markRetryable, parseRetryAfter } from './retry.js';
import type { RawResponse } from './transport.js';
import type { ApiKind } from './types.js';

/** Which API a request went to; `site-manager` is the cloud's own `/v1/…` (hosts). */
export type ApiTarget = ApiKind | 'site-manager';

/** What the mapping may say about a failed request. Credentials are named, never included. */
export interface FailureContext {
  api: ApiTarget;
  method: string;
  /** Classic site name, when the request is under a site. */
  site?: string;
  /** Path under the API's root (`rest/networkconf/{id}`), for naming the missing resource. */
  path: string;
  host: string;
  credential: 'api-key' | 'session';
  cloud: boolean;
  consoleId?: string;
  /** The request body, for sentences that name a value (a VLAN id). */
  body?: unknown;
  /** GATEWAY_URL as shown to people (no credentials), for naming where no controller answered. */
  baseUrl?: string;
  /** The absolute path the request went to (`/proxy/network/api/s/default/…`). */
  requestPath?: string;
}

const API_NAMES: Record<ApiTarget, string> = {
  classic: 'classic',
  v2: 'v2',
  integration: 'Integration',
  'site-manager': 'Site Manager',
};

const LOCAL_API_HINT = 'this needs the local API: set GATEWAY_API_TYPE=local and GATEWAY_URL';

/**
 * The one place where a controller answer becomes an error. Callers have already handled a
 * session's 401 with one fresh login; what reaches here is final.
 *
 * Messages state facts only: the front ends add the kind of failure ("controller unreachable"),
 * the HTTP status of a GatewayAuthError, the code of a GatewayRejectedError and the wait of a
 * RateLimitedError from the error's fields, so none of those is written into a message here.
 */
export function mapHttpFailure(response: RawResponse, ctx: FailureContext): BotError {
  const { status } = response;
  const sm = readSiteManagerError(response.json);
  const body = readErrorBody(response.json);
  const elsewhere = ctx.cloud ? undefined : noControllerAnswer(response, ctx);
  if (elsewhere !== undefined) return elsewhere;

  if (ctx.cloud && ctx.api !== 'site-manager' && sm !== undefined && (status === 403 || status === 404)) {
    if (ctx.consoleId !== undefined && sm.message.includes(ctx.consoleId)) {
      return new ResourceNotFoundError(
        'console',
        ctx.consoleId,
        `console ${ctx.consoleId} is not reachable through the cloud connector (${sm.code}): check GATEWAY_CONSOLE_ID`,
      );
    }
    return new NotSupportedError(
      `the cloud connector refused the ${API_NAMES[ctx.api]} API route ${ctx.path} (${sm.code}): ${LOCAL_API_HINT}`,
    );
  }
  if (status === 429 || sm?.code === 'rate_limit') return rateLimited(response, ctx);
  if (status === 401 || sm?.code === 'unauthorized') return credentialRefused(ctx, status);
  if (status === 403) {
    const route = ctx.path || 'this route';
    if (body?.code) {
      const sentence = describeControllerCode(body.code, contextFor(ctx, body.message));
      return new GatewayAuthError(`${ctx.host} denied access to ${route}: ${sentence} (${body.code})`, 403);
    }
    return new GatewayAuthError(
      `${ctx.host} denied access to ${route}; the ${credentialName(ctx)} lacks permission`,
      403,
    );
  }
  if (status === 502 || status === 503 || status === 504) {
    const retryAfterMs = parseRetryAfter(response.headers['retry-after']);
    return markRetryable(
      new GatewayUnavailableError(
        `${ctx.host} answered HTTP ${status} (the Network application may be restarting)`,
        status,
      ),
      { reason: `HTTP ${status}`, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) },
    );
  }
  if (body?.code !== undefined && isSiteContextCode(body.code)) {
    return fromControllerCode(body.code, status, ctx, body.message);
  }
  if (status === 404) return notFound(ctx);
  if (body?.code !== undefined) return fromControllerCode(body.code, status, ctx, body.message);
  if (status >= 500) {
    return new GatewayUnavailableError(
      `${ctx.host} answered HTTP ${status} (an internal error of the Network application)`,
      status,
    );
  }
  const message = body?.message ? `: ${body.message}` : '';
  return new GatewayRejectedError(`HTTP_${status}`, `${ctx.method} ${ctx.path || '/'}${message}`, status);
}

/**
 * A controller code (a classic `rc:error`, even on HTTP 200, or a v2/Integration body code) as an
 * error: unknown ids and unknown stat paths are ResourceNotFoundError, anything else is
 * GatewayRejectedError carrying the code verbatim and a sentence.
 */
export function fromControllerCode(
  code: string,
  status: number | undefined,
  ctx: FailureContext,
  message?: string,
): BotError {
  const short = shortCode(code);
  if (short === 'IdInvalid' || short === 'NotFound' || /(^|[.-])not-found$/.test(short)) return notFound(ctx);
  if (short === 'LoginRequired' && ctx.credential === 'api-key') return credentialRefused(ctx, status ?? 401);
  return new GatewayRejectedError(code, describeControllerCode(code, contextFor(ctx, message)), status);
}

function isSiteContextCode(code: string): boolean {
  return shortCode(code) === 'NoSiteContext';
}

function contextFor(ctx: FailureContext, message: string | undefined) {
  const target = describePath(ctx.path);
  return { site: ctx.site, resource: target.resource, id: target.id, body: ctx.body, message };
}

function notFound(ctx: FailureContext): ResourceNotFoundError {
  const { resource, id } = describePath(ctx.path);
  const where = ctx.site ? ` on site ${ctx.site}` : '';
  return new ResourceNotFoundError(resource, id, `${resource}${id ? ` ${id}` : ''} not found${where}`);
}

function credentialName(ctx: FailureContext): string {
  if (ctx.credential === 'session') return 'account in GATEWAY_USERNAME';
  return ctx.cloud ? 'cloud API key in GATEWAY_API_KEY' : 'API key in GATEWAY_API_KEY';
}

/** 401: says which credential was refused and what to check, never its value. */
export function credentialRefused(ctx: FailureContext, status: number): GatewayAuthError {
  if (ctx.credential === 'session') {
    return new GatewayAuthError(
      `${ctx.host} refused the session of GATEWAY_USERNAME even after a fresh login`,
      status,
    );
  }
  if (ctx.api === 'site-manager' || ctx.cloud) {
    return new GatewayAuthError(
      'the Site Manager refused GATEWAY_API_KEY: create a cloud API key at unifi.ui.com',
      status,
    );
  }
  const hint =
    ctx.api === 'integration'
      ? 'create one in UniFi Network → Settings → Control Plane → Integrations'
      : 'on some consoles an API key does not reach the classic and v2 APIs; set GATEWAY_USERNAME and GATEWAY_PASSWORD instead';
  return new GatewayAuthError(
    `${ctx.host} refused GATEWAY_API_KEY on the ${API_NAMES[ctx.api]} API: ${hint}`,
    status,
  );
}

function rateLimited(response: RawResponse, ctx: FailureContext): RateLimitedError {
  const retryAfterMs = parseRetryAfter(response.headers['retry-after']);
  const seconds = retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000);
  const who = ctx.api === 'site-manager' || ctx.cloud ? 'the Site Manager' : ctx.host;
  const error = new RateLimitedError(`${who} is rate-limiting requests`, seconds);
  return markRetryable(error, {
    reason: 'HTTP 429',
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });
}

const API_PATHS: Record<ApiTarget, string> = {
  classic: '',
  v2: ' for the v2 API',
  integration: ' for the Integration API',
  'site-manager': '',
};

/**
 * An answer that no UniFi Network controller gives on its API routes: a redirect, or a 404/405
 * or success whose body is a web page, plain text or JSON of no controller shape. A controller
 * answers these routes with its JSON envelopes, even for an unknown path (`api.err.NotFound`);
 * a web server, a proxy's default site or the wrong port does not. Without this, such a server
 * reads as "networkconf not found". Undefined when the answer may well be a controller's.
 */
export function noControllerAnswer(
  response: RawResponse,
  ctx: Pick<FailureContext, 'api' | 'method' | 'path' | 'host' | 'baseUrl' | 'requestPath'>,
): NoControllerError | undefined {
  const { status } = response;
  const url = ctx.baseUrl ?? ctx.host;
  const request = `${ctx.method} ${ctx.requestPath ?? ctx.path}`;
  const api = API_PATHS[ctx.api];
  if (status >= 300 && status < 400) {
    const location = headerText(response.headers.location);
    const to = location ? ` to ${location}` : '';
    return new NoControllerError(
      url,
      `no UniFi Network controller at ${url}${api}: ${request} is redirected${to} (HTTP ${status}); set GATEWAY_URL to the address the controller answers on`,
      status,
    );
  }
  const page = status === 404 || status === 405 || (status >= 200 && status < 300);
  // A parsed body is never blank; `text` is decoded only when read (json-body.ts).
  if (!page || (response.json === undefined && response.text.trim() === '')) return undefined;
  let body: string;
  if (response.json === undefined) {
    // JSON cut short (a dropped connection, a proxy's size limit) is still the controller's answer.
    if (/\bjson\b/i.test(response.contentType) && /^\s*[[{]/.test(response.text)) return undefined;
    body = /html/i.test(response.contentType) || /^\s*</.test(response.text) ? 'a web page' : 'plain text';
  } else if (status >= 400 && readErrorBody(response.json) === undefined) {
    body = 'JSON of no controller shape';
  } else {
    return undefined;
  }
  const hint =
    ctx.api === 'v2' || ctx.api === 'integration'
      ? '; check GATEWAY_URL (an older Network application lacks this API)'
      : '; check GATEWAY_URL (a UniFi OS console: https://<console>; a self-hosted controller: https://<host>:8443)';
  return new NoControllerError(
    url,
    `no UniFi Network controller at ${url}${api}: ${request} answered HTTP ${status} with ${body}${hint}`,
    status,
  );
}

function headerText(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}
