import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { slackTextProblems } from './slack-text.js';

/** One Web API call as the fake received it (form fields decoded, JSON fields parsed). */
export interface SlackCall {
  method: string;
  args: Record<string, unknown>;
  /** The bearer token the call carried (header or `token` field). */
  token?: string;
  /** What the fake answered (a posted message's `ts` is here). */
  answer?: Record<string, unknown>;
}

/** A posted or updated message as one text to search: its text, then its blocks as JSON. */
export function callText(call: SlackCall | undefined): string {
  return `${String(call?.args.text ?? '')} ${JSON.stringify(call?.args.blocks ?? [])}`;
}

/** A post to a response_url. */
export interface ResponsePost {
  path: string;
  body: Record<string, unknown>;
}

/** A file body received at the upload URL. */
export interface Upload {
  fileId: string;
  bytes: Buffer;
}

/** A stand-in for Slack's Web API on loopback that records every call (tests set SLACK_API_URL to it). */
export interface FakeSlack {
  url: string;
  apiUrl: string;
  calls: SlackCall[];
  responses: ResponsePost[];
  uploads: Upload[];
  /**
   * What the Slack text check (slack-text.ts) found wrong in any call or response_url post: markup
   * from data, escaping twice, hidden characters, open code fences. close() fails when not empty.
   */
  textProblems: string[];
  /** Members returned by usergroups.users.list, by group id. */
  userGroups: Record<string, string[]>;
  /** The scopes the token holds, sent as `x-oauth-scopes` on every answer as Slack does; unset: no header. */
  scopes?: string[];
  /** Profile emails users.info answers (and users.lookupByEmail finds), by user id; a user not listed is `user_not_found` (`users_not_found`). */
  userEmails: Record<string, string>;
  /** Per method: how long the fake holds its answer (the call is recorded at once). */
  delays: Record<string, number>;
  /** Per method: the next `times` calls are answered `{ok: false, error}`. */
  failures: Record<string, { error: string; times: number }>;
  /** Methods that answer `{ok: false, error}` (e.g. `faults['views.publish'] = 'ratelimited'`). */
  faults: Record<string, string>;
  /**
   * Channels whose calls (any method naming them as `channel` or `channel_id`) answer
   * `{ok: false, error}`: `channelFaults.C0AUDIT = 'not_in_channel'`.
   */
  channelFaults: Record<string, string>;
  /** Per method: the next `times` calls are answered HTTP `status` with a web page, nothing done. */
  httpErrors: Record<string, { status: number; times: number }>;
  /**
   * Per method: the next `times` calls are answered as Slack rate-limits, HTTP 429 with
   * `Retry-After: retryAfter` (seconds) and `{ok: false, error: 'ratelimited'}`.
   */
  rateLimits: Record<string, { retryAfter: number; times: number }>;
  /** The next this-many file bodies posted to an upload URL are answered HTTP 500 (and not kept). */
  uploadFailures: number;
  /** The WebSocket URL apps.connections.open hands out (a fake Socket Mode endpoint); unset: an error. */
  socketModeUrl?: string;
  /** Set: auth.test answers `{ok: false, error}` with it (`invalid_auth`, `service_unavailable`, …). */
  authTestError?: string;
  callsOf(method: string): SlackCall[];
  /** A fresh response_url served by the fake. */
  responseUrl(): string;
  /** Resolves once `predicate` holds (the bot works after its ack), or rejects after `timeoutMs`. */
  waitFor(predicate: () => boolean | Promise<boolean>, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function decodeForm(text: string): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    // The Web API client JSON-encodes objects and arrays inside form fields.
    args[key] = /^[[{]/.test(value) ? JSON.parse(value) : value;
  }
  return args;
}

/** Starts the fake on an ephemeral loopback port. */
export async function startFakeSlack(): Promise<FakeSlack> {
  const calls: SlackCall[] = [];
  const responses: ResponsePost[] = [];
  const uploads: Upload[] = [];
  const textProblems: string[] = [];
  const userGroups: Record<string, string[]> = {};
  const userEmails: Record<string, string> = {};
  const delays: Record<string, number> = {};
  const failures: Record<string, { error: string; times: number }> = {};
  const faults: Record<string, string> = {};
  const channelFaults: Record<string, string> = {};
  const httpErrors: Record<string, { status: number; times: number }> = {};
  const rateLimits: Record<string, { retryAfter: number; times: number }> = {};
  let uploadFailures = 0;
  let ts = 1_700_000_000;
  let fileCount = 0;
  let responseCount = 0;
  let base = '';
  let socketModeUrl: string | undefined;
  let authTestError: string | undefined;

  const answer = (method: string, args: Record<string, unknown>): Record<string, unknown> => {
    const fault = faults[method];
    if (fault) return { ok: false, error: fault };
    const channel = args.channel ?? args.channel_id;
    const channelFault = typeof channel === 'string' ? channelFaults[channel] : undefined;
    if (channelFault) return { ok: false, error: channelFault };
    switch (method) {
      case 'auth.test':
        if (authTestError) return { ok: false, error: authTestError };
        return { ok: true, user_id: 'UBOT', bot_id: 'BBOT', team_id: 'T1', user: 'netops' };
      case 'chat.postMessage':
        ts += 1;
        return { ok: true, channel: args.channel, ts: `${ts}.000100`, message: { text: args.text } };
      case 'chat.update':
        return { ok: true, channel: args.channel, ts: args.ts };
      case 'chat.getPermalink':
        return {
          ok: true,
          channel: args.channel,
          permalink: `https://example.slack.com/archives/${String(args.channel)}/p${String(args.message_ts).replace('.', '')}`,
        };
      case 'chat.postEphemeral':
        return { ok: true, message_ts: `${ts}.000200` };
      case 'views.open':
        return { ok: true, view: { id: 'V1' } };
      case 'views.publish':
        return { ok: true, view: { id: `VH${String(args.user_id)}`, type: 'home' } };
      case 'users.info': {
        const email = userEmails[String(args.user)];
        return email
          ? { ok: true, user: { id: args.user, profile: { email } } }
          : { ok: false, error: 'user_not_found' };
      }
      case 'users.lookupByEmail': {
        const found = Object.entries(userEmails).find(([, email]) => email === String(args.email));
        return found ? { ok: true, user: { id: found[0] } } : { ok: false, error: 'users_not_found' };
      }
      case 'usergroups.users.list': {
        const users = userGroups[String(args.usergroup)];
        return users ? { ok: true, users } : { ok: false, error: 'no_such_subteam' };
      }
      case 'files.getUploadURLExternal':
        fileCount += 1;
        return { ok: true, upload_url: `${base}/upload/F${fileCount}`, file_id: `F${fileCount}` };
      case 'apps.connections.open':
        return socketModeUrl ? { ok: true, url: socketModeUrl } : { ok: false, error: 'invalid_auth' };
      case 'files.completeUploadExternal':
        return { ok: true, files: (args.files as unknown[] | undefined) ?? [] };
      default:
        return { ok: false, error: 'unknown_method' };
    }
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const path = (req.url ?? '').split('?')[0] ?? '';
      const contentType = req.headers['content-type'] ?? '';
      res.setHeader('content-type', 'application/json');
      if (path.startsWith('/api/')) {
        const method = path.slice('/api/'.length);
        const args = contentType.includes('json')
          ? (JSON.parse(body.toString() || '{}') as Record<string, unknown>)
          : decodeForm(body.toString());
        const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        const token = bearer ?? (typeof args.token === 'string' ? args.token : undefined);
        const httpError = httpErrors[method];
        if (httpError && httpError.times > 0) {
          httpError.times -= 1;
          calls.push({
            method,
            args,
            ...(token ? { token } : {}),
            answer: { ok: false, http: httpError.status },
          });
          res.writeHead(httpError.status, { 'content-type': 'text/html' });
          res.end('<html><body>Server error</body></html>');
          return;
        }
        const answered = answer(method, args);
        const delay = delays[method];
        const failure = failures[method];
        const failed = failure !== undefined && failure.times > 0;
        const limit = rateLimits[method];
        const limited = !failed && limit !== undefined && limit.times > 0;
        const sent = failed
          ? { ok: false, error: failure.error }
          : limited
            ? { ok: false, error: 'ratelimited' }
            : answered;
        if (failed) failure.times -= 1;
        if (limited) limit.times -= 1;
        calls.push({ method, args, ...(token ? { token } : {}), answer: sent });
        textProblems.push(...slackTextProblems(args, method));
        if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
        if (fake.scopes) res.setHeader('x-oauth-scopes', fake.scopes.join(','));
        if (limited) res.writeHead(429, { 'retry-after': String(limit.retryAfter) });
        res.end(JSON.stringify(sent));
        return;
      }
      if (path.startsWith('/upload/')) {
        const form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
        const file = form.get('body') ?? form.get('file');
        const bytes =
          file instanceof Blob ? Buffer.from(await file.arrayBuffer()) : Buffer.from(String(file ?? ''));
        if (uploadFailures > 0) {
          uploadFailures -= 1;
          res.statusCode = 500;
          res.end('upload failed');
          return;
        }
        uploads.push({ fileId: path.slice('/upload/'.length), bytes });
        res.end('OK');
        return;
      }
      if (path.startsWith('/response/')) {
        responses.push({ path, body: JSON.parse(body.toString() || '{}') as Record<string, unknown> });
        textProblems.push(...slackTextProblems(responses.at(-1)?.body, path));
        res.end('{"ok":true}');
        return;
      }
      res.statusCode = 404;
      res.end('{"ok":false}');
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fake: FakeSlack = {
    url: base,
    apiUrl: `${base}/api`,
    calls,
    responses,
    uploads,
    textProblems,
    userGroups,
    userEmails,
    delays,
    failures,
    faults,
    channelFaults,
    httpErrors,
    rateLimits,
    callsOf: (method) => calls.filter((c) => c.method === method),
    responseUrl: () => {
      responseCount += 1;
      return `${base}/response/${responseCount}`;
    },
    async waitFor(predicate, timeoutMs = 5000) {
      const started = Date.now();
      while (!(await predicate())) {
        if (Date.now() - started > timeoutMs)
          throw new Error('the fake Slack never saw what the test waited for');
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      // Every test that talks to this fake gets the Slack text check for free.
      if (textProblems.length > 0)
        throw new Error(
          `the bot sent unsafe Slack text:\n${[...new Set(textProblems)].slice(0, 20).join('\n')}`,
        );
    },
    get socketModeUrl() {
      return socketModeUrl;
    },
    set socketModeUrl(url) {
      socketModeUrl = url;
    },
    get uploadFailures() {
      return uploadFailures;
    },
    set uploadFailures(count) {
      uploadFailures = count;
    },
    get authTestError() {
      return authTestError;
    },
    set authTestError(error) {
      authTestError = error;
    },
  };
  return fake;
}
