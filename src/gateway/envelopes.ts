import { z } from 'zod';
import { GatewayRejectedError } from '../errors.js';

/** The controller code used when an answer is not the shape its API promises. */
export const INVALID_RESPONSE = 'InvalidResponse';

/** Raised when a 2xx body is not the envelope its API promises. */
export function invalidResponse(what: string, path: string): GatewayRejectedError {
  return new GatewayRejectedError(
    INVALID_RESPONSE,
    `the controller's answer to ${path} was not understood: ${what}`,
  );
}

const classicMeta = z.looseObject({ rc: z.string(), msg: z.string().optional() });
const classicEnvelope = z.looseObject({ meta: classicMeta, data: z.array(z.unknown()).optional() });

/** A classic `{meta:{rc,msg},data}` body: ok with its records, or the controller's error code. */
export type ClassicOutcome = { ok: true; data: unknown[] } | { ok: false; code: string };

/** Reads a classic envelope; undefined when the body is not one. `rc` is checked whatever the status. */
export function readClassicEnvelope(body: unknown): ClassicOutcome | undefined {
  const parsed = classicEnvelope.safeParse(body);
  if (!parsed.success) return undefined;
  const { meta, data = [] } = parsed.data;
  if (meta.rc === 'ok') return { ok: true, data };
  return { ok: false, code: classicErrorCode(meta.msg, data) ?? 'api.err.Unknown' };
}

/** Some validation failures carry the specific code in `data[0].meta`; prefer it, as go-unifi does. */
function classicErrorCode(msg: string | undefined, data: unknown[]): string | undefined {
  const inner = classicMeta.safeParse(
    typeof data[0] === 'object' && data[0] !== null && 'meta' in data[0] ? data[0].meta : undefined,
  );
  if (inner.success && inner.data.msg !== undefined && inner.data.rc !== 'ok') return inner.data.msg;
  return msg;
}

const integrationPage = z.looseObject({
  offset: z.number(),
  limit: z.number(),
  count: z.number(),
  totalCount: z.number(),
  data: z.array(z.unknown()),
});

/** One Integration API page. */
export type IntegrationPage = z.infer<typeof integrationPage>;

/** Reads an Integration page `{offset,limit,count,totalCount,data}`; undefined when it is not one. */
export function readIntegrationPage(body: unknown): IntegrationPage | undefined {
  const parsed = integrationPage.safeParse(body);
  return parsed.success ? parsed.data : undefined;
}

const siteManagerEnvelope = z.looseObject({
  data: z.unknown(),
  httpStatusCode: z.number().optional(),
  traceId: z.string().optional(),
  nextToken: z.string().nullable().optional(),
});

/** Reads a Site Manager success body `{data, httpStatusCode, traceId, nextToken?}`. */
export function readSiteManagerEnvelope(body: unknown): { data: unknown; nextToken?: string } | undefined {
  const parsed = siteManagerEnvelope.safeParse(body);
  if (!parsed.success || parsed.data.data === undefined) return undefined;
  const next = parsed.data.nextToken;
  return next ? { data: parsed.data.data, nextToken: next } : { data: parsed.data.data };
}

const siteManagerError = z.looseObject({
  code: z.string(),
  httpStatusCode: z.number(),
  message: z.string().optional(),
  traceId: z.string().optional(),
});

/** A Site Manager (or cloud connector) refusal `{code,httpStatusCode,message,traceId}`. */
export interface SiteManagerError {
  /** Lower-cased: the docs write `RATE_LIMIT`, captured bodies `rate_limit`. */
  code: string;
  status: number;
  message: string;
}

/** Reads a Site Manager error body; undefined when the body is another shape. */
export function readSiteManagerError(body: unknown): SiteManagerError | undefined {
  const parsed = siteManagerError.safeParse(body);
  if (!parsed.success) return undefined;
  return {
    code: parsed.data.code.toLowerCase(),
    status: parsed.data.httpStatusCode,
    message: parsed.data.message ?? '',
  };
}

const v2Error = z.looseObject({ code: z.string(), message: z.string().optional(), errorCode: z.number() });
const integrationError = z.looseObject({
  statusCode: z.number().optional(),
  statusName: z.string().optional(),
  code: z.string().optional(),
  message: z.string().optional(),
  requestPath: z.string().optional(),
});
const unifiOsError = z.looseObject({
  error: z.looseObject({
    code: z.union([z.number(), z.string()]).optional(),
    message: z.string().optional(),
  }),
});
const bareCodeError = z.looseObject({ code: z.string(), message: z.string().optional() });

/** What an error body says, whatever API shaped it. */
export interface ErrorBody {
  shape: 'classic' | 'v2' | 'integration' | 'site-manager' | 'unifi-os' | 'other';
  code?: string;
  message?: string;
}

/**
 * Reads the code and message of any known error body: classic envelope, v2
 * `{code,message,errorCode}`, Integration `{statusCode,statusName,code,message,…}`, Site Manager
 * `{code,httpStatusCode,message,traceId}`, the UniFi OS gateway's `{error:{code,message}}`, or a
 * bare `{code,message}` (the UniFi OS login errors).
 */
export function readErrorBody(body: unknown): ErrorBody | undefined {
  const classic = readClassicEnvelope(body);
  if (classic !== undefined) return classic.ok ? undefined : { shape: 'classic', code: classic.code };
  const sm = siteManagerError.safeParse(body);
  if (sm.success) return { shape: 'site-manager', code: sm.data.code, message: sm.data.message };
  const v2 = v2Error.safeParse(body);
  if (v2.success) return { shape: 'v2', code: v2.data.code, message: v2.data.message };
  const os = unifiOsError.safeParse(body);
  if (os.success) {
    return {
      shape: 'unifi-os',
      code: os.data.error.code === undefined ? undefined : String(os.data.error.code),
      message: os.data.error.message,
    };
  }
  const integration = integrationError.safeParse(body);
  if (integration.success && (integration.data.statusCode !== undefined || integration.data.statusName)) {
    return { shape: 'integration', code: integration.data.code, message: integration.data.message };
  }
  const bare = bareCodeError.safeParse(body);
  if (bare.success) return { shape: 'other', code: bare.data.code, message: bare.data.message };
  return undefined;
}
