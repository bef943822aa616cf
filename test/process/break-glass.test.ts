import { describe, expect, it } from 'vitest';
import { slackHttpEnv } from '../helpers/bot-process.js';
import { callText } from '../helpers/fake-slack.js';
import { writePolicyFile } from '../helpers/policy-files.js';
import { buttonsIn } from '../helpers/slack-buttons.js';
// Deliberately alike: the signed Slack request builders each policy process test drives the bot with.
import {
  buttonBody,
  commandBody,
  homeOpenedBody,
  slackHeaders,
  slackJsonHeaders,
} from '../helpers/slack-requests.js';
import { useListeningBot, useSlackRig } from '../helpers/slack-rig.js';

// Break-glass through the built bot: Rita may break glass (no approval needed), Stan reviews within
// two seconds; deleting Guest is denied whatever the terms.

const SECRET = 'break-glass-signing-secret';
const policyFile = writePolicyFile(
  'netops-break-glass-',
  `rules:
  - name: keep-guest
    when: tool == "delete_network" && has(target.name) && target.name == "Guest"
    deny: Guest stays
  - name: two-for-networks
    when: tool.endsWith("_network")
    approvals: 2
breakglass:
  allowed: [U0RITA]
  approvals: 0
  reviewers: [U0STAN]
  review_within: 2s
`,
);

describe('break-glass, as `node dist/main.js` serves it', () => {
  const rig = useSlackRig({ apiVersion: '9.0' });
  const served = useListeningBot(() => ({
    ...slackHttpEnv(rig.slack, SECRET, rig.sim),
    POLICY_FILE: policyFile,
    AUDIT_CHANNEL: 'CAUDIT',
  }));
  const post = (body: string, headers = slackHeaders(SECRET, body)) =>
    fetch(`${served.url}/slack/events`, { method: 'POST', headers, body });
  const audit = () => rig.slack.callsOf('chat.postMessage').filter((c) => c.args.channel === 'CAUDIT');
  const networkWrites = () =>
    rig.sim.requests.filter((r) => r.method !== 'GET' && r.route.includes('networkconf'));

  /** `/net <text>` as `user` in C1; resolves with the private answer. */
  async function net(text: string, user: string): Promise<string> {
    const responseUrl = rig.slack.responseUrl();
    expect(
      (await post(commandBody({ text, user_id: user, channel_id: 'C1', response_url: responseUrl }))).status,
    ).toBe(200);
    await rig.slack.waitFor(() => rig.slack.responses.some((r) => responseUrl.endsWith(r.path)), 20_000);
    const answer = rig.slack.responses.filter((r) => responseUrl.endsWith(r.path)).at(-1)?.body ?? {};
    return `${String(answer.text ?? '')} ${JSON.stringify(answer.blocks ?? [])}`;
  }

  async function openHome(user: string) {
    const publishes = () => rig.slack.callsOf('views.publish').filter((c) => c.args.user_id === user);
    const before = publishes().length;
    const body = homeOpenedBody(user);
    expect((await post(body, slackJsonHeaders(SECRET, body))).status).toBe(200);
    await rig.slack.waitFor(() => publishes().length > before, 10_000);
    return JSON.stringify(publishes().at(-1)?.args.view ?? {});
  }

  it('runs at once for a person the terms allow, and posts the alarm with the reason in the audit channel', async () => {
    const answer = await net(
      'breakglass create_network name=Hotfix vlan_id=71 subnet=10.71.0.0/24 reason="branch uplink down"',
      'U0RITA',
    );
    await rig.slack.waitFor(
      () => rig.sim.state.site('default')?.networks.some((n) => n.name === 'Hotfix') === true,
      20_000,
    );
    const alarm = audit().find((c) => callText(c).includes('Break-glass'));
    expect(callText(alarm)).toContain('branch uplink down');
    expect(callText(alarm)).toMatch(/runs on the requester's word/);
    expect(buttonsIn(alarm?.args.blocks).map((b) => b.action_id)).toEqual(['review_breakglass']);
    expect(answer).toMatch(/break-glass: runs now on your word; reviewed afterwards by <@U0STAN> within 2s/);
  });

  it('refuses anyone else and a denied change, and sends nothing', async () => {
    const before = networkWrites().length;
    const alex = await net(
      'breakglass create_network name=Other vlan_id=72 subnet=10.72.0.0/24 reason="me too"',
      'U0ALEX',
    );
    expect(alex).toMatch(/only the policy's breakglass: allowed \(<@U0RITA>\) may break glass/);
    const guest = await net('breakglass delete_network network_id=Guest reason="it is in the way"', 'U0RITA');
    expect(guest).toMatch(
      /break-glass never overrides a deny: refused by policy rule \\"keep-guest\\": Guest stays/,
    );
    expect(networkWrites().length).toBe(before);
  });

  it('shows the review overdue in the digest and on App Home until the reviewer clears it', async () => {
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await net('get_digest', 'U0STAN')).toMatch(/break_glass_reviews_overdue[\s\S]*branch uplink down/);
    const home = await openHome('U0STAN');
    expect(home).toContain('Break-glass reviews');
    expect(home).toMatch(/overdue/);

    const alarm = audit().find((c) => callText(c).includes('Break-glass'));
    const id = buttonsIn(alarm?.args.blocks)[0]?.value ?? '';
    const click = (user: string) =>
      post(
        buttonBody({
          actionId: 'review_breakglass',
          value: id,
          userId: user,
          channel: 'CAUDIT',
          response_url: rig.slack.responseUrl(),
        }),
      );
    await click('U0RITA');
    await click('U0STAN');
    await rig.slack.waitFor(
      () =>
        rig.slack
          .callsOf('chat.update')
          .some((c) => c.args.channel === 'CAUDIT' && callText(c).includes('Reviewed by')),
      10_000,
    );
    expect(rig.slack.callsOf('chat.update').filter((c) => callText(c).includes('Reviewed by'))).toHaveLength(
      1,
    );
    expect(await openHome('U0STAN')).not.toContain('Break-glass reviews');
    expect(await net('get_digest', 'U0STAN')).not.toContain('break_glass_reviews_overdue');
  });
});
