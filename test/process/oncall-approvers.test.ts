import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slackHttpEnv } from '../helpers/bot-process.js';
import { callText } from '../helpers/fake-slack.js';
import { writePolicyFile } from '../helpers/policy-files.js';
import { clickApprove, proposeInC1 } from '../helpers/slack-buttons.js';
import { slackHeaders } from '../helpers/slack-requests.js';
import { useListeningBot, useSlackRig } from '../helpers/slack-rig.js';

// A rule whose approver is whoever is on call in a PagerDuty schedule, through the built bot: the
// person on call (found in Slack by email) approves; someone else, or anyone while PagerDuty is
// down, is refused with why.

const SECRET = 'oncall-approvers-signing-secret';
const policyFile = writePolicyFile(
  'netops-oncall-',
  'rules:\n  - name: on-call-approves\n    when: tool.endsWith("_network")\n    approvers: [oncall:PNIGHTS]\n',
);

let pagerDuty: Server;
let pagerDutyUrl = '';
let pagerDutyDown = false;

beforeAll(async () => {
  pagerDuty = createServer((req, res) => {
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (pagerDutyDown) return json(503, {});
    if (req.headers.authorization !== 'Token token=pagerduty-process-token') return json(401, {});
    if (req.url?.startsWith('/oncalls?')) return json(200, { oncalls: [{ user: { id: 'PBOB' } }] });
    if (req.url === '/users/PBOB') return json(200, { user: { email: 'bob@example.net' } });
    return json(404, {});
  });
  await new Promise<void>((resolve) => pagerDuty.listen(0, '127.0.0.1', resolve));
  pagerDutyUrl = `http://127.0.0.1:${(pagerDuty.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => pagerDuty.close(() => resolve())));

describe('approvers on call, as `node dist/main.js` serves them', () => {
  const rig = useSlackRig({ apiVersion: '9.0' });
  // Installed before on-call approvers existed: the token holds users:read but not the email scope.
  beforeAll(() => {
    rig.slack.scopes = ['commands', 'chat:write', 'files:write', 'usergroups:read', 'users:read'];
  });
  const served = useListeningBot(() => ({
    ...slackHttpEnv(rig.slack, SECRET, rig.sim),
    POLICY_FILE: policyFile,
    PAGERDUTY_TOKEN: 'pagerduty-process-token',
    PAGERDUTY_API_URL: pagerDutyUrl,
  }));
  const post = (body: string) =>
    fetch(served.events, { method: 'POST', headers: slackHeaders(SECRET, body), body });
  const lastAnswer = () => JSON.stringify(rig.slack.responses.at(-1)?.body ?? {});

  it('says at start which scope the app lacks for on-call approvers, and how to get it', async () => {
    await rig.slack.waitFor(
      () => served.bot.logs().some((l) => l.msg === 'SLACK_BOT_TOKEN verified (auth.test)'),
      10_000,
    );
    const warnings = served.bot.logs().filter((l) => l.level === 40 && String(l.msg).includes('scope'));
    expect(warnings.map((l) => l.msg)).toEqual([
      "the Slack app's token lacks the users:read.email scope, which on-call approvers (PAGERDUTY_TOKEN) needs: add it (manifest.yml lists it) and reinstall the app",
    ]);
    rig.slack.scopes = undefined;
  });

  it('refuses while PagerDuty cannot say, then lets only the person on call approve', async () => {
    rig.slack.userEmails.U0BOB = 'bob@example.net';
    const id = await proposeInC1(
      rig.slack,
      post,
      'create_network name=Night vlan_id=83 subnet=10.83.0.0/24',
      'U0RITA',
    );
    const preview = rig.slack.callsOf('chat.postMessage').find((c) => callText(c).includes(id));
    expect(callText(preview)).toContain('whoever is on call in `PNIGHTS`');
    const click = async (user: string) => {
      const answers = rig.slack.responses.length;
      await clickApprove(rig.slack, post, id, user);
      await rig.slack.waitFor(() => rig.slack.responses.length > answers, 10_000);
      return lastAnswer();
    };

    // PagerDuty down: even the person on call is refused, and told the schedule could not be checked.
    pagerDutyDown = true;
    expect(await click('U0BOB')).toMatch(
      /membership of whoever is on call in PNIGHTS could not be checked right now/,
    );
    pagerDutyDown = false;
    // A failed lookup is not kept: the next click asks again. Carol is not on call.
    expect(await click('U0CAROL')).toMatch(/\(whoever is on call in PNIGHTS\) may approve this change"/);
    expect(rig.sim.state.site('default')?.networks.some((n) => n.name === 'Night')).toBe(false);

    await clickApprove(rig.slack, post, id, 'U0BOB');
    await rig.slack.waitFor(
      () => rig.sim.state.site('default')?.networks.some((n) => n.name === 'Night') === true,
      20_000,
    );
  });
});
