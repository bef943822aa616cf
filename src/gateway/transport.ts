import { Agent as HttpAgent, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Got, Request as GotRequest } from 'got';
import { GatewayRejectedError, GatewayUnavailableError } from '../errors.js';
import type { Logger } from '../log.js';
import { decodeBody } from './json-body.js';
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
  /** [32 MiB] The largest body read, counted after decompression; a longer one is refused, unread. */
  maxResponseBytes?: number;
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
  const limit = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const buffers = new ReceiveBuffers(limit);

  return {
    async send(request) {
      const { got, client } = await clientOf();
      const started = Date.now();
      const path = pathOf(request.url);
      const timeoutMs = request.timeoutMs ?? options.timeoutMs;
      try {
        // Streamed, so the body is counted as it inflates and never held past the limit.
        const stream = client.stream(request.url, {
          method: request.method,
          headers: request.headers,
          agent: request.method === 'GET' ? pooled : singleUse,
          ...(request.query && Object.keys(request.query).length > 0 ? { searchParams: request.query } : {}),
          ...(request.body === undefined ? {} : { json: request.body }),
          timeout: { request: timeoutMs },
        });
        // got's stream waits for a request body unless one was given (or the method takes none).
        if (request.body === undefined && request.method !== 'GET') stream.end();
        const { response, body, sink } = await receive(stream, limit, path, buffers);
        const contentType = String(response.headers['content-type'] ?? '');
        // Text and JSON as a UTF-8 decode gives them, cheaper on large answers (json-body.ts).
        const decoded = decodeBody(body, contentType);
        // Decoded: nothing refers to the bytes any more, so the next answer may reuse them.
        if (sink.backing !== undefined) buffers.give(sink.backing);
        logger.debug(attemptLog(request, path, started, { status: response.statusCode }), 'gateway request');
        return {
          status: response.statusCode,
          headers: response.headers,
          contentType,
          get text() {
            return decoded.text;
          },
          json: decoded.json,
        };
      } catch (error) {
        if (error instanceof ResponseTooLargeError) {
          logger.warn(
            { method: request.method, path, status: error.status, limitBytes: limit },
            'controller answer larger than GATEWAY_MAX_RESPONSE_BYTES; stopped reading it',
          );
          throw error;
        }
        const mapped = mapNetworkFailure(got, error, hostOf(request.url), timeoutMs);
        logger.debug(
          attemptLog(request, path, started, { failure: mapped.message }),
          'gateway request failed',
        );
        throw mapped;
      }
    },
    close() {
      buffers.clear();
      for (const agent of [pooled.http, pooled.https, singleUse.http, singleUse.https]) agent.destroy();
    },
  };
}

/** GATEWAY_MAX_RESPONSE_BYTES unset: 32 MiB (see GATEWAY_DEFAULTS). */
const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/**
 * An answer longer than the limit once decompressed (a gzip bomb: 0.7 MB that inflates to 700 MB).
 * Not retryable: asking again fetches the same answer. Its controller code is INVALID_RESPONSE's, so
 * a write answered this way is reported as "may or may not have been made".
 */
export class ResponseTooLargeError extends GatewayRejectedError {
  constructor(path: string, limit: number, status: number) {
    super(
      'InvalidResponse',
      `the controller's answer to ${path} was larger than GATEWAY_MAX_RESPONSE_BYTES (${limit} bytes, ` +
        `${formatBytes(limit)}, counted after decompression); the bot stopped reading it`,
      status,
    );
  }
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;
  return `${Math.round((bytes / 1024) * 10) / 10} KiB`;
}

/**
 * One receive buffer kept between answers. A large answer copied into freshly allocated memory pays
 * a page fault per 4 KiB the first time each page is written: on stat/sta of 50,000 clients (44 MB)
 * that was ~250 ms of CPU on an idle machine and up to 600 ms on a loaded one, against ~30 ms for
 * the same copy into memory already in use (docs/performance.md, "Bandwidth at 50,000 clients"). So
 * the largest buffer of a recent answer is kept, at most `limit` bytes, and dropped after a minute
 * without a large answer; the decode (json-body.ts) keeps no reference to it.
 */
export class ReceiveBuffers {
  #spare: Buffer | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly limit: number,
    private readonly idleMs = 60_000,
  ) {}

  /** A buffer of at least `size` bytes: the spare one when it is large enough, else a new one. */
  take(size: number): Buffer {
    const spare = this.#spare;
    if (spare !== undefined && spare.length >= size) {
      this.#spare = undefined;
      return spare;
    }
    // A little headroom, so that an answer that grows by a few records still fits next time.
    return Buffer.allocUnsafe(size >= KEEP_FROM_BYTES ? Math.min(this.limit, Math.ceil(size * 1.125)) : size);
  }

  /** Hands a buffer back once nothing refers to its bytes; the larger of it and the spare is kept. */
  give(buffer: Buffer): void {
    if (buffer.length < KEEP_FROM_BYTES || buffer.length > this.limit) return;
    if (this.#spare !== undefined && this.#spare.length >= buffer.length) return;
    this.#spare = buffer;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.clear(), this.idleMs);
    this.#timer.unref();
  }

  /** The bytes held between answers (0 or the spare buffer's length). */
  get held(): number {
    return this.#spare?.length ?? 0;
  }

  clear(): void {
    clearTimeout(this.#timer);
    this.#spare = undefined;
  }
}

// Smaller answers are cheap to allocate; keeping a buffer pays only for large ones.
const KEEP_FROM_BYTES = 1024 * 1024;

/**
 * Where a streamed answer's bytes go. With a `Content-Length` (and no content encoding, so the
 * length is that of the bytes read) one buffer of that size is taken up front and every chunk is
 * copied into it as it arrives: no list of chunks, no `Buffer.concat` at the end. Without one (a
 * chunked or compressed answer), or once more bytes arrive than were declared (a lying length), the
 * chunks are kept and copied once at the end. The limit is applied to the bytes received, never to
 * the declared length, and a declared length over the limit is refused before a byte is read.
 * Exported for its tests.
 */
export class BodySink {
  private chunks: Buffer[] = [];
  private presized: Buffer | undefined;
  private declared = 0;
  /** The memory the body was copied into, to hand back once it is decoded. */
  backing: Buffer | undefined;
  size = 0;

  constructor(private readonly buffers: ReceiveBuffers) {}

  /** Takes the declared length's buffer when it can be trusted to bound what arrives. */
  presize(declared: number, limit: number): void {
    if (!Number.isSafeInteger(declared) || declared <= 0 || declared > limit || this.size > 0) return;
    this.declared = declared;
    this.presized = this.buffers.take(declared);
  }

  add(chunk: Buffer): void {
    const presized = this.presized;
    if (presized !== undefined && this.size + chunk.length <= this.declared) {
      chunk.copy(presized, this.size);
    } else {
      if (presized !== undefined) {
        // More than declared: what was copied so far becomes the first chunk.
        this.chunks.push(Buffer.from(presized.subarray(0, this.size)));
        this.buffers.give(presized);
        this.presized = undefined;
      }
      this.chunks.push(chunk);
    }
    this.size += chunk.length;
  }

  /** The body; shorter than declared (a lying length) gives the bytes that came. */
  body(): Buffer {
    if (this.presized !== undefined) {
      this.backing = this.presized;
      this.presized = undefined;
      return this.backing.subarray(0, this.size);
    }
    const [only] = this.chunks;
    if (this.chunks.length === 1 && only !== undefined) return only;
    this.backing = this.buffers.take(this.size);
    let offset = 0;
    for (const chunk of this.chunks) offset += chunk.copy(this.backing, offset);
    this.chunks = [];
    return this.backing.subarray(0, this.size);
  }

  drop(): void {
    this.chunks = [];
    if (this.presized !== undefined) this.buffers.give(this.presized);
    this.presized = undefined;
  }
}

/**
 * Reads a streamed answer (decompressed by got) into memory up to `limit` bytes. One byte more and
 * the request is destroyed: at most `limit` bytes are ever held, whatever the body inflates to.
 */
function receive(
  stream: GotRequest,
  limit: number,
  path: string,
  buffers: ReceiveBuffers,
): Promise<{ response: NonNullable<GotRequest['response']>; body: Buffer; sink: BodySink }> {
  return new Promise((resolve, reject) => {
    const sink = new BodySink(buffers);
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      sink.drop();
      reject(error);
    };
    stream.on('response', (response: NonNullable<GotRequest['response']>) => {
      // A declared length over the limit (uncompressed) is refused before a byte is read.
      const declared = Number(response.headers['content-length']);
      if (response.headers['content-encoding'] === undefined) {
        if (declared > limit) {
          fail(new ResponseTooLargeError(path, limit, response.statusCode));
          stream.destroy();
          return;
        }
        sink.presize(declared, limit);
      }
    });
    stream.on('data', (chunk: Buffer) => {
      if (settled) return;
      if (sink.size + chunk.length > limit) {
        fail(new ResponseTooLargeError(path, limit, stream.response?.statusCode ?? 0));
        stream.destroy();
        return;
      }
      sink.add(chunk);
    });
    stream.once('error', fail);
    stream.once('end', () => {
      const response = stream.response;
      if (settled) return;
      if (response === undefined) return fail(new Error('the controller answer ended before its headers'));
      settled = true;
      resolve({ response, body: sink.body(), sink });
    });
  });
}

/** Decodes a JSON body; HTML and other non-JSON bodies (a UniFi OS 401 or 502 page) give undefined. */
export { decodeJson } from './json-body.js';

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

/** One attempt's debug line: what was sent, how long it took, and how it ended (`outcome`). */
function attemptLog(
  request: OutgoingRequest,
  path: string,
  started: number,
  outcome: { status: number } | { failure: string },
): Record<string, unknown> {
  return {
    method: request.method,
    path,
    ...outcome,
    ms: Date.now() - started,
    attempt: request.attempt ?? 1,
  };
}
