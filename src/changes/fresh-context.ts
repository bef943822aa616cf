import type { ToolContext } from '../tools/core/define-tool.js';
import { freshReads } from '../tools/core/read-methods.js';

/**
 * The tool context with a gateway whose every read skips the read cache: a before- or after-image
 * must be what the controller holds now, not what a read a few seconds ago saw. Reads go through
 * the registry's own read tools, so the image is the record as every face shows it.
 */
export function freshContext(context: ToolContext): ToolContext {
  return { ...context, gateway: freshReads(context.gateway) };
}
