import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable, Writable } from 'node:stream';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Actor } from '../approvals/types.js';
import type { McpToken } from '../config.js';
import { ChangeTaskStore } from './change-task-store.js';
import { McpHttpEndpoint } from './http-endpoint.js';
import { createSessionServer } from './mcp-server.js';
import { type McpDeps, McpTools } from './tool-calls.js';
import { TopologyResources } from './topology-resources.js';

/** What the MCP front end is built from: the shared parts, and the bearer tokens of POST /mcp. */
export interface McpFrontEndOptions extends McpDeps {
  tokens: readonly McpToken[];
}

/** The MCP front end: one client on stdio, or sessions over Streamable HTTP inside the bot. */
export interface McpFrontEnd {
  tools: McpTools;
  /** Serves one client on a transport, as the holder of `label` (in-process clients, tests). */
  connect(transport: Transport, label?: string): Promise<McpServer>;
  /** Serves one client on the streams (stdin/stdout); resolves when its input ends. */
  serveStdio(input?: Readable, output?: Writable): Promise<void>;
  /** POST /mcp and DELETE /mcp, for the bot's HTTP server. */
  handleHttp(req: IncomingMessage, res: ServerResponse): void;
  close(): Promise<void>;
}

/** Builds the MCP front end over the registry and approvals. */
export function createMcpFrontEnd(options: McpFrontEndOptions): McpFrontEnd {
  const tools = new McpTools(options);
  const resources = new TopologyResources(options.registry, options.context, options.defaultSite);
  const { approvals, notifier, logger, writes } = options;
  // Tasks are change requests waiting for approval: offered in approval mode only.
  const tasks =
    writes === 'approval' && approvals
      ? (caller: () => Actor) =>
          new ChangeTaskStore(
            {
              approvals,
              ...(notifier ? { notifier } : {}),
              logger,
              writes,
              propose: (name, args, requester) => tools.proposeForTask(name, args, requester),
              taskSupport: (name) => tools.taskSupport(name),
            },
            caller,
          )
      : undefined;
  const server = (label: string) =>
    createSessionServer({ tools, resources, writes, logger, label, ...(tasks ? { tasks } : {}) });
  const http = new McpHttpEndpoint(options.tokens, server, options.logger);
  return {
    tools,
    async connect(transport, label = 'stdio') {
      const mcp = server(label);
      await mcp.connect(transport);
      return mcp;
    },
    async serveStdio(input = process.stdin, output = process.stdout) {
      const mcp = server('stdio');
      const ended = new Promise<void>((resolve) => {
        input.once('end', resolve);
        input.once('close', resolve);
      });
      await mcp.connect(new StdioServerTransport(input, output));
      await ended;
      await mcp.close();
    },
    handleHttp: http.handle,
    close: () => http.close(),
  };
}
