import type { Simulator } from '../../src/simulator/index.js';

/** Writes the simulator took to one classic network record (a change, and each revert of it). */
export const putsTo = (sim: Simulator, id: string | undefined): number =>
  sim.requests.filter((r) => r.method === 'PUT' && r.route.endsWith(`rest/networkconf/${id}`)).length;

/** A copy of a classic network of the demo site, by name. */
export const network = (sim: Simulator, name: string) =>
  structuredClone(sim.state.site('default')?.networks.find((n) => n.name === name));

/** The classic network creations the simulator took whose body has `field` equal to `value`. */
export const networkPostsWhere = (sim: Simulator, field: string, value: unknown) =>
  sim.requests.filter(
    (r) =>
      r.method === 'POST' &&
      r.route.endsWith('rest/networkconf') &&
      (r.body as Record<string, unknown> | undefined)?.[field] === value,
  );
