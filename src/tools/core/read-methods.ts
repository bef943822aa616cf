import type { Gateway } from '../../gateway/types.js';

/**
 * The gateway's read methods and the position of their ReadOptions argument: for wrappers that
 * change how every read is made (always fresh for a before-image, one shared snapshot per preview).
 * A read method added to the Gateway must be listed here, or those wrappers would miss it.
 */
export const READ_OPTIONS_AT: Readonly<Record<string, number>> = {
  classicRead: 3,
  v2Read: 3,
  integrationList: 3,
  integrationGet: 3,
  integrationGlobalList: 2,
};

/** One read as a wrapper sees it: which method, its arguments with `fresh: true`, and the call. */
export interface FreshRead {
  method: string;
  /** The arguments before the ReadOptions. */
  leading: unknown[];
  options: Record<string, unknown>;
  run: () => unknown;
}

/**
 * The gateway with every read made fresh (past the read cache), each read handed to `around`
 * (which runs it, or answers it otherwise); every other method is the gateway's own.
 */
export function freshReads(gateway: Gateway, around: (read: FreshRead) => unknown = (r) => r.run()): Gateway {
  return new Proxy(gateway, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      const at = typeof property === 'string' ? READ_OPTIONS_AT[property] : undefined;
      if (at === undefined || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const given = args[at];
        const options = { ...(typeof given === 'object' && given !== null ? given : {}), fresh: true };
        const call = [...args];
        call[at] = options;
        return around({
          method: String(property),
          leading: args.slice(0, at),
          options,
          run: () => (value as (...a: unknown[]) => unknown).apply(target, call),
        });
      };
    },
  }) as Gateway;
}
