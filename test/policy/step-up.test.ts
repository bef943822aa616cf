import { describe, expect, it } from 'vitest';
import { assessImpact, evaluateChange, parsePolicy } from '../../src/policy/index.js';
import type { Policy } from '../../src/policy/policy.js';
import { PolicyFileError } from '../../src/policy/policy-error.js';
import type { BlastRadius } from '../../src/policy/types.js';
import { openGate } from './open-gate.js';

// `step_up`: which changes ask the approver to sign in at the identity provider, and what the gate
// answers an approval of one with and without that sign-in.

const CHANGE = {
  tool: 'create_network',
  args: { name: 'Lab' },
  requester: 'U0RITA',
  channel: 'C0OPS',
  face: 'slack',
};
const low = assessImpact({});
const high: BlastRadius = { ...low, risk: 'high' };
const withIdp = (policy: Policy): Policy => ({ ...policy, identityProvider: true });
const stepUpOf = (policy: Policy, impact: BlastRadius) =>
  evaluateChange(policy, CHANGE, impact, {}, 0).stepUp;

describe('step_up in the policy', () => {
  const rule = parsePolicy(
    'rules:\n  - name: networks\n    when: tool.endsWith("_network")\n    step_up: true\n',
    'p.yaml',
  );
  const waived = parsePolicy(
    'rules:\n  - name: lab-ok\n    when: args.name == "Lab"\n    step_up: false\n',
    'p.yaml',
  );
  const none = parsePolicy('', 'p.yaml');

  it('reads step_up as a rule effect and refuses anything but true or false', () => {
    expect(rule.rules[0]?.stepUp).toBe(true);
    expect(() =>
      parsePolicy('rules:\n  - name: x\n    when: "true"\n    step_up: "yes"\n', 'p.yaml'),
    ).toThrow(/step_up must be true or false/);
  });

  it('asks for it when a matching rule says so, whatever the risk', () => {
    expect(stepUpOf(rule, low)).toBe('rule "networks"');
    expect(evaluateChange(rule, CHANGE, low, {}, 0).reasons).toContain(
      'step-up sign-in required (rule "networks")',
    );
  });

  it('asks for it on high risk only when an identity provider is configured, unless a rule waives it', () => {
    expect(stepUpOf(none, high)).toBeUndefined();
    expect(stepUpOf(withIdp(none), high)).toBe('high risk');
    expect(stepUpOf(withIdp(none), low)).toBeUndefined();
    expect(stepUpOf(withIdp(waived), high)).toBeUndefined();
  });
});

describe('the gate on a change that needs step-up sign-in', () => {
  const gate = openGate();
  const policy = withIdp(parsePolicy('', 'p.yaml'));
  const decision = { ...evaluateChange(policy, CHANGE, high, {}, 0), approvals: 1 };
  const change = { requester: { userId: 'U0RITA' }, channel: 'C0OPS' };
  const identity = { issuer: 'https://idp.example', subject: 'carol', email: 'carol@example.com' };
  /** The gate's verdict on a Slack approval of `change` by `actor`. */
  const approveInSlack = (actor: { userId: string; identity?: typeof identity }) =>
    gate.decide({ action: 'approve', face: 'slack', actor, change, decision });

  it('does not count a bare click: it answers with the sign-in it needs', async () => {
    const verdict = await approveInSlack({ userId: 'U0CAROL' });
    expect(verdict).toMatchObject({ verdict: 'refuse', stepUp: 'high risk' });
  });

  it('allows the same approval once the approver signed in', async () => {
    const verdict = await approveInSlack({ userId: 'U0CAROL', identity });
    expect(verdict).toEqual({ verdict: 'allow', needed: 1, notes: [] });
  });

  it('still refuses the requester, who needs no sign-in link to be told no', async () => {
    const verdict = await approveInSlack({ userId: 'U0RITA', identity });
    expect(verdict.verdict).toBe('refuse');
    expect(verdict).not.toHaveProperty('stepUp');
  });

  it("refuses the console's own confirmation, which no identity provider backs", async () => {
    const verdict = await gate.decide({
      action: 'confirm',
      face: 'console',
      actor: { userId: 'console:rita' },
      change: { requester: { userId: 'console:rita' } },
      decision: {
        ...evaluateChange(policy, { ...CHANGE, requester: 'console:rita', face: 'console' }, high, {}, 0),
        approvals: 1,
      },
    });
    expect(verdict).toMatchObject({
      verdict: 'refuse',
      reason: expect.stringMatching(/step-up sign-in, high risk/),
    });
  });
});

describe('a policy asking step_up without an identity provider', () => {
  it('stops the bot at start, naming the rule', async () => {
    const { loadPolicy } = await import('../../src/policy-startup.js');
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const file = join(mkdtempSync(join(tmpdir(), 'netops-step-up-policy-')), 'policy.yaml');
    writeFileSync(file, 'rules:\n  - name: networks\n    when: "true"\n    step_up: true\n');
    const error = await loadPolicy({ policy: { file } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PolicyFileError);
    expect(String((error as Error).message)).toMatch(/rule "networks": step_up needs an identity provider/);
    const loaded = await loadPolicy({
      policy: { file },
      identity: {
        issuer: 'https://idp.example',
        clientId: 'netops',
        clientSecret: 's',
        redirectUri: 'https://bot.example/oidc/callback',
        insecure: false,
        linkSeconds: 300,
        maxAgeSeconds: 300,
      },
    });
    expect(loaded.identityProvider).toBe(true);
  });
});
