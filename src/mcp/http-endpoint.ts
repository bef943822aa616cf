import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { McpToken } from '../config.js';
import { BotError } from '../errors.js';
import type { Logger } from '../log.js';

/** The largest request body accepted on POST /mcp (a tool call's arguments are a few KB). */
export const MCP_BODY_LIMIT = 1024 * 1024;
/** How many sessions may be open, in all and per token, and how long one may sit unused. */
export interface SessionLimits {
  /** Sessions unused this long are closed. */
  idleMs: number;
  /** At most this many open sessions in all. */
  max: number;
  /** At most this many per token: a token at its cap makes room from its own sessions only. */
  perToken: number;
}

export const SESSION_LIMITS: SessionLimits = { idleMs: 30 * 60_000, max: 256, perToken: 32 };

/** Bearer tokens, compared in constant time: every token is compared, and only digests of equal length. */
export class BearerTokens {
  private readonly digests: { label: string; digest: Buffer }[];

  constructor(tokens: readonly McpToken[]) {
    this.digests = tokens.map((t) => ({ label: t.label, digest: sha256(t.secret) }));
  }

  /** The label of the token an Authorization header carries, or undefined for none or a wrong one. */
  labelOf(header: string | undefined): string | undefined {
    const presented = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '')?.[1];
    const digest = sha256(presented ?? '');
    let label: string | undefined;
    for (const token of this.digests) {
      if (timingSafeEqual(digest, token.digest) && label === undefined) label = token.label;
    }
    return presented === undefined ? undefined : label;
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** A JSON-RPC error as the body of an HTTP refusal (what MCP clients expect to read). */
function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(
    JSON.stringify({ jsonrpc: '2.0', error: { code: status === 500 ? -32603 : -32000, message }, id: null }),
  );
}

/** A request body over the limit: answered 413 and the connection closed, the rest unread. */
class BodyTooLargeError extends BotError {
  readonly code = 'validation_failed';
}

/** Reads the body up to `limit` bytes. */
async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new BodyTooLargeError();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  label: string;
  lastSeen: number;
}

/**
 * POST /mcp (and DELETE to end a session): a bearer token first (401 without a right one), then
 * the SDK's Streamable HTTP transport. Sessions are kept in this process (the client's name from
 * its initialize handshake names its change requests), each bound to the token that opened it.
 */
export class McpHttpEndpoint {
  private readonly sessions = new Map<string, Session>();
  private readonly tokens: BearerTokens;
  private readonly timer: NodeJS.Timeout;

  constructor(
    tokens: readonly McpToken[],
    private readonly newServer: (label: string) => McpServer,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    private readonly limits: SessionLimits = SESSION_LIMITS,
  ) {
    this.tokens = new BearerTokens(tokens);
    this.timer = setInterval(() => void this.closeIdle(), Math.min(60_000, limits.idleMs));
    this.timer.unref();
  }

  /** The request handler for the bot's HTTP server; it never throws. */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    this.serve(req, res).catch((error: unknown) => {
      this.logger.error({ err: error }, 'MCP request failed');
      refuse(res, 500, 'internal error');
    });
  };

  /** Open sessions. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Closes every session. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    const open = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(open.map((s) => s.server.close().catch(() => {})));
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const label = this.tokens.labelOf(req.headers.authorization);
    if (label === undefined) {
      req.resume();
      return refuse(res, 401, 'a valid bearer token is required (Authorization: Bearer <MCP_TOKEN>)', {
        'www-authenticate': 'Bearer realm="netops-mcp"',
      });
    }
    const sessionId = req.headers['mcp-session-id'];
    const known = typeof sessionId === 'string' ? this.sessions.get(sessionId) : undefined;
    // A session belongs to the token that opened it; another token does not learn that it exists.
    const session = known && known.label === label ? known : undefined;
    if (req.method === 'GET') {
      req.resume();
      // No server-initiated messages: the optional SSE stream is not offered.
      return refuse(res, 405, 'GET is not supported: POST JSON-RPC messages to /mcp', {
        allow: 'POST, DELETE',
      });
    }
    if (req.method === 'DELETE') {
      if (!session) return refuse(res, 404, 'session not found');
      return session.transport.handleRequest(req, res);
    }
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req, MCP_BODY_LIMIT));
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        return refuse(res, 413, `request body larger than ${MCP_BODY_LIMIT} bytes`, { connection: 'close' });
      }
      return refuse(res, 400, 'the body must be a JSON-RPC message');
    }
    if (session) {
      session.lastSeen = this.now();
      return session.transport.handleRequest(req, res, body);
    }
    if (sessionId !== undefined) return refuse(res, 404, 'session not found; initialize a new one');
    if (!isInitializeRequest(body)) return refuse(res, 400, 'no session: send initialize first');
    await (await this.open(label)).transport.handleRequest(req, res, body);
  }

  private async open(label: string): Promise<Session> {
    this.makeRoom(label);
    const server = this.newServer(label);
    const session: Session = {
      server,
      label,
      lastSeen: this.now(),
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (id) => {
          this.sessions.set(id, session);
        },
        onsessionclosed: (id) => {
          this.sessions.delete(id);
        },
      }),
    };
    await server.connect(session.transport);
    return session;
  }

  /**
   * Room for a session of `label`: idle sessions are closed first; a token at its own cap loses its
   * least recently used session; when all sessions are taken, the token holding the most loses
   * its least recently used one. One token's initialize calls never push out another's session
   * while it holds no more than they do.
   */
  private makeRoom(label: string): void {
    this.closeIdle();
    const byToken = new Map<string, [string, Session][]>();
    for (const entry of this.sessions) {
      const list = byToken.get(entry[1].label) ?? [];
      list.push(entry);
      byToken.set(entry[1].label, list);
    }
    const own = byToken.get(label) ?? [];
    if (own.length >= this.limits.perToken) {
      this.dropLeastRecent(own);
    } else if (this.sessions.size >= this.limits.max) {
      this.dropLeastRecent([...byToken.values()].reduce((a, b) => (b.length > a.length ? b : a), own));
    }
  }

  private dropLeastRecent(entries: [string, Session][]): void {
    const oldest = [...entries].sort((a, b) => a[1].lastSeen - b[1].lastSeen)[0];
    if (oldest) this.drop(oldest[0], oldest[1]);
  }

  private closeIdle(): void {
    const before = this.now() - this.limits.idleMs;
    for (const [id, session] of this.sessions) if (session.lastSeen < before) this.drop(id, session);
  }

  private drop(id: string, session: Session): void {
    this.sessions.delete(id);
    void session.server.close().catch(() => {});
  }
}
