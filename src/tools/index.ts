import type { ToolGroup } from './define-tool.js';
import { networkTools } from './networks.js';
import { ToolRegistry } from './registry.js';

/** Every tool group of the spec that is implemented, in the spec's order. */
export const toolGroups: readonly ToolGroup[] = [{ title: 'Networks and VLANs', tools: networkTools }];

/** The registry of all tools; `defaultSite` fills `site_id` when a command names none. */
export function createRegistry(defaultSite: string): ToolRegistry {
  return new ToolRegistry(toolGroups, { site: defaultSite });
}

export type { ToolContext, ToolDefinition, ToolGroup } from './define-tool.js';
export { defineTool } from './define-tool.js';
export { ToolRegistry } from './registry.js';
