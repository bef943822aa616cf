import { GatewayRejectedError, GatewayUnavailableError, WriteOutcomeUnknownError } from '../errors.js';
import type { Logger } from '../log.js';
import { Authenticator, type AuthTicket, type Credentials } from './auth.js';
import { consoleIdFromHosts } from './cloud.js';
import { detectDeployment, Once } from './deployment.js';
import { INVALID_RESPONSE, invalidResponse, readClassicEnvelope, readErrorBody } from './envelopes.js';
import {
  type FailureContext,
  fromControllerCode,
  mapHttpFailure,
  noControllerAnswer,
} from './error-mapping.js';
import type { ResolvedGatewayOptions } from './options.js';
import { connectorBase, type Deployment, deploymentPrefix, displayUrl, hostOf, joinUrl } from './paths.js';
import { type AttemptContext, beforeDeadline, requestTimeout, retryHintOf, withRetry } from './retry.js';
import type { HttpMethod, RawResponse, Transport } from './transport.js';
import type { ApiKind } from './types.js';

/** One controller request, described by API and site-relative path. */
export interface Call {
  api: ApiKind;
  method: HttpMethod;
  /** Classic site name, for messages and cache scope. */
  site?: string;
  /** Path under the API's site root (`rest/networkconf/{id}`), for messages. */
  path: string;
  /** Route under the Network application root (`/api/s/default/rest/networkconf/{id}`). */
  route: string;
  query?: Record<string, string>;
  body?: unknown;
}

/**
 * Addressing, auth, the one re-login on 401, envelope checks, error mapping and the retry
 * policy, for every request the gateway makes. Reads may be repeated; a write reaches the
 * controller at most once, plus once more only after a 401 proved it never got past auth.
 */
export class Pipeline {
  readonly auth: Authenticator;
  private readonly deployment: Once<Deployment>;
  private readonly consoleId: Once<string>;
  private knownConsoleId: string | undefined;
  /** The controller kind once known (App Home shows it); the last time a read was answered. */
  detectedDeployment: Deployment | undefined;
  lastReadAt: number | undefined;
  private readonly logger: Logger;
  private readonly host: string;

  constructor(
    private readonly options: ResolvedGatewayOptions,
    private readonly transport: Transport,
  ) {
    this.logger = options.logger;
    this.host = hostOf(options.url);
    this.knownConsoleId = options.consoleId;
    // Detection and the login are shared by every read that waits for them, so they get a whole
    // read budget of their own; each read waits for them only as long as its own budget allows.
    const sharedTimeoutMs = Math.min(options.timeoutMs, options.retry.budgetMs);
    const known = options.deployment;
    this.detectedDeployment = known;
    this.deployment = new Once(() =>
      known !== undefined
        ? Promise.resolve(known)
        : detectDeployment(transport, options.url, sharedTimeoutMs, options.logger).then((d) => {
            this.logger.info({ deployment: d }, 'detected the controller type');
            this.detectedDeployment = d;
            return d;
          }),
    );
    this.consoleId = new Once(async () => {
      if (this.knownConsoleId !== undefined) return this.knownConsoleId;
      const id = consoleIdFromHosts(await this.siteManagerGet('/v1/hosts'));
      this.logger.info({ consoleId: id }, 'using the only console the cloud API key sees');
      this.knownConsoleId = id;
      return id;
    });
    const credentials: Credentials =
      options.apiKey !== undefined
        ? { kind: 'api-key', apiKey: options.apiKey }
        : { kind: 'session', username: options.username ?? '', password: options.password ?? '' };
    this.auth = new Authenticator({
      credentials,
      transport,
      url: options.url,
      host: this.host,
      timeoutMs: sharedTimeoutMs,
      deployment: () => this.deployment.get(),
      logger: options.logger,
    });
  }

  /** A read: retried on transient faults within the policy's attempts and budget. */
  async read(call: Call): Promise<unknown> {
    const answer = await withRetry(this.runOptions(call, true), (ctx) =>
      this.guessesDeployment() ? this.guessedAttempt(call, ctx) : this.attempt(call, ctx),
    );
    this.lastReadAt = Date.now();
    return answer;
  }

  /**
   * A write: sent once. Its prerequisites (detection, console discovery, login) may be retried
   * first. A write that was sent but got no answer (a timeout, a dropped connection) may have been
   * made: it fails with WriteOutcomeUnknownError, never as "not done".
   */
  async write(call: Call): Promise<unknown> {
    await this.prepare(call.method, call.route);
    try {
      return await withRetry(this.runOptions(call, false), (ctx) => this.attempt(call, ctx));
    } catch (error) {
      throw maybeMade(error, call);
    }
  }

  /**
   * Detection (or the cloud console's id) and the login, within one read budget: what every
   * request needs first. Failures are forgotten, so the next request tries again.
   */
  prepare(method = 'GET', path = '/'): Promise<void> {
    return withRetry(
      {
        policy: this.options.retry,
        timeoutMs: this.options.timeoutMs,
        retry: true,
        logger: this.logger,
        method,
        path,
      },
      async (ctx) => {
        await beforeDeadline(this.networkBase(), ctx, this.host);
        await beforeDeadline(this.auth.ticket(), ctx, this.host);
      },
    );
  }

  /** A Site Manager read (`/v1/hosts`) on the cloud base, with the API key. */
  siteManagerGet(route: string): Promise<unknown> {
    const ctx: FailureContext = { ...this.baseContext(), api: 'site-manager', method: 'GET', path: route };
    return withRetry(
      {
        policy: this.options.retry,
        timeoutMs: this.options.timeoutMs,
        retry: true,
        logger: this.logger,
        method: 'GET',
        path: route,
      },
      async (attemptCtx) => {
        const ticket = await beforeDeadline(this.auth.ticket(), attemptCtx, this.host);
        const response = await this.transport.send({
          method: 'GET',
          url: joinUrl(this.options.url, route),
          headers: { accept: 'application/json', ...ticket.headers },
          timeoutMs: requestTimeout(attemptCtx),
          attempt: attemptCtx.attempt,
        });
        if (response.status < 200 || response.status >= 300) throw mapHttpFailure(response, ctx);
        if (response.json === undefined) throw invalidResponse('expected JSON', route);
        return response.json;
      },
    );
  }

  private runOptions(call: Call, retry: boolean) {
    return {
      policy: this.options.retry,
      timeoutMs: this.options.timeoutMs,
      retry,
      logger: this.logger,
      method: call.method,
      path: call.route,
    };
  }

  private async networkBase(): Promise<string> {
    if (this.options.apiType === 'cloud') return connectorBase(this.options.url, await this.consoleId.get());
    return `${this.options.url}${deploymentPrefix(await this.deployment.get())}`;
  }

  /**
   * While the controller type is still being detected, a read need not wait for it: with an API key
   * (no login that depends on the type) the request goes out at once to where a UniFi OS console,
   * the common case, serves it, alongside detection. Detection still decides: on a self-hosted
   * controller the guess is dropped and the read sent again where it belongs. Only reads guess; a
   * write waits for detection.
   */
  private guessesDeployment(): boolean {
    return (
      this.options.apiType === 'local' &&
      this.options.deployment === undefined &&
      !this.auth.usesSession &&
      this.deployment.peek() === undefined
    );
  }

  private async guessedAttempt(call: Call, ctx: AttemptContext): Promise<unknown> {
    const guessUrl = joinUrl(`${this.options.url}${deploymentPrefix('unifi-os')}`, call.route);
    const ticket = await this.auth.ticket();
    const guess = this.send(call, guessUrl, ticket, requestTimeout(ctx), ctx.attempt);
    // Observed below only when the guess was right; a wrong guess's failure is of no interest.
    guess.catch(() => undefined);
    const deployment = await beforeDeadline(this.deployment.get(), ctx, this.host);
    if (deployment !== 'unifi-os') return this.attempt(call, ctx);
    return this.decode(call, await guess, guessUrl);
  }

  private async attempt(call: Call, ctx: AttemptContext): Promise<unknown> {
    const url = joinUrl(await beforeDeadline(this.networkBase(), ctx, this.host), call.route);
    let ticket = await beforeDeadline(this.auth.ticket(), ctx, this.host);
    let response = await this.send(call, url, ticket, requestTimeout(ctx), ctx.attempt);
    if (this.auth.usesSession && sessionExpired(response)) {
      this.logger.info(
        { method: call.method, path: call.route },
        'controller session expired; logging in again',
      );
      await beforeDeadline(this.auth.renew(ticket.generation), ctx, this.host);
      ticket = await beforeDeadline(this.auth.ticket(), ctx, this.host);
      response = await this.send(call, url, ticket, requestTimeout(ctx), ctx.attempt);
    }
    return this.decode(call, response, url);
  }

  private async send(
    call: Call,
    url: string,
    ticket: AuthTicket,
    timeoutMs: number,
    attempt: number,
  ): Promise<RawResponse> {
    const response = await this.transport.send({
      method: call.method,
      url,
      headers: { accept: 'application/json', ...ticket.headers },
      ...(call.query === undefined ? {} : { query: call.query }),
      ...(call.body === undefined ? {} : { body: call.body }),
      timeoutMs,
      attempt,
    });
    this.auth.observe(response.headers, ticket.generation);
    return response;
  }

  private decode(call: Call, response: RawResponse, url: string): unknown {
    const ctx: FailureContext = { ...this.context(call), requestPath: pathOf(url) };
    if (response.status < 200 || response.status >= 300) throw mapHttpFailure(response, ctx);
    // A web page where the API should answer: no controller there, rather than "not understood".
    const elsewhere = ctx.cloud ? undefined : noControllerAnswer(response, ctx);
    if (elsewhere !== undefined) throw elsewhere;
    // A parsed body is never blank; `text` is decoded only when read (json-body.ts).
    if (response.json === undefined && response.text.trim() === '') {
      if (call.api === 'classic') throw invalidResponse('the body was empty', call.route);
      return undefined;
    }
    if (response.json === undefined) {
      throw invalidResponse(
        /\bjson\b/i.test(response.contentType)
          ? 'its JSON is cut short or malformed'
          : `expected JSON, got ${response.contentType || 'an untyped body'}`,
        call.route,
      );
    }
    if (call.api !== 'classic') return response.json;
    const envelope = readClassicEnvelope(response.json);
    if (envelope === undefined)
      throw invalidResponse('expected the classic envelope {meta:{rc},data}', call.route);
    // The classic API reports some errors with HTTP 200: rc decides, not the status.
    if (!envelope.ok) throw fromControllerCode(envelope.code, response.status, ctx);
    return envelope.data;
  }

  private baseContext(): Omit<FailureContext, 'api' | 'method' | 'path'> {
    return {
      host: this.host,
      baseUrl: displayUrl(this.options.url),
      credential: this.auth.usesSession ? 'session' : 'api-key',
      cloud: this.options.apiType === 'cloud',
      ...(this.knownConsoleId === undefined ? {} : { consoleId: this.knownConsoleId }),
    };
  }

  private context(call: Call): FailureContext {
    return {
      ...this.baseContext(),
      api: call.api,
      method: call.method,
      path: call.path,
      ...(call.site === undefined ? {} : { site: call.site }),
      ...(call.body === undefined ? {} : { body: call.body }),
    };
  }
}

// Failures that happen before a request leaves: nothing reached the controller.
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * A write that may have reached the controller (no answer, or an answer the bot could not read),
 * worded so nobody takes it for "not done".
 */
function maybeMade(error: unknown, call: Call): unknown {
  if (error instanceof GatewayRejectedError && error.controllerCode === INVALID_RESPONSE) {
    return new GatewayRejectedError(
      INVALID_RESPONSE,
      `${error.message}; the change may or may not have been made: check the controller before trying again`,
      error.status,
    );
  }
  if (!(error instanceof GatewayUnavailableError) || error.status !== undefined) return error;
  const reason = retryHintOf(error)?.reason;
  // No hint: a failure that is not the network's (a TLS certificate); a hint in NOT_SENT: never sent.
  if (reason === undefined || NOT_SENT.has(reason)) return error;
  return new WriteOutcomeUnknownError(
    `${error.message} after the ${call.method} to ${call.path} was sent: the change may or may not have been made; check the controller before trying again`,
  );
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/** A session is over when the controller says 401, or LoginRequired in a classic envelope (any status). */
function sessionExpired(response: RawResponse): boolean {
  if (response.status === 401) return true;
  const body = readErrorBody(response.json);
  return body?.shape === 'classic' && body.code === 'api.err.LoginRequired';
}
