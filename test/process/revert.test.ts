import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type BotProcess, slackHttpEnv, spawnListeningBot, stopAllBots } from '../helpers/bot-process.js';
import { buttonsOf } from '../helpers/slack-buttons.js';
import { buttonBody, commandBody, slackHeaders } from '../helpers/slack-requests.js';
import { useSlackRig } from '../helpers/slack-rig.js';

// Networks serve as the sample write on their classic path (networkconf routes and faults): a 9.0
// console. Networks through the official API (10.1): tools/networks-official.test.ts.

// Reverting a change through the built program (`node dist/main.js`): a Slack-approved change, then its
// Revert button, leaves the simulator's records exactly as they were (whole records compared).

afterAll(stopAllBots);

const SECRET = 'revert-signing-secret';

describe('Revert over Slack HTTP, with the fake Slack', () => {
  const rig = useSlackRig({ apiVersion: '9.0' });
  let bot: BotProcess;
  let events: string;
  const post = (body: string) => fetch(events, { method: 'POST', headers: slackHeaders(SECRET, body), body });
  const previews = () => rig.slack.callsOf('chat.postMessage').filter((c) => !c.args.thread_ts);
  const results = () => rig.slack.callsOf('chat.postMessage').filter((c) => c.args.thread_ts);

  /** Posts `/net <text>` and returns the Approve button's request id of the preview it posts. */
  async function propose(text: string): Promise<string> {
    const before = previews().length;
    await post(commandBody({ text, user_id: 'U1', channel_id: 'C1', response_url: rig.slack.responseUrl() }));
    await rig.slack.waitFor(() => previews().length > before, 20_000);
    return buttonsOf(previews().at(-1)).find((b) => b.action_id === 'approve')?.value ?? '';
  }

  /** Approves as U2 and returns the result posted in the thread. */
  async function approve(id: string) {
    const before = results().length;
    await post(
      buttonBody({ actionId: 'approve', value: id, userId: 'U2', response_url: rig.slack.responseUrl() }),
    );
    await rig.slack.waitFor(() => results().length > before, 20_000);
    return results().at(-1);
  }

  /** Clicks Revert on a result, approves the undoing change, and returns its result. */
  async function revertFrom(result: ReturnType<typeof results>[number] | undefined) {
    const button = buttonsOf(result).find((b) => b.action_id === 'revert_change');
    expect(button).toBeDefined();
    const before = previews().length;
    await post(
      buttonBody({
        actionId: 'revert_change',
        value: button?.value ?? '',
        userId: 'U1',
        response_url: rig.slack.responseUrl(),
      }),
    );
    await rig.slack.waitFor(() => previews().length > before, 20_000);
    const id = buttonsOf(previews().at(-1)).find((b) => b.action_id === 'approve')?.value ?? '';
    return approve(id);
  }

  const networks = () => structuredClone(rig.sim.state.site('default')?.networks);
  const withoutIds = (records: unknown) =>
    (records as Record<string, unknown>[]).map(({ _id: _a, external_id: _b, ...rest }) => rest);

  beforeAll(async () => {
    ({ bot, events } = await spawnListeningBot(slackHttpEnv(rig.slack, SECRET, rig.sim)));
  });
  afterAll(async () => {
    await bot?.stop('SIGKILL');
  });
  beforeEach(() => rig.sim.clearFaults());

  it('an update, reverted: every network record is as before', async () => {
    const start = networks();
    const result = await approve(
      await propose('update_network network_id=IoT vlan_id=24 subnet=10.24.0.0/24 name=Things'),
    );
    expect(JSON.stringify(result?.args)).toContain('Verified');
    expect(networks()).not.toEqual(start);
    const reverted = await revertFrom(result);
    expect(JSON.stringify(reverted?.args)).toContain('Verified');
    expect(networks()).toEqual(start);
  }, 90_000);

  it('a create, reverted: the created network is gone, every record as before', async () => {
    const start = networks();
    const result = await approve(await propose('create_network name=Lab vlan_id=44 subnet=10.44.0.0/24'));
    expect(networks()?.some((n) => n.name === 'Lab')).toBe(true);
    await revertFrom(result);
    expect(networks()).toEqual(start);
  }, 90_000);

  it('a delete, reverted: re-created whole (a new id); the controller told to store a field differently is reported', async () => {
    await approve(
      await propose('create_network name=Lab2 vlan_id=45 subnet=10.45.0.0/24 dhcp_dns_1=9.9.9.9'),
    );
    const start = networks();
    const deleted = await approve(await propose('delete_network network_id=Lab2'));
    expect(networks()?.some((n) => n.name === 'Lab2')).toBe(false);
    await revertFrom(deleted);
    expect(withoutIds(networks())).toEqual(withoutIds(start));

    rig.sim.injectFault({ kind: 'store-as', method: 'PUT', route: 'rest/networkconf', set: { vlan: 2 } });
    const skewed = await approve(await propose('update_network network_id=Lab2 vlan_id=46'));
    expect(JSON.stringify(skewed?.args)).toContain('sent vlan 46, controller holds 2');
  }, 90_000);
});
