import { afterAll, beforeAll } from 'vitest';
import { type Simulator, type SimulatorOptions, startSimulator } from '../../src/simulator/index.js';

/**
 * One simulator for the enclosing file or describe block, started before its tests and closed
 * after them. What is reset between tests is left to the caller, as suites differ in it.
 */
export function useSimulator(options?: SimulatorOptions): Simulator {
  let current: Simulator | undefined;
  beforeAll(async () => {
    current = await startSimulator(options);
  });
  afterAll(async () => {
    await current?.close();
  });
  // A stand-in that forwards to the simulator running now, so tests read `sim.url` as usual.
  return new Proxy({} as Simulator, {
    get(_target, property) {
      if (!current) throw new Error('the simulator is used outside a test');
      const value = current[property as keyof Simulator];
      return typeof value === 'function' ? value.bind(current) : value;
    },
  });
}
