import type { ToolContext } from '../tools/define-tool.js';

type Gateway = ToolContext['gateway'];

// The read methods and the position of their ReadOptions argument.
const OPTIONS_AT: Record<string, number> = {
  classicRead: 3,
  v2Read: 3,
  integrationList: 3,
  integrationGet: 3,
  integrationGlobalList: 2,
};

/**
 * The tool context with a gateway whose every read skips the read cache: a before- or after-image
 * must be what the controller holds now, not what a read a few seconds ago saw. Reads go through
 * the registry's own read tools, so the image is the record as every face shows it.
 */
export function freshContext(context: ToolContext): ToolContext {
  const gateway = new Proxy(context.gateway, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      const at = typeof property === 'string' ? OPTIONS_AT[property] : undefined;
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
