import { afterEach, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/gateway/types.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { takeDeviceDown } from '../../src/simulator/scenario-controls.js';
import type { Watcher } from '../../src/watch/index.js';
import type { Incident, WatchNotifier } from '../../src/watch/types.js';
import { testGateway } from '../helpers/test-gateway.js';
import { testWatcher } from './watcher-harness.js';

// An alert is visible in Slack as soon as it is posted, before the poll that posted it has recorded
// its message: an Acknowledge clicked in that moment must still be shown on the message (the
// built program lost it under load: test/process/watch-socket-mode.test.ts).

let sim: Simulator | undefined;
let gateway: Gateway | undefined;
afterEach(async () => {
  await gateway?.close();
  await sim?.close();
  sim = gateway = undefined;
});

describe('Acknowledge clicked the moment an alert appears', () => {
  it.each([
    ['before the poll records the message', 'during-post'],
    ['right after it', 'after-post'],
  ])('%s: the message is edited to show who acknowledged, once the message is known', async (_, when) => {
    sim = await startSimulator();
    gateway = testGateway(sim);
    const edits: Incident[] = [];
    let watcher: Watcher | undefined;
    let clicked: Promise<unknown> | undefined;
    const notifier: WatchNotifier = {
      postIncident: async (_channel, incident) => {
        const ref = { channel: 'C9ALERTS', ts: `17000000${incident.id.length}.000100` };
        // The person clicks while the poll has not yet recorded the message.
        if (incident.subject.includes('Living Room AP')) {
          const click = () => watcher?.acknowledge(incident.id, { userId: 'U7' });
          if (when === 'during-post') await click();
          else clicked = new Promise((r) => setImmediate(r)).then(click);
        }
        return ref;
      },
      updateIncident: async (incident) => {
        edits.push(structuredClone(incident));
      },
      postDrift: async () => undefined,
      updateDrift: async () => undefined,
      postDigest: async () => undefined,
      postAlarmSummary: async () => undefined,
    };
    watcher = testWatcher(gateway, notifier).watcher;
    await watcher.poll();
    takeDeviceDown(sim.state, 'Living Room AP');

    await watcher.poll();
    await clicked;

    const shown = edits.filter(
      (e) => e.subject.includes('Living Room AP') && e.acknowledgedBy?.userId === 'U7',
    );
    expect(shown.length).toBeGreaterThanOrEqual(1);
    expect(shown.at(-1)?.message).toBeDefined();
  });
});
