import { Agent as HttpAgent, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Got } from 'got';
import { GatewayUnavailableError } from '../errors.js';
import type { Logger } from '../log.js';
import { hostOf } from './paths.js';
import { markRetryable, silenceError } from './retry.js';

/** HTTP methods the gateway sends. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** How the one HTTP client of a gateway is set up. */
export interface TransportOptions {
  /** Default per-request timeout, in ms. */
  timeoutMs: number;
  /** False accepts any certificate, for this client only. */
  verifyTls: boolean;
  /** PEM contents of a CA that signs the controller's certificate. */
  ca?: string | Buffer;
  logger: Logger;
}

/** One request, fully addressed. */
export interface OutgoingRequest {
  method: HttpMethod;
  url: string;
  headers: Record<string, string>;
  query?: Record<string, string>;
  /** Sent as JSON when defined. */
  body?: unknown;
  timeoutMs?: number;
  /** Attempt number, for the debug line. */
  attempt?: number;
}

/** A response of any status; JSON is decoded when the body is JSON. */
export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  contentType: string;
  text: string;
  /** The decoded body; undefined when the body is empty or not JSON (an HTML error page). */
  json: unknown;
}

/** The gateway's only HTTP client: one got instance, its agents, and one `send`. */
export interface Transport {
  /** Sends once (got's retry is off); network failures and timeouts become GatewayUnavailableError. */
  send(request: OutgoingRequest): Promise<RawResponse>;
  /** Destroys pooled sockets. */
  close(): void;
}

type GotModule = typeof import('got');
let gotModule: Promise<GotModule> | undefined;

// got (with its own HTTP/2 and retry machinery) is a tenth of the bot's start-up; it is loaded
// with the first controller request, which the Slack bot sends just after it starts listening.
function loadGot(): Promise<GotModule> {
  gotModule ??= import('got');
  return gotModule;
}

/** Builds the transport; TLS settings apply to this client only, never to the process. */
export function createTransport(options: TransportOptions): Transport {
  // Reads reuse sockets; the free-socket timeout (4 s) stays under common server idle timeouts
  // (Node's 5 s) so a pooled socket is not reset under us. Writes, which are never retried, always
  // open a fresh connection so a stale pooled socket can never fail one.
  const pooled = {
    http: new HttpAgent({ keepAlive: true, timeout: 4_000, maxSockets: 16, scheduling: 'lifo' }),
    https: new HttpsAgent({ keepAlive: true, timeout: 4_000, maxSockets: 16, scheduling: 'lifo' }),
  };
  const singleUse = {
    http: new HttpAgent({ keepAlive: false }),
    https: new HttpsAgent({ keepAlive: false }),
  };
  let ready: Promise<{ got: GotModule; client: Got }> | undefined;
  const clientOf = () => {
    ready ??= loadGot().then((got) => ({
      got,
      client: got.default.extend({
        retry: { limit: 0 },
        throwHttpErrors: false,
        followRedirect: false,
        responseType: 'text',
        https: {
          rejectUnauthorized: options.verifyTls,
          ...(options.ca === undefined ? {} : { certificateAuthority: options.ca }),
        },
        timeout: { request: options.timeoutMs },
        headers: { 'user-agent': 'netops-bot' },
      }),
    }));
    return ready;
  };
  const logger = options.logger;

  return {
    async send(request) {
      const { got, client } = await clientOf();
      const started = Date.now();
      const path = pathOf(request.url);
      const timeoutMs = request.timeoutMs ?? options.timeoutMs;
      try {
        const response = await client(request.url, {
          method: request.method,
          headers: request.headers,
          agent: request.method === 'GET' ? pooled : singleUse,
          ...(request.query && Object.keys(request.query).length > 0 ? { searchParams: request.query } : {}),
          ...(request.body === undefined ? {} : { json: request.body }),
          timeout: { request: timeoutMs },
        });
        const contentType = String(response.headers['content-type'] ?? '');
        const text = response.body;
        logger.debug(
          {
            method: request.method,
            path,
            status: response.statusCode,
            ms: Date.now() - started,
            attempt: request.attempt ?? 1,
          },
          'gateway request',
        );
        return {
          status: response.statusCode,
          headers: response.headers,
          contentType,
          text,
          json: decodeJson(contentType, text),
        };
      } catch (error) {
        const mapped = mapNetworkFailure(got, error, hostOf(request.url), timeoutMs);
        logger.debug(
          {
            method: request.method,
            path,
            failure: mapped.message,
            ms: Date.now() - started,
            attempt: request.attempt ?? 1,
          },
          'gateway request failed',
        );
        throw mapped;
      }
    },
    close() {
      for (const agent of [pooled.http, pooled.https, singleUse.http, singleUse.https]) agent.destroy();
    },
  };
}

/** Decodes a JSON body; HTML and other non-JSON bodies (a UniFi OS 401 or 502 page) give undefined. */
export function decodeJson(contentType: string, text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const looksJson = trimmed.startsWith('{') || trimmed.startsWith('[');
  // Some controllers omit the type or send text/plain; an HTML page never parses as JSON here.
  const maybeJson =
    /\bjson\b/i.test(contentType) || ((contentType === '' || /^text\/plain/i.test(contentType)) && looksJson);
  if (!maybeJson) return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    return undefined;
  }
}

const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_UNTRUSTED',
]);

/** Turns a got failure into GatewayUnavailableError naming the host, never the credentials. */
function mapNetworkFailure(
  got: GotModule,
  error: unknown,
  host: string,
  timeoutMs: number,
): GatewayUnavailableError {
  if (error instanceof got.TimeoutError) return silenceError(host, timeoutMs);
  const code = error instanceof got.RequestError ? error.code : undefined;
  if (code !== undefined && TLS_CODES.has(code)) {
    // Retrying cannot fix a certificate, so this one is not marked retryable.
    return new GatewayUnavailableError(
      `the TLS certificate of ${host} is not trusted (${code}); ` +
        'set GATEWAY_CA_FILE to its CA, or GATEWAY_VERIFY_TLS=false for a self-signed console',
    );
  }
  const what =
    code === 'ECONNREFUSED'
      ? 'refused the connection'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'could not be resolved'
        : code === 'EHOSTUNREACH' || code === 'ENETUNREACH'
          ? 'is not reachable on the network'
          : 'dropped the connection';
  return markRetryable(new GatewayUnavailableError(`${host} ${what}${code ? ` (${code})` : ''}`), {
    reason: code ?? 'network error',
  });
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}
