import { createRequire } from 'node:module';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { mcpRequester } from '../approvals/mcp-requester.js';
import type { McpWriteMode } from '../config.js';
import { isBotError } from '../errors.js';
import type { Logger } from '../log.js';
import { mcpError, mcpErrorText, ProtocolError } from './error-text.js';
import type { McpTools } from './tool-calls.js';
import { type TopologyResources, UnknownResourceError } from './topology-resources.js';

// MCP's code for "resource not found" (the specification's, not a JSON-RPC standard one).
const RESOURCE_NOT_FOUND = -32002;

const VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

const WRITES_TEXT: Record<McpWriteMode, string> = {
  approval:
    'Write tools never change the network directly: dry_run=true previews a change; confirm=true posts it as a change request in Slack, where a person approves it, and returns its id at once. Follow it with get_change_request; it runs only after approval.',
  confirm:
    'Write tools preview with dry_run=true and run with confirm=true. Preview first and show the user what will change before confirming.',
  off: 'This server only reads: write tools are not offered.',
};

/** What one MCP session (a stdio client, or one HTTP session) is served from. */
export interface SessionParts {
  tools: McpTools;
  resources: TopologyResources;
  writes: McpWriteMode;
  logger: Logger;
  /** Who holds the token (HTTP) or `stdio`: the requester of the session's change requests. */
  label: string;
}

/**
 * An MCP server (the SDK's) for one session: the registry's tools, get_change_request in approval
 * mode, and the topology resources. Tools are listed with JSON Schemas generated from the zod
 * schemas, so the handlers are registered on the underlying protocol server directly.
 */
export function createSessionServer(parts: SessionParts): McpServer {
  const mcp = new McpServer(
    { name: 'netops', title: 'netops-bot', version: VERSION },
    {
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
      instructions: `netops reads and changes a UniFi network (networks and VLANs, firewall zones, policies and rules, ACL rules, traffic lists and routes, DPI, topology). site_id defaults to the bot's site; ids may be given as names. ${WRITES_TEXT[parts.writes]}`,
    },
  );
  const server = mcp.server;
  const requester = () => mcpRequester(parts.label, server.getClientVersion());
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: parts.tools.list() }));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    parts.tools.call(request.params.name, request.params.arguments ?? {}, requester()),
  );
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: parts.resources.list() }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: parts.resources.templates(),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    try {
      return await parts.resources.read(request.params.uri);
    } catch (error) {
      if (error instanceof UnknownResourceError) throw new ProtocolError(RESOURCE_NOT_FOUND, error.message);
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
