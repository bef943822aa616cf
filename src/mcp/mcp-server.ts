import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { mcpRequester } from '../approvals/mcp-requester.js';
import type { Actor } from '../approvals/types.js';
import type { McpWriteMode } from '../config.js';
import { type FieldIssue, isBotError } from '../errors.js';
import { packageVersion } from '../lib/package-version.js';
import { redactSecrets } from '../lib/redact.js';
import { type Logger, scrubSecrets } from '../log.js';
import type { ChangeTaskStore } from './change-task-store.js';
import { mcpError, mcpErrorText, ProtocolError } from './error-text.js';
import type { McpTools } from './tool-calls.js';
import { BadResourceUriError, type TopologyResources, UnknownResourceError } from './topology-resources.js';

// MCP's code for "resource not found" (the specification's, not a JSON-RPC standard one).
const RESOURCE_NOT_FOUND = -32002;

const VERSION = packageVersion();

const WRITES_TEXT: Record<McpWriteMode, string> = {
  approval:
    'Write tools never change the network directly: dry_run=true previews a change; confirm=true posts it as a change request in Slack, where a person approves it, and returns its id at once. Follow it with get_change_request; it runs only after approval. A client with MCP tasks may call a write with confirm=true as a task instead: the task is the change request, working until it is approved and run. Nobody can approve over MCP.',
  confirm:
    'Write tools preview with dry_run=true and run with confirm=true. Preview first and show the user what will change before confirming.',
  off: 'This server only reads: write tools are not offered.',
};

/** What an assistant must know of a fleet before its first call: which consoles, and that it must name one. */
function fleetText(consoles: readonly string[] | undefined): string {
  if (consoles === undefined) return '';
  return `This server serves ${consoles.length} consoles (${consoles.join(', ')}): every tool takes console= (required) and site=; list_consoles says which are reachable. `;
}

// The params of the requests we answer, checked by us rather than by the SDK, so that a badly
// typed one is an ordinary "invalid params" answer naming the field (the SDK's own check answered
// with a raw zod dump, or as an internal error).
const listParams = z.object({ cursor: z.string({ error: 'must be a string' }).optional() }).optional();
const callParams = z.object({
  name: z.string({ error: 'must be the name of a tool (a string)' }),
  // Task augmentation (MCP tasks): the requested ttl is not used, a task lives as long as its change request.
  task: z
    .object(
      { ttl: z.number({ error: 'must be a number of milliseconds' }).nullish() },
      { error: 'must be an object' },
    )
    .optional(),
  arguments: z
    .record(z.string(), z.unknown(), { error: "must be an object of the tool's arguments" })
    .optional(),
});
const readParams = z.object({ uri: z.string({ error: 'must be a resource URI (a string)' }) });

/** An "invalid params" protocol error: one `field: rule` per issue, and the issues as data. */
function invalidParams(fields: FieldIssue[]): ProtocolError {
  const text = fields.map((f) => `${f.field}: ${f.rule}`).join('; ');
  return new ProtocolError(ErrorCode.InvalidParams, `invalid params: ${scrubSecrets(text)}`, { fields });
}

function paramIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.map((issue) => ({
    field: ['params', ...issue.path.map(String)].join('.'),
    rule: issue.code === 'invalid_type' || issue.message.startsWith('must') ? issue.message : 'is not valid',
  }));
}

type Handler<P> = (params: P) => unknown;

/**
 * Registers a handler on the protocol layer itself, with a request schema that accepts any params:
 * ours are parsed here. (The SDK's Server checks tools/call against its own schema before any
 * handler runs; the protocol layer under it is the documented place for request handlers.)
 */
function handlerOn(server: Server) {
  return <P>(method: string, params: z.ZodType<P>, handler: Handler<P>) => {
    const request = z.object({ method: z.literal(method), params: z.unknown().optional() });
    Protocol.prototype.setRequestHandler.call(
      server,
      request as never,
      (async (raw: { params?: unknown }) => {
        try {
          const parsed = params.safeParse(raw.params);
          if (!parsed.success) throw invalidParams(paramIssues(parsed.error));
          return await handler(parsed.data);
        } catch (error) {
          throw error instanceof ProtocolError ? error.onTheWire() : error;
        }
      }) as never,
    );
  };
}

/** What one MCP session (a stdio client, or one HTTP session) is served from. */
export interface SessionParts {
  tools: McpTools;
  resources: TopologyResources;
  writes: McpWriteMode;
  logger: Logger;
  /** Who holds the token (HTTP) or `stdio`: the requester of the session's change requests. */
  label: string;
  /** MCP tasks over change requests (approval mode): the session's task store, for its requester. */
  tasks?: (caller: () => Actor) => ChangeTaskStore;
}

/** What a server with MCP tasks declares: tools/call as a task, tasks/list and tasks/cancel. */
const TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } };

/**
 * An MCP server (the SDK's) for one session: the registry's tools, get_change_request in approval
 * mode, and the topology resources. Tools are listed with JSON Schemas generated from the zod
 * schemas, so the handlers are registered on the underlying protocol server directly.
 */
export function createSessionServer(parts: SessionParts): McpServer {
  // The requester reads the client's name from the handshake, once the server exists.
  const requester = () => mcpRequester(parts.label, mcp.server.getClientVersion());
  const tasks = parts.tasks?.(requester);
  const mcp: McpServer = new McpServer(
    { name: 'netops', title: 'netops-bot', version: VERSION },
    {
      capabilities: {
        tools: { listChanged: false },
        resources: { listChanged: false },
        ...(tasks ? { tasks: TASKS_CAPABILITY } : {}),
      },
      // The SDK's protocol layer answers tasks/get, tasks/result, tasks/list and tasks/cancel from it.
      ...(tasks ? { taskStore: tasks } : {}),
      instructions: `netops reads and changes a UniFi network (networks and VLANs, firewall zones, policies and rules, ACL rules, traffic lists and routes, DPI, topology). site_id defaults to the bot's site; ids may be given as names. ${fleetText(parts.tools.fleetConsoles)}${WRITES_TEXT[parts.writes]}`,
    },
  );
  const server = mcp.server;
  // Every answer leaves through the one redaction (tool results are redacted by the registry
  // already; change requests, errors and resources are redacted here as well).
  const handle = handlerOn(server);
  handle('tools/list', listParams, () => ({ tools: parts.tools.list() }));
  handle('tools/call', callParams, async (params) => {
    if (params.task) {
      if (!tasks) {
        throw new ProtocolError(
          ErrorCode.MethodNotFound,
          `${params.name} does not run as a task: tasks are offered with MCP_WRITES=approval; call it without a task`,
        );
      }
      return redactSecrets(await tasks.start(params.name, params.arguments ?? {}));
    }
    return redactSecrets(await parts.tools.call(params.name, params.arguments ?? {}, requester()));
  });
  handle('resources/list', listParams, () => ({ resources: parts.resources.list() }));
  handle('resources/templates/list', listParams, () => ({
    resourceTemplates: parts.resources.templates(),
  }));
  handle('resources/read', readParams, async (params) => {
    try {
      return redactSecrets(await parts.resources.read(params.uri));
    } catch (error) {
      if (error instanceof UnknownResourceError) throw new ProtocolError(RESOURCE_NOT_FOUND, error.message);
      if (error instanceof BadResourceUriError)
        throw invalidParams([{ field: 'params.uri', rule: error.rule }]);
      const described = mcpError(error, parts.logger, parts.writes);
      const code = !isBotError(error)
        ? ErrorCode.InternalError
        : described.code === 'not_found'
          ? RESOURCE_NOT_FOUND
          : described.code === 'validation_failed'
            ? ErrorCode.InvalidParams
            : ErrorCode.InternalError;
      throw new ProtocolError(code, mcpErrorText(described));
    }
  });
  server.oninitialized = () => {
    const client = server.getClientVersion();
    parts.logger.info(
      { label: parts.label, client: client?.name, client_version: client?.version },
      'MCP client connected',
    );
  };
  return mcp;
}
