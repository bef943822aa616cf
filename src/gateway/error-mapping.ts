import {
  type BotError,
  GatewayAuthError,
  GatewayRejectedError,
  GatewayUnavailableError,
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
 */
export function mapHttpFailure(response: RawResponse, ctx: FailureContext): BotError {
  const { status } = response;
  const sm = readSiteManagerError(response.json);
  const body = readErrorBody(response.json);

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
    const detail = body?.code ? `: ${describeControllerCode(body.code, contextFor(ctx, body.message))}` : '';
    return new GatewayAuthError(
      `${ctx.host} denied access to ${ctx.path || 'this route'} (HTTP 403); the ${credentialName(ctx)} ` +
        `lacks permission${detail}`,
      403,
    );
  }
  if (status === 502 || status === 503 || status === 504) {
    const retryAfterMs = parseRetryAfter(response.headers['retry-after']);
    return markRetryable(
      new GatewayUnavailableError(
        `controller unreachable: ${ctx.host} answered HTTP ${status} (the Network application may be restarting)`,
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
    return new GatewayUnavailableError(`controller error: ${ctx.host} answered HTTP ${status}`, status);
  }
  const message = body?.message ? `: ${body.message}` : '';
  return new GatewayRejectedError(
    `HTTP_${status}`,
    `the controller refused ${ctx.method} ${ctx.path || '/'} (HTTP ${status})${message}`,
    status,
  );
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
      `${ctx.host} refused the session of GATEWAY_USERNAME even after a fresh login (HTTP ${status})`,
      status,
    );
  }
  if (ctx.api === 'site-manager' || ctx.cloud) {
    return new GatewayAuthError(
      `the Site Manager refused GATEWAY_API_KEY (HTTP ${status}): create a cloud API key at unifi.ui.com`,
      status,
    );
  }
  const hint =
    ctx.api === 'integration'
      ? 'create one in UniFi Network → Settings → Control Plane → Integrations'
      : 'on some consoles an API key does not reach the classic and v2 APIs; set GATEWAY_USERNAME and GATEWAY_PASSWORD instead';
  return new GatewayAuthError(
    `${ctx.host} refused GATEWAY_API_KEY on the ${API_NAMES[ctx.api]} API (HTTP ${status}): ${hint}`,
    status,
  );
}

function rateLimited(response: RawResponse, ctx: FailureContext): RateLimitedError {
  const retryAfterMs = parseRetryAfter(response.headers['retry-after']);
  const seconds = retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000);
  const who = ctx.api === 'site-manager' || ctx.cloud ? 'the Site Manager' : ctx.host;
  const error = new RateLimitedError(
    `${who} is rate-limiting requests${seconds === undefined ? '' : `; retry after ${seconds} s`}`,
    seconds,
  );
  return markRetryable(error, {
    reason: 'HTTP 429',
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });
}
