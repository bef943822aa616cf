import type { ToolContext } from '../tools/core/define-tool.js';
import { freshReads } from '../tools/core/read-methods.js';

/**
 * One fresh snapshot of the controller for one preview. The tool context with a gateway
 * whose reads all skip the read cache (a preview and its blast radius must see the controller as
 * it is now), and where the same read asked twice within the snapshot (the dry run's stat/sta and
 * the blast radius's stat/sta) goes to the controller once and is shared. A read that fails is not
 * kept, so a later one in the same snapshot tries again. Make a new snapshot for every preview:
 * one kept longer would answer from an old picture.
 */
export function snapshotContext(context: ToolContext): ToolContext {
  const port = context.consoles;
  const base = snapshotOf(context);
  if (!port) return base;
  // A call naming a console reads that console fresh too, each in a snapshot of its own.
  const perConsole = new Map<string, ToolContext['gateway']>();
  return {
    ...base,
    consoles: {
      fleet: port.fleet,
      readBudgetMs: port.readBudgetMs,
      list: () => port.list(),
      channel: (id) => port.channel(id),
      gateway: (name) => {
        let gateway = perConsole.get(name);
        if (!gateway) {
          gateway = snapshotOf({ ...context, gateway: port.gateway(name) }).gateway;
          perConsole.set(name, gateway);
        }
        return gateway;
      },
    },
  };
}

function snapshotOf(context: ToolContext): ToolContext {
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
  const gateway = freshReads(context.gateway, (read) => {
    const key = JSON.stringify([
      read.method,
      ...read.leading.map((a) => (typeof a === 'object' && a !== null ? idOf(a) : a)),
      read.options,
    ]);
    const shared = reads.get(key);
    if (shared) return shared;
    const answer = Promise.resolve(read.run());
    reads.set(key, answer);
    answer.catch(() => reads.delete(key));
    return answer;
  });
  return { ...context, gateway };
}
