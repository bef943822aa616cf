import type { ToolContext } from '../tools/define-tool.js';
import { READ_OPTIONS_AT } from '../tools/read-methods.js';

type Gateway = ToolContext['gateway'];

/**
 * The tool context with a gateway whose every read skips the read cache: a before- or after-image
 * must be what the controller holds now, not what a read a few seconds ago saw. Reads go through
 * the registry's own read tools, so the image is the record as every face shows it.
 */
export function freshContext(context: ToolContext): ToolContext {
  const gateway = new Proxy(context.gateway, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      const at = typeof property === 'string' ? READ_OPTIONS_AT[property] : undefined;
      if (at === undefined || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const given = args[at];
        const options = typeof given === 'object' && given !== null ? given : {};
        const call = [...args];
        call[at] = { ...options, fresh: true };
        return (value as (...a: unknown[]) => unknown).apply(target, call);
      };
    },
  }) as Gateway;
  return { ...context, gateway };
}
