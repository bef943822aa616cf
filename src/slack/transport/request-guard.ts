import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { type BufferedIncomingMessage, HTTPModuleFunctions, verifySlackRequest } from '@slack/bolt';
import { z } from 'zod';
import type { Logger } from '../../log.js';

/**
 * The largest body accepted on /slack/events [64 KB]. Slack's own are a few KB; the largest the bot
 * can cause is a click on a preview at its full message budget, about 26 KB form-encoded
 * (test/slack/transport/request-guard.test.ts). Bolt's receiver would buffer up to 4 MB before checking the
 * signature.
 */
export const MAX_BODY_BYTES = 64 * 1024;

/** How far a signed request's timestamp may be from the bot's clock, either way [5 minutes, Slack's rule]. */
export const MAX_CLOCK_SKEW_SECONDS = 5 * 60;

/** The envelopes a listener of the bot handles; any other is answered 404 at once. */
export interface ServedEnvelopes {
  /** Slash commands (`/net`). */
  commands: readonly string[];
  /** action_ids of block_actions (the preview's buttons, App Home's own), or patterns of them. */
  actions: readonly (string | RegExp)[];
  /** callback_ids of view_submission (the tool form). */
  views: readonly string[];
  /** Events API event types (`app_home_opened`). */
  events: readonly string[];
}

const matches = (served: readonly (string | RegExp)[], id: string): boolean =>
  served.some((s) => (typeof s === 'string' ? s === id : s.test(id)));

/** What the guard decided about one request that it does not hand to Bolt. */
export interface Refusal {
  status: 400 | 401 | 404 | 413;
  reason: string;
}

// The fields Bolt itself reads from an envelope before any listener runs (App.processEvent,
// buildSource, the built-in middleware): a null, a non-array or a primitive where Bolt expects an
// object made it throw (500) or hang. The listeners validate the rest (src/slack/payloads.ts).
const team = z.union([
  z.null(),
  z.looseObject({ id: z.string().optional(), enterprise_id: z.string().nullable().optional() }),
]);
const enterprise = z.union([z.null(), z.looseObject({ id: z.string().optional() })]);
const interactive = {
  team: team.optional(),
  enterprise: enterprise.optional(),
  user: z.looseObject({ id: z.string(), team_id: z.string().optional() }),
  is_enterprise_install: z.boolean().optional(),
  response_url: z.string().optional(),
  function_data: z.looseObject({}).optional(),
};
// Bolt echoes the challenge with JSON.stringify, which a deeply nested one overflows.
const urlVerification = z.looseObject({ challenge: z.string() });
// Deliberately alike: zod envelopes for each Slack payload kind, only the fields the guard reads, each optional.
const commandEnvelope = z.looseObject({
  command: z.string(),
  team_id: z.string().optional(),
  enterprise_id: z.string().optional(),
  user_id: z.string().optional(),
  channel_id: z.string().optional(),
  response_url: z.string().optional(),
  is_enterprise_install: z.string().optional(),
});
const actionEnvelope = z.looseObject({
  ...interactive,
  type: z.string(),
  actions: z
    .array(z.looseObject({ action_id: z.string().optional(), block_id: z.string().optional() }))
    .min(1),
  channel: z.looseObject({ id: z.string().optional() }).optional(),
});
const eventEnvelope = z.looseObject({
  type: z.literal('event_callback'),
  team_id: z.string().optional(),
  enterprise_id: z.string().nullable().optional(),
  is_enterprise_install: z.boolean().optional(),
  authorizations: z.array(z.looseObject({})).optional(),
  event: z.looseObject({ type: z.string(), user: z.string().optional(), channel: z.string().optional() }),
});
const viewEnvelope = z.looseObject({
  ...interactive,
  type: z.string(),
  view: z.looseObject({ callback_id: z.string(), app_installed_team_id: z.string().optional() }),
  response_urls: z.array(z.looseObject({ response_url: z.string() })).optional(),
});

/** A zod error as one line naming the field and the rule (no value from the payload). */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  const field = issue?.path.map(String).join('.') || 'payload';
  return `${field}: ${issue?.message ?? 'is malformed'}`;
}

/**
 * Which listener an envelope is for, decided in Bolt's own order (`getTypeAndConversation`), and
 * whether the fields Bolt reads have the types it assumes. Also judges a Socket Mode envelope's
 * payload (socket-ack-first-receiver.ts), which is the same object.
 */
export function judgeEnvelope(
  envelope: Record<string, unknown>,
  served: ServedEnvelopes,
): Refusal | undefined {
  const malformed = (error: z.ZodError): Refusal => ({ status: 400, reason: firstIssue(error) });
  const unserved = (what: string): Refusal => ({ status: 404, reason: `no listener for ${what}` });
  // Answered by the receiver itself (ack-first-receiver.ts), before any listener.
  if (envelope.ssl_check === '1') return undefined;
  if (envelope.type === 'url_verification') {
    const parsed = urlVerification.safeParse(envelope);
    return parsed.success ? undefined : malformed(parsed.error);
  }
  if (envelope.event !== undefined) {
    const parsed = eventEnvelope.safeParse(envelope);
    if (!parsed.success) return malformed(parsed.error);
    return served.events.includes(parsed.data.event.type) ? undefined : unserved('this event');
  }
  if (envelope.command !== undefined) {
    const parsed = commandEnvelope.safeParse(envelope);
    if (!parsed.success) return malformed(parsed.error);
    return served.commands.includes(parsed.data.command) ? undefined : unserved('this command');
  }
  if (envelope.name !== undefined || envelope.type === 'block_suggestion') return unserved('options');
  if (envelope.actions !== undefined || envelope.type === 'dialog_submission') {
    const parsed = actionEnvelope.safeParse(envelope);
    if (!parsed.success) return malformed(parsed.error);
    const actionId = parsed.data.actions[0]?.action_id;
    return parsed.data.type === 'block_actions' && actionId !== undefined && matches(served.actions, actionId)
      ? undefined
      : unserved('this action');
  }
  if (envelope.type === 'shortcut' || envelope.type === 'message_action') return unserved('shortcuts');
  if (envelope.type === 'view_submission' || envelope.type === 'view_closed') {
    const parsed = viewEnvelope.safeParse(envelope);
    if (!parsed.success) return malformed(parsed.error);
    return parsed.data.type === 'view_submission' && served.views.includes(parsed.data.view.callback_id)
      ? undefined
      : unserved('this view');
  }
  return { status: 400, reason: 'not a Slack request: no command, action, view or event' };
}

/** Reads the body up to `limit` bytes; undefined as soon as it is longer (the rest is never read). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        done();
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    const onClose = () => {
      done();
      reject(new Error('the client closed the connection before the body ended'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** Slack's unsigned ssl_check, recognised as Bolt's receiver does. */
function isSslCheck(req: IncomingMessage, body: string): boolean {
  return (
    req.headers['content-type'] === 'application/x-www-form-urlencoded' && parseQuery(body).ssl_check === '1'
  );
}

/** Slack's signature and timestamp, with timestamps too far in the future refused like stale ones. */
function judgeSignature(
  req: IncomingMessage,
  body: string,
  secret: string,
  nowMs: number,
): Refusal | undefined {
  const signature = header(req, 'x-slack-signature');
  const timestamp = Number(header(req, 'x-slack-request-timestamp'));
  if (signature === undefined || !Number.isFinite(timestamp)) {
    return { status: 401, reason: 'no Slack signature or timestamp' };
  }
  if (timestamp > Math.floor(nowMs / 1000) + MAX_CLOCK_SKEW_SECONDS) {
    return { status: 401, reason: 'the timestamp is more than five minutes in the future' };
  }
  try {
    verifySlackRequest({
      signingSecret: secret,
      body,
      headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': timestamp },
      nowMilliseconds: nowMs,
    });
    return undefined;
  } catch (error) {
    return { status: 401, reason: error instanceof Error ? error.message : 'signature mismatch' };
  }
}

/** The envelope decoded exactly as Bolt's receiver decodes it, or why it cannot be one. */
function judgeBody(
  req: BufferedIncomingMessage,
  served: ServedEnvelopes,
): { refusal: Refusal } | { envelope: Record<string, unknown> } {
  let envelope: unknown;
  try {
    envelope = HTTPModuleFunctions.parseHTTPRequestBody(req);
  } catch {
    return { refusal: { status: 400, reason: 'the body is not JSON (or a form with a JSON payload)' } };
  }
  if (typeof envelope !== 'object' || envelope === null || Array.isArray(envelope)) {
    return { refusal: { status: 400, reason: 'the payload is not a JSON object' } };
  }
  const refusal = judgeEnvelope(envelope as Record<string, unknown>, served);
  return refusal ? { refusal } : { envelope: envelope as Record<string, unknown> };
}

function refuse(res: ServerResponse, refusal: Refusal): void {
  if (res.headersSent) return;
  // 413 closes the connection: the rest of the body is never read.
  const close = refusal.status === 413 ? { connection: 'close' } : {};
  if (refusal.status === 401) {
    res.writeHead(401, close).end();
    return;
  }
  res.writeHead(refusal.status, { 'content-type': 'text/plain; charset=utf-8', ...close });
  res.end(`${refusal.reason}\n`);
}

/** Options of the guard in front of the receiver (ack-first-receiver.ts). */
export interface RequestGuardOptions {
  signingSecret: string;
  served: ServedEnvelopes;
  logger: Logger;
  maxBodyBytes?: number;
  now?: () => number;
}

/**
 * A request handler for POST /slack/events that lets through to `next` (the receiver,
 * ack-first-receiver.ts) only a signed request, no larger than 64 KB, from within five minutes
 * either way, whose envelope is a JSON object of a kind a listener handles with the fields Bolt
 * reads well-typed. Anything else is answered here: 413, 401, 400, or 404 (no listener; Bolt would
 * wait 3 s before saying so). `next` gets the body (as `rawBody`) and the envelope decoded as Bolt
 * decodes it (none for Slack's unsigned ssl_check), so neither is read or decoded twice.
 */
export function guardSlackRequests(
  options: RequestGuardOptions,
  next: (req: BufferedIncomingMessage, res: ServerResponse, envelope?: Record<string, unknown>) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  const limit = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const now = options.now ?? Date.now;
  const log = options.logger;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let body: Buffer | undefined;
    try {
      body = await readBody(req, limit);
    } catch (error) {
      log.debug({ err: error }, 'a Slack request ended before its body did');
      if (!res.headersSent) res.writeHead(400).end();
      return;
    }
    if (body === undefined) {
      log.warn({ limit_bytes: limit }, 'refused a Slack request body larger than the limit (413)');
      return refuse(res, { status: 413, reason: `the body is larger than ${limit} bytes` });
    }
    const text = body.toString();
    if (isSslCheck(req, text)) {
      // Unsigned, so nothing but the check itself goes on (Bolt strips the rest the same way).
      next(Object.assign(req, { rawBody: Buffer.from('ssl_check=1') }), res);
      return;
    }
    const signed = judgeSignature(req, text, options.signingSecret, now());
    if (signed) {
      log.warn({ reason: signed.reason }, 'refused an unverified Slack request (401)');
      return refuse(res, signed);
    }
    const buffered = Object.assign(req, { rawBody: body });
    const judged = judgeBody(buffered, options.served);
    if ('refusal' in judged) {
      const { status, reason } = judged.refusal;
      log.warn({ status, reason }, 'refused a signed Slack request');
      return refuse(res, judged.refusal);
    }
    next(buffered, res, judged.envelope);
  };
  return (req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A bug of ours or Bolt's, not the request's: logged, and the request still gets an answer.
      log.error({ err: error }, 'the Slack request guard failed');
      if (!res.headersSent) res.writeHead(500).end();
    });
  };
}
