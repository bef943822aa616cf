import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type SlackBot, startSlackBot } from '../helpers/slack-bot.js';
import { buttonsOf } from '../helpers/slack-buttons.js';
import { buttonBody } from '../helpers/slack-requests.js';

let bot: SlackBot;

const threadPosts = () => bot.slack.callsOf('chat.postMessage').filter((c) => c.args.thread_ts);
const previews = () => bot.slack.callsOf('chat.postMessage').filter((c) => !c.args.thread_ts);
const answersTo = (url: string) => bot.slack.responses.filter((r) => url.endsWith(r.path));
const textOf = (call: { args: Record<string, unknown> } | undefined) => JSON.stringify(call?.args ?? {});

async function approve(id: string) {
  const before = threadPosts().length;
  await bot.click('approve', id, 'U0ALEX');
  await bot.slack.waitFor(() => threadPosts().length > before, 15_000);
  return threadPosts().at(-1);
}

beforeAll(async () => {
  // Networks serve as the sample here on their classic path (networkconf, its faults and stored
  // fields): a 9.0 console. The official path (10.1): tools/networks-official.test.ts.
  bot = await startSlackBot({ simulator: { apiVersion: '9.0' }, env: { APPROVERS: 'U0ALEX' } });
});
afterAll(async () => {
  await bot.close();
});
beforeEach(() => {
  bot.sim.reset();
  bot.sim.clearFaults();
});

describe('Slack: verification and Revert', () => {
  it('the result in the thread says verified and carries Revert; the click posts an undoing preview that restores the record', async () => {
    const start = structuredClone(bot.sim.state.site('default')?.networks);
    const { id } = await bot.propose('update_network network_id=IoT vlan_id=27 name=Things');
    const result = await approve(id);
    expect(textOf(result)).toContain('Verified');
    const revert = buttonsOf(result).find((b) => b.action_id === 'revert_change');
    expect(revert?.value).toBe(id);

    const before = previews().length;
    await bot.post(
      buttonBody({
        actionId: 'revert_change',
        value: id,
        userId: 'U1',
        response_url: bot.slack.responseUrl(),
      }),
    );
    await bot.slack
      .waitFor(() => previews().length > before, 15_000)
      .catch(() => {
        throw new Error(JSON.stringify(bot.slack.responses.slice(-2)));
      });
    const preview = previews().at(-1);
    expect(textOf(preview)).toContain(`revert_of`);
    const revertId = buttonsOf(preview).find((b) => b.action_id === 'approve')?.value ?? '';
    expect(revertId).not.toBe(id);
    await approve(revertId);
    expect(bot.sim.state.site('default')?.networks).toEqual(start);
  });

  it('says "applied, not as sent" with the field, and a restart offers no Revert but the reason', async () => {
    bot.sim.injectFault({ kind: 'store-as', method: 'PUT', route: 'rest/networkconf', set: { vlan: 2 } });
    const { id } = await bot.propose('update_network network_id=Guest vlan_id=33');
    const result = await approve(id);
    expect(textOf(result)).toContain('Applied, not as sent');
    expect(textOf(result)).toContain('sent vlan 33, controller holds 2');

    const restart = await bot.propose('restart_device device_id="Media Cabinet Flex"');
    const restarted = await approve(restart.id);
    expect(buttonsOf(restarted).some((b) => b.action_id === 'revert_change')).toBe(false);
    expect(textOf(restarted)).toContain('Cannot be reverted: a restart cannot be taken back');
  });

  it('/net revert <id> proposes the revert; /net change <id> shows verification and Revert; a no-op update proposes nothing', async () => {
    const { id } = await bot.propose('update_network network_id=Cameras dhcp_dns_1=1.1.1.1');
    await approve(id);
    const shown = await bot.command(`change ${id}`);
    await bot.slack.waitFor(() => answersTo(shown.responseUrl).length > 0, 15_000);
    const detail = JSON.stringify(answersTo(shown.responseUrl));
    expect(detail).toContain('Verified');
    expect(detail).toContain('dhcpd_dns_1: 9.9.9.9 → 1.1.1.1');
    expect(detail).toContain('revert_change');

    const before = previews().length;
    await bot.command(`revert ${id}`);
    await bot.slack.waitFor(() => previews().length > before, 15_000);
    expect(textOf(previews().at(-1))).toContain('dhcp_dns_1');

    const count = previews().length;
    const noop = await bot.command('update_network network_id=IoT vlan_id=20');
    await bot.slack.waitFor(() => answersTo(noop.responseUrl).length > 0, 15_000);
    expect(JSON.stringify(answersTo(noop.responseUrl))).toContain('nothing to change');
    expect(previews().length).toBe(count);
  });

  it('revert_after is shown on the preview and stored on the request', async () => {
    const { id } = await bot.propose('update_network network_id=IoT name=Sensors revert_after=5m');
    expect(textOf(previews().at(-1))).toContain('reverts by itself 5m after it runs');
    expect((await bot.approvals.get(id))?.revertAfterSeconds).toBe(300);
  });
});
