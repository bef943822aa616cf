import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PagerDutyOnCall } from '../../src/approvals/oncall.js';
import { silentLogger } from '../../src/log.js';
import { parsePolicy } from '../../src/policy/index.js';
import { policyWith } from './harness.js';

// A PagerDuty stand-in: schedule PSCHED has Bob and Dora on call; Dora has no Slack account.
const requests: { path: string; auth: string | undefined }[] = [];
let failing = false;
let server: Server;
let apiUrl = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push({ path: req.url ?? '', auth: req.headers.authorization });
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (failing) return json(503, { error: 'down' });
    if (url.pathname === '/oncalls' && url.searchParams.get('schedule_ids[]') === 'PSCHED')
      return json(200, {
        oncalls: [{ user: { id: 'PBOB' } }, { user: { id: 'PDORA' } }, { user: { id: 'PBOB' } }],
      });
    if (url.pathname === '/users/PBOB') return json(200, { user: { email: 'bob@example.net' } });
    if (url.pathname === '/users/PDORA') return json(200, { user: { email: 'dora@example.net' } });
    return json(404, { error: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const SLACK_USERS: Record<string, string> = { 'bob@example.net': 'U0BOB' };

function onCall(now: () => number) {
  return new PagerDutyOnCall({
    apiUrl,
    token: 'pagerduty-test-token-0123',
    slackUserByEmail: async (email) => SLACK_USERS[email],
    logger: silentLogger(),
    now,
  });
}

describe('approvers on call', () => {
  it('reads who is on call in a schedule as Slack users, by email, once a minute', async () => {
    let t = 0;
    const pagerDuty = onCall(() => t);
    requests.length = 0;
    expect(await pagerDuty.members('PSCHED')).toEqual(['U0BOB']);
    expect(requests.map((r) => r.path.split('?')[0])).toEqual(['/oncalls', '/users/PBOB', '/users/PDORA']);
    expect(requests[0]?.auth).toBe('Token token=pagerduty-test-token-0123');
    t = 59_000;
    await pagerDuty.members('PSCHED');
    expect(requests).toHaveLength(3);
    t = 61_000;
    await pagerDuty.members('PSCHED');
    expect(requests).toHaveLength(6);
  });

  it('lets the person on call approve, and refuses everyone else, naming the schedule', async () => {
    const pagerDuty = onCall(() => 0);
    const people = policyWith({ onCallMembers: (schedule) => pagerDuty.members(schedule) });
    expect(
      await people.canApproveAs({ userId: 'U0BOB' }, ['oncall:PSCHED'], 'the approvers the policy names'),
    ).toEqual({ ok: true });
    const carol = await people.canApproveAs(
      { userId: 'U0CAROL' },
      ['oncall:PSCHED'],
      'the approvers the policy names',
    );
    expect(carol).toEqual({
      ok: false,
      reason: 'only the approvers the policy names (whoever is on call in PSCHED) may approve this change',
    });
  });

  it('refuses, saying the schedule could not be read, when PagerDuty fails or is not configured', async () => {
    failing = true;
    try {
      const people = policyWith({ onCallMembers: (schedule) => onCall(() => 0).members(schedule) });
      const refused = await people.canApproveAs(
        { userId: 'U0BOB' },
        ['oncall:PSCHED'],
        'the approvers the policy names',
      );
      expect(refused.ok).toBe(false);
      if (!refused.ok)
        expect(refused.reason).toMatch(
          /membership of whoever is on call in PSCHED could not be checked right now/,
        );
    } finally {
      failing = false;
    }
    const unconfigured = await policyWith().canApproveAs(
      { userId: 'U0BOB' },
      ['oncall:PSCHED'],
      'the approvers the policy names',
    );
    expect(unconfigured.ok).toBe(false);
  });

  it('is a rule approver the policy file takes, and nothing else shaped like it', () => {
    const policy = parsePolicy(
      'rules:\n  - name: nights\n    when: "true"\n    approvers: [oncall:PSCHED, U0CAROL]\n',
      'p.yaml',
    );
    expect(policy.rules[0]?.approvers).toEqual(['oncall:PSCHED', 'U0CAROL']);
    expect(() =>
      parsePolicy('rules:\n  - name: x\n    when: "true"\n    approvers: [oncall:]\n', 'p.yaml'),
    ).toThrow(/user-group id \(S…\) or oncall:</);
  });
});
