import { afterAll, beforeAll } from 'vitest';
import { type Simulator, type SimulatorOptions, startSimulator } from '../../src/simulator/index.js';
import { type BotProcess, spawnListeningBot } from './bot-process.js';
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
  // Deliberately alike: vitest fills this in its hook after the suite is collected; the getters hand out what the hook made.
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

/** The built bot a process test talks to, spawned once its rig is up. */
export interface ListeningBot {
  readonly bot: BotProcess;
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Where Slack's requests go: `<url>/slack/events`. */
  readonly events: string;
}

/**
 * Spawns `node dist/main.js` with `env()` before the suite's tests (call it after `useSlackRig`,
 * so the rig is up) and kills it after them.
 */
export function useListeningBot(env: () => Record<string, string>): ListeningBot {
  let spawned: { bot: BotProcess; url: string; events: string } | undefined;
  beforeAll(async () => {
    spawned = await spawnListeningBot(env());
  }, 30_000);
  afterAll(async () => {
    await spawned?.bot.stop('SIGKILL');
  });
  // Deliberately alike: vitest fills this in its hook after the suite is collected; the getters hand out what the hook made.
  const started = () => {
    if (!spawned) throw new Error('the bot is used before its beforeAll ran');
    return spawned;
  };
  return {
    get bot() {
      return started().bot;
    },
    get url() {
      return started().url;
    },
    get events() {
      return started().events;
    },
  };
}
