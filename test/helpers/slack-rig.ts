import { afterAll, beforeAll } from 'vitest';
import { type Simulator, type SimulatorOptions, startSimulator } from '../../src/simulator/index.js';
import { type FakeSlack, startFakeSlack } from './fake-slack.js';

/** The fake Slack and the simulated controller that a process test's bots talk to. */
export interface SlackRig {
  readonly slack: FakeSlack;
  readonly sim: Simulator;
}

/**
 * Starts the fake Slack and a simulator before the enclosing suite's tests and closes both after
 * them. Call it before the suite's own `beforeAll`, which then runs second and can spawn a bot
 * against them; the suite stops its own bots (its `afterAll` runs before this one's).
 */
export function useSlackRig(options: SimulatorOptions = {}): SlackRig {
  let parts: { slack: FakeSlack; sim: Simulator } | undefined;
  beforeAll(async () => {
    const [slack, sim] = await Promise.all([startFakeSlack(), startSimulator(options)]);
    parts = { slack, sim };
  });
  afterAll(async () => {
    await Promise.all([parts?.slack.close(), parts?.sim.close()]);
  });
  const started = () => {
    if (!parts) throw new Error('the Slack rig is used before its beforeAll ran');
    return parts;
  };
  return {
    get slack() {
      return started().slack;
    },
    get sim() {
      return started().sim;
    },
  };
}
