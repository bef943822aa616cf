import type { ToolContext } from '../tools/define-tool.js';
import { READ_OPTIONS_AT } from '../tools/read-methods.js';

type Gateway = ToolContext['gateway'];

/**
 * Issue 22: one fresh snapshot of the controller for one preview. The tool context with a gateway
 * whose reads all skip the read cache (a preview and its blast radius must see the controller as
 * it is now), and where the same read asked twice within the snapshot (the dry run's stat/sta and
 * the blast radius's stat/sta) goes to the controller once and is shared. A read that fails is not
 * kept, so a later one in the same snapshot tries again. Make a new snapshot for every preview:
 * one kept longer would answer from an old picture.
 */
export function snapshotContext(context: ToolContext): ToolContext {
  const reads = new Map<string, Promise<unknown>>();
  // Schemas (and other objects among the arguments) are told apart by identity: a read parsed with
  // another schema is another answer.
  const objectIds = new WeakMap<object, number>();
  let nextId = 0;
  const idOf = (value: object) => {
    let id = objectIds.get(value);
    if (id === undefined) {
      nextId += 1;
      id = nextId;
      objectIds.set(value, id);
    }
    return `#${id}`;
  };
  const gateway = new Proxy(context.gateway, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      const at = typeof property === 'string' ? READ_OPTIONS_AT[property] : undefined;
      if (at === undefined || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const given = args[at];
        const options = typeof given === 'object' && given !== null ? given : {};
        const key = JSON.stringify([
          property,
          ...args.slice(0, at).map((a) => (typeof a === 'object' && a !== null ? idOf(a) : a)),
          { ...options, fresh: true },
        ]);
        const shared = reads.get(key);
        if (shared) return shared;
        const call = [...args];
        call[at] = { ...options, fresh: true };
        const read = (value as (...a: unknown[]) => Promise<unknown>).apply(target, call);
        reads.set(key, read);
        read.catch(() => reads.delete(key));
        return read;
      };
    },
  }) as Gateway;
  return { ...context, gateway };
}
