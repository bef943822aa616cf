import { createMcpFrontEnd } from './mcp-front-end.js';

/**
 * The MCP front end's SDK-backed parts, in one module so that only `netops mcp` and a bot with
 * MCP_TOKEN load the SDK: `main.ts` imports this on demand and hands it to `createApp`.
 */
export const mcpKit = { createMcpFrontEnd };

/** What `createApp` needs to build the MCP front end. */
export type McpKit = typeof mcpKit;
