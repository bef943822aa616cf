import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BOT_DATA_FILE } from '../../src/store/file/file-store.js';
import { slackHttpEnv } from '../helpers/bot-process.js';
import { callText } from '../helpers/fake-slack.js';
import { writePolicyFile } from '../helpers/policy-files.js';
import { buttonsIn, clickApprove, proposeInC1 } from '../helpers/slack-buttons.js';
import { buttonBody, slackHeaders } from '../helpers/slack-requests.js';
import { useListeningBot, useSlackRig } from '../helpers/slack-rig.js';

// A change that needs two of the approvers a rule names: each gets the preview in a direct message,
// and every copy says the same thing after each of them acts.

const SECRET = 'approver-copies-signing-secret';
const policyFile = writePolicyFile(
  'netops-approver-copies-',
  `rules:
  - name: network-leads
    when: tool.endsWith("_network")
    approvals: 2
    approvers: [U0BOB, U0CAROL, U0RITA]
`,
);

describe('named approvers get their own copy, and every copy follows the change', () => {
  const rig = useSlackRig({ apiVersion: '9.0' });
  const served = useListeningBot(() => ({
    ...slackHttpEnv(rig.slack, SECRET, rig.sim),
    POLICY_FILE: policyFile,
  }));
  const post = (body: string) =>
    fetch(served.events, { method: 'POST', headers: slackHeaders(SECRET, body), body });
  const dmsTo = (user: string) =>
    rig.slack.callsOf('chat.postMessage').filter((c) => c.args.channel === user);
  const updatesOf = (channel: string) =>
    rig.slack.callsOf('chat.update').filter((c) => c.args.channel === channel);

  it('sends each named approver but the requester the preview with its buttons, and edits every copy as they approve', async () => {
    const id = await proposeInC1(
      rig.slack,
      post,
      'create_network name=Leads vlan_id=81 subnet=10.81.0.0/24',
      'U0RITA',
    );
    await rig.slack.waitFor(() => dmsTo('U0BOB').length > 0 && dmsTo('U0CAROL').length > 0, 10_000);
    // Kept in the bot's data while the change is open, so any replica can edit them.
    const botData = () => {
      try {
        return readFileSync(join(served.bot.dataDir, BOT_DATA_FILE), 'utf8');
      } catch {
        return '';
      }
    };
    await rig.slack.waitFor(() => botData().includes(`approver-copies:${id}`), 10_000);
    // Rita asked for it: no copy for the requester.
    expect(dmsTo('U0RITA')).toEqual([]);
    for (const user of ['U0BOB', 'U0CAROL']) {
      const copy = dmsTo(user).at(-1);
      expect(buttonsIn(copy?.args.blocks).find((b) => b.action_id === 'approve')?.value).toBe(id);
      expect(callText(copy)).toContain('0 of 2 approvals');
    }

    // Bob approves from his copy: the channel's message and both copies show "1 of 2".
    await post(
      buttonBody({
        actionId: 'approve',
        value: id,
        userId: 'U0BOB',
        channel: 'U0BOB',
        response_url: rig.slack.responseUrl(),
      }),
    );
    for (const channel of ['C1', 'U0BOB', 'U0CAROL']) {
      await rig.slack.waitFor(
        () => updatesOf(channel).some((c) => callText(c).includes('1 of 2 approvals')),
        10_000,
      );
    }
    expect(callText(updatesOf('U0CAROL').at(-1))).toMatch(/approved by .*u0bob|approved by .*U0BOB/);

    // Carol approves in the channel: it runs, and every copy shows it done, without buttons.
    await clickApprove(rig.slack, post, id, 'U0CAROL');
    await rig.slack.waitFor(
      () => rig.sim.state.site('default')?.networks.some((n) => n.name === 'Leads') === true,
      20_000,
    );
    for (const channel of ['U0BOB', 'U0CAROL']) {
      await rig.slack.waitFor(
        () => updatesOf(channel).some((c) => callText(c).includes('2 of 2 approvals')),
        10_000,
      );
      const last = updatesOf(channel).at(-1);
      expect(buttonsIn(last?.args.blocks).some((b) => b.action_id === 'approve')).toBe(false);
    }
    // Done for good: the copies are no longer kept in the bot's data.
    await rig.slack.waitFor(() => !botData().includes(`approver-copies:${id}`), 10_000);
  });
});
