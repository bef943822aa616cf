import type { ToolDefinition } from './define-tool.js';

/** Filled in as the group is built; registered in index.ts already so no two builders edit that file. */
export const topologyTools: ToolDefinition[] = [];
