import { describe, expect, it } from 'vitest';
import {
  assessImpact,
  type BlastRadius,
  type ChangeRequest,
  DEFAULT_POLICY,
  evaluateChange,
  firstCommonOpening,
  isOpen,
  nextOpening,
  parsePolicy,
} from '../../src/policy/index.js';
import { WEEKNIGHT_WINDOWS } from '../helpers/policy-files.js';

const change = (tool: string, args: Record<string, unknown> = {}, requester = 'U0ALICE'): ChangeRequest => ({
  tool,
  args,
  requester,
  channel: 'C0OPS',
  face: 'slack',
});

const LOW: BlastRadius = assessImpact({});
const MEDIUM: BlastRadius = assessImpact({
  clients: { count: 3, names: ['cam-1', 'cam-2', 'tv'] },
  target: 'network IoT',
});
const HIGH: BlastRadius = assessImpact({
  selfLockout: 'the bot’s address 10.20.0.50 is in network IoT (10.20.0.1/24)',
});
// Monday 5 January 2026, 12:00 UTC.
const NOON = Date.UTC(2026, 0, 5, 12, 0, 0);

describe('risk from the blast radius', () => {
  it('is low with nothing affected, medium with clients, high with self-lockout (with the warning)', () => {
    expect(LOW.risk).toBe('low');
    expect(MEDIUM.risk).toBe('medium');
    expect(MEDIUM.reasons[0]).toBe('3 clients affected (cam-1, cam-2, tv)');
    expect(HIGH.risk).toBe('high');
    expect(HIGH.selfLockout).toBe(true);
    expect(HIGH.selfLockoutWarning).toMatch(/may cut the bot off from the controller/);
  });

  it('is high for 25 clients, 3 devices, or a delete that leaves references dangling', () => {
    expect(assessImpact({ clients: { count: 25, names: [] } }).risk).toBe('high');
    expect(assessImpact({ devices: { count: 3, names: [] } }).risk).toBe('high');
    expect(assessImpact({ devices: { count: 2, names: [] } }).risk).toBe('medium');
    const refs = [{ kind: 'firewall zone', name: 'IoT Devices', id: 'z1' }];
    expect(assessImpact({ references: refs, removes: true }).risk).toBe('high');
    expect(assessImpact({ references: refs }).risk).toBe('medium');
    expect(assessImpact({ removes: true }).risk).toBe('medium');
    expect(assessImpact({ unchecked: ['ACL rules: 403'] }).risk).toBe('medium');
  });
});

describe('the default policy (no POLICY_FILE)', () => {
  it('needs one approval, two for high risk, and nothing else', () => {
    expect(evaluateChange(DEFAULT_POLICY, change('update_network'), LOW, {}, NOON)).toMatchObject({
      approvals: 1,
      matched: [],
      risk: 'low',
    });
    const high = evaluateChange(DEFAULT_POLICY, change('delete_network'), HIGH, {}, NOON);
    expect(high.approvals).toBe(2);
    expect(high.deny).toBeUndefined();
    expect(high.window).toBeUndefined();
  });
});

// Deliberately alike: each suite's policy file is a literal a reader can check; the network rules recur on purpose.
const FILE = `
rules:
  - name: no-delete-with-clients
    when: tool == "delete_network" && blast_radius.clients.count > 0
    deny: Move the clients off the network first
  - name: two-for-networks
    when: tool.endsWith("_network")
    approvals: 2
  - name: three-for-iot
    when: has(target.name) && target.name == "IoT"
    approvals: 3
    approvers: [U0BOB, U0CAROL, S0NETADMIN]
  - name: netadmins
    when: tool == "update_network"
    approvers: [S0NETADMIN, U0CAROL]
  - name: revert-quick
    when: tool == "update_network"
    revert_after: 10m
  - name: revert-slow
    when: tool.startsWith("update")
    revert_after: 1h
  - name: zones-at-night
    when: tool.contains("zone")
    window: night
  - name: on-args
    when: args.vlan_id >= 4000
    deny: VLANs from 4000 are reserved
  - name: mcp-only-low
    when: face == "mcp" && risk != "low"
    deny: Assistants may only make low-risk changes
${WEEKNIGHT_WINDOWS}`;
const policy = parsePolicy(FILE, 'p.yaml');

describe('effects and strictest-wins', () => {
  it('deny: refuses with the rule and its reason, whatever else matches', () => {
    const d = evaluateChange(policy, change('delete_network'), MEDIUM, {}, NOON);
    expect(d.deny).toEqual({
      rule: 'no-delete-with-clients',
      reason: 'Move the clients off the network first',
    });
    expect(d.matched).toEqual(['no-delete-with-clients', 'two-for-networks']);
    expect(evaluateChange(policy, change('delete_network'), LOW, {}, NOON).deny).toBeUndefined();
  });

  it('approvals: the largest of the default and every matching rule', () => {
    expect(evaluateChange(policy, change('create_network'), LOW, {}, NOON).approvals).toBe(2);
    expect(evaluateChange(policy, change('create_network'), LOW, { name: 'IoT' }, NOON).approvals).toBe(3);
    // High risk (default 2) never lowers a rule's 3, and a rule's 2 does not lower high risk's 2.
    expect(evaluateChange(policy, change('create_network'), HIGH, { name: 'IoT' }, NOON).approvals).toBe(3);
  });

  it('approvers: lists are intersected; none in common is a refusal', () => {
    const d = evaluateChange(policy, change('update_network'), LOW, { name: 'IoT' }, NOON);
    expect(d.approvers).toEqual(['U0CAROL', 'S0NETADMIN']);
    const clash = parsePolicy(
      'rules:\n  - name: a\n    when: "true"\n    approvers: [U0BOB]\n  - name: b\n    when: "true"\n    approvers: [U0CAROL]\n',
      'c.yaml',
    );
    expect(evaluateChange(clash, change('x'), LOW, {}, NOON).deny?.reason).toMatch(
      /name no approver in common/,
    );
  });

  it('revert_after: the shortest of the matching rules, with the rule that set it', () => {
    expect(evaluateChange(policy, change('update_network'), LOW, {}, NOON)).toMatchObject({
      revertAfterSeconds: 600,
      revertAfterRule: 'revert-quick',
    });
    expect(evaluateChange(policy, change('update_zone'), LOW, {}, NOON)).toMatchObject({
      revertAfterSeconds: 3600,
      revertAfterRule: 'revert-slow',
    });
    expect(evaluateChange(policy, change('restart_device'), LOW, {}, NOON).revertAfterRule).toBeUndefined();
  });

  it('window: closed at noon, with the next opening at 22:00 Berlin time', () => {
    const d = evaluateChange(policy, change('delete_zone'), LOW, {}, NOON);
    expect(d.window).toMatchObject({ name: 'night', open: false, nextOpening: '2026-01-05T21:00:00.000Z' });
    const late = evaluateChange(policy, change('delete_zone'), LOW, {}, Date.UTC(2026, 0, 5, 23, 30));
    expect(late.window).toEqual({ name: 'night', names: ['night'], open: true });
  });

  it('conditions see args, face and risk; a rule that cannot be evaluated applies (fail closed)', () => {
    expect(
      evaluateChange(policy, change('create_network', { vlan_id: 4001 }), LOW, {}, NOON).deny?.rule,
    ).toBe('on-args');
    const mcp = { ...change('create_network'), face: 'mcp' };
    expect(evaluateChange(policy, mcp, MEDIUM, {}, NOON).deny?.rule).toBe('mcp-only-low');
    expect(evaluateChange(policy, mcp, LOW, {}, NOON).deny).toBeUndefined();
    const failing = parsePolicy(
      'rules:\n  - name: f\n    when: args.vlan_id > 10\n    approvals: 4\n',
      'f.yaml',
    );
    // A change without the key: the rule is not about it.
    expect(
      evaluateChange(failing, change('restart_device', { device_id: 'x' }), LOW, {}, NOON).approvals,
    ).toBe(1);
    // A value of another type than the rule expects: it applies.
    const d = evaluateChange(failing, change('create_network', { vlan_id: 'forty' }), LOW, {}, NOON);
    expect(d.approvals).toBe(4);
    expect(d.errors).toEqual([{ rule: 'f', message: expect.stringMatching(/no matching overload/) }]);
    expect(d.reasons.join('\n')).toContain('rule "f" could not be evaluated');
  });

  it('conditions see the requester and the channel', () => {
    const p = parsePolicy(
      'rules:\n  - name: interns\n    when: requester == "U0INTERN" || channel == "C0PLAY"\n    approvals: 2\n',
      'r.yaml',
    );
    expect(evaluateChange(p, change('x', {}, 'U0INTERN'), LOW, {}, NOON).approvals).toBe(2);
    expect(evaluateChange(p, { ...change('x'), channel: 'C0PLAY' }, LOW, {}, NOON).approvals).toBe(2);
    expect(evaluateChange(p, change('x'), LOW, {}, NOON).approvals).toBe(1);
  });

  it('conditions see the time in a time zone', () => {
    const p = parsePolicy(
      'rules:\n  - name: weekend\n    when: time.getDayOfWeek("Europe/Berlin") in [0, 6]\n    deny: No changes at the weekend\n',
      'w.yaml',
    );
    // Saturday 10 January 2026 00:30 in Berlin is still Friday in UTC.
    expect(evaluateChange(p, change('x'), LOW, {}, Date.UTC(2026, 0, 9, 23, 30)).deny?.rule).toBe('weekend');
    expect(evaluateChange(p, change('x'), LOW, {}, Date.UTC(2026, 0, 9, 22, 30)).deny).toBeUndefined();
  });
});

describe('windows and freezes', () => {
  it('a window past midnight is open after midnight and closed at its end', () => {
    const night = policy.windows.get('night');
    if (!night) throw new Error('no window');
    // Tuesday 01:59 Berlin (00:59Z) is inside Monday's opening; 02:00 Berlin is its end.
    expect(isOpen(night, Date.UTC(2026, 0, 6, 0, 59))).toBe(true);
    expect(isOpen(night, Date.UTC(2026, 0, 6, 1, 0))).toBe(false);
    // Saturday has no opening, and Friday's runs until Saturday 02:00.
    expect(isOpen(night, Date.UTC(2026, 0, 10, 0, 30))).toBe(true);
    expect(isOpen(night, Date.UTC(2026, 0, 10, 21, 30))).toBe(false);
    expect(new Date(nextOpening(night, Date.UTC(2026, 0, 10, 12)) ?? 0).toISOString()).toBe(
      '2026-01-12T21:00:00.000Z',
    );
  });

  it('follows the time zone across the DST change (09:00 Berlin is 08:00Z in March, 07:00Z after)', () => {
    const p = parsePolicy(
      'windows:\n  morning:\n    cron: "0 9 * * *"\n    duration: 1h\n    timezone: Europe/Berlin\n',
      'd.yaml',
    );
    const morning = p.windows.get('morning');
    if (!morning) throw new Error('no window');
    // Clocks go forward on Sunday 29 March 2026 at 02:00 local.
    expect(new Date(nextOpening(morning, Date.UTC(2026, 2, 28, 9)) ?? 0).toISOString()).toBe(
      '2026-03-29T07:00:00.000Z',
    );
    expect(new Date(nextOpening(morning, Date.UTC(2026, 2, 27, 9)) ?? 0).toISOString()).toBe(
      '2026-03-28T08:00:00.000Z',
    );
    expect(isOpen(morning, Date.UTC(2026, 2, 29, 7, 30))).toBe(true);
    expect(isOpen(morning, Date.UTC(2026, 2, 29, 8, 30))).toBe(false);
  });

  it('several windows must be open at once; windows that never overlap refuse the change', () => {
    const p = parsePolicy(
      `rules:
  - name: a
    when: "true"
    window: evenings
  - name: b
    when: "true"
    window: fridays
windows:
  evenings: { cron: "0 18 * * *", duration: 4h }
  fridays: { days: [fri], start: "20:00", end: "23:00" }
  mornings: { cron: "0 6 * * *", duration: 1h }
`,
      'm.yaml',
    );
    const d = evaluateChange(p, change('x'), LOW, {}, NOON);
    expect(d.window?.name).toBe('evenings + fridays');
    expect(d.window?.nextOpening).toBe('2026-01-09T20:00:00.000Z');
    const evenings = p.windows.get('evenings');
    const mornings = p.windows.get('mornings');
    if (!evenings || !mornings) throw new Error('no window');
    expect(firstCommonOpening([evenings, mornings], NOON)).toBeUndefined();
  });

  it('a freeze refuses writes while in force, or needs its approvers', () => {
    const p = parsePolicy(
      `rules:
  - name: r
    when: "true"
    approvers: [U0BOB, U0CAROL]
freezes:
  - name: year-end
    from: 2026-12-20T00:00:00+01:00
    to: 2027-01-04T00:00:00+01:00
    reason: Year-end freeze
  - name: audit
    from: 2026-06-01T00:00:00Z
    to: 2026-06-02T00:00:00Z
    reason: Audit day
    approvers: [U0CAROL, U0DAVE]
`,
      'f.yaml',
    );
    const inFreeze = evaluateChange(p, change('x'), LOW, {}, Date.UTC(2026, 11, 24));
    expect(inFreeze.deny).toEqual({
      rule: 'freeze: year-end',
      reason: 'Year-end freeze (frozen until 2027-01-03T23:00:00.000Z)',
    });
    // One millisecond before it starts and at its end, it is not in force.
    expect(
      evaluateChange(p, change('x'), LOW, {}, Date.UTC(2026, 11, 19, 22, 59, 59, 999)).deny,
    ).toBeUndefined();
    expect(evaluateChange(p, change('x'), LOW, {}, Date.UTC(2027, 0, 3, 23)).deny).toBeUndefined();
    const audit = evaluateChange(p, change('x'), LOW, {}, Date.UTC(2026, 5, 1, 12));
    expect(audit.deny).toBeUndefined();
    expect(audit.approvers).toEqual(['U0CAROL']);
  });
});
