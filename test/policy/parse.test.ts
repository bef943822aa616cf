import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { PolicyFileError, parsePolicy } from '../../src/policy/index.js';
import { WEEKNIGHT_WINDOWS } from '../helpers/policy-files.js';

function problem(text: string): PolicyFileError {
  try {
    parsePolicy(text, 'policy.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(PolicyFileError);
    return error as PolicyFileError;
  }
  throw new Error('expected a PolicyFileError');
}

const GOOD = `version: 1
defaults:
  approvals: 1
  high_risk_approvals: 3
rules:
  - name: no-delete-with-clients
    when: tool == "delete_network" && blast_radius.clients.count > 0
    deny: Move the clients first
  - name: firewall-at-night
    when: tool.startsWith("update_firewall") || tool.startsWith("create_firewall")
    window: night
    revert_after: 30m
${WEEKNIGHT_WINDOWS}  sunday:
    cron: "0 6 * * 0"
    duration: 2h
freezes:
  - name: year-end
    from: 2026-12-20T00:00:00+01:00
    to: 2027-01-04T00:00:00+01:00
    reason: Year-end freeze
`;

describe('policy file parsing', () => {
  it('reads rules, windows, freezes and defaults', () => {
    const policy = parsePolicy(GOOD, 'policy.yaml');
    expect(policy.rules.map((r) => r.name)).toEqual(['no-delete-with-clients', 'firewall-at-night']);
    expect(policy.rules[0]?.line).toBe(6);
    expect(policy.rules[1]?.revertAfterSeconds).toBe(1800);
    expect(policy.defaults).toEqual({
      approvals: 1,
      highRiskApprovals: 3,
      selfConfirm: ['console', 'mcp'],
    });
    const night = policy.windows.get('night');
    expect(night?.cron).toBe('0 22 * * 1,2,3,4,5');
    expect(night?.durationSeconds).toBe(4 * 3600);
    expect(policy.windows.get('sunday')?.timezone).toBe('UTC');
    expect(policy.freezes[0]).toMatchObject({ name: 'year-end', reason: 'Year-end freeze' });
    expect(policy.freezes[0]?.from).toBe(Date.parse('2026-12-19T23:00:00Z'));
  });

  it('an empty file is the default behaviour', () => {
    const policy = parsePolicy('', 'empty.yaml');
    expect(policy.rules).toEqual([]);
    expect(policy.defaults).toEqual({
      approvals: 1,
      highRiskApprovals: 2,
      selfConfirm: ['console', 'mcp'],
    });
  });

  it('reads self_confirm in the defaults and in rules', () => {
    const policy = parsePolicy(
      'defaults:\n  self_confirm: [console]\nrules:\n  - name: no-console-firewall\n    when: face == "console" && tool.contains("firewall")\n    self_confirm: false\n',
      'faces.yaml',
    );
    expect(policy.defaults.selfConfirm).toEqual(['console']);
    expect(policy.rules[0]?.selfConfirm).toBe(false);
    expect(problem('defaults:\n  self_confirm: [slack]\n').message).toMatch(
      /self_confirm must be one of console, mcp/,
    );
  });

  it('names the line of YAML that does not parse', () => {
    const error = problem('rules:\n  - name: a\n    when: "true\n  deny: [x\n');
    expect(error.line).toBeGreaterThanOrEqual(3);
    expect(error.message).toMatch(/POLICY_FILE: policy\.yaml:\d+: is not valid YAML/);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.code).toBe('config_invalid');
  });

  it('names the line and rule of a condition that does not parse', () => {
    const error = problem(
      'rules:\n  - name: ok\n    when: risk == "high"\n    approvals: 2\n  - name: broken\n    when: tool ==\n    approvals: 2\n',
    );
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatchObject({ line: 6, rule: 'broken' });
    expect(error.message).toContain('policy.yaml:6: rule "broken": when does not parse');
  });

  it('names the line and rule of a condition that does not type-check, even behind a false branch', () => {
    const error = problem('rules:\n  - name: typo\n    when: false && risk > 3\n    approvals: 2\n');
    expect(error.message).toContain('policy.yaml:3: rule "typo": when does not type-check');
    expect(error.message).toMatch(/no matching overload/);
    expect(error.message).toContain('(column 14 of the condition)');
  });

  it('refuses an undeclared variable and a condition that is not true or false', () => {
    const unknown = problem('rules:\n  - name: u\n    when: toool == "x"\n    approvals: 2\n');
    expect(unknown.message).toMatch(/rule "u": when does not type-check: unresolved attribute/);
    const notBool = problem('rules:\n  - name: s\n    when: risk\n    approvals: 2\n');
    expect(notBool.message).toContain('rule "s": when must be true or false, but gives string');
  });

  it('accepts conditions on args keys a tool may not have (has() or a missing key is not a type error)', () => {
    const policy = parsePolicy(
      'rules:\n  - name: vlan\n    when: has(args.vlan_id) && args.vlan_id < 10\n    approvals: 2\n  - name: name\n    when: args.name.startsWith("prod")\n    approvals: 2\n',
      'p.yaml',
    );
    expect(policy.rules).toHaveLength(2);
  });

  it('names the field and line of schema problems', () => {
    const error = problem('rules:\n  - name: a\n    when: "true"\n    approvals: 11\n');
    expect(error.message).toContain('policy.yaml:4: rule "a": approvals must be a whole number from 1 to 10');
    const noEffect = problem('rules:\n  - name: a\n    when: "true"\n');
    expect(noEffect.message).toContain('needs an effect');
    const extra = problem(
      'rules:\n  - name: a\n    when: "true"\n    approvals: 2\n    aproovers: [U1234]\n',
    );
    expect(extra.message).toMatch(/policy\.yaml:2: rule "a": .*aproovers/);
  });

  it('refuses an unknown window, a bad cron, a bad time zone, a duplicate rule and a backwards freeze', () => {
    expect(problem('rules:\n  - name: a\n    when: "true"\n    window: nope\n').message).toContain(
      'policy.yaml:4: rule "a": window "nope" is not defined under windows',
    );
    expect(problem('windows:\n  w:\n    cron: "61 * * * *"\n    duration: 1h\n').message).toMatch(
      /policy\.yaml:3: window "w": cron is not a cron pattern/,
    );
    expect(
      problem('windows:\n  w:\n    cron: "0 1 * * *"\n    duration: 1h\n    timezone: Mars/Base\n').message,
    ).toContain('policy.yaml:5: windows.w.timezone must be a time zone');
    expect(
      problem(
        'rules:\n  - name: a\n    when: "true"\n    approvals: 2\n  - name: a\n    when: "true"\n    approvals: 3\n',
      ).message,
    ).toContain('policy.yaml:5: rule "a": name is used by an earlier rule');
    expect(
      problem('freezes:\n  - from: 2026-12-20T00:00:00Z\n    to: 2026-12-19T00:00:00Z\n    reason: x\n')
        .message,
    ).toContain('policy.yaml:3: freezes.to must end (to) after it starts (from)');
  });

  it('refuses a top level that is not a map', () => {
    expect(problem('- a\n- b\n').message).toContain('must be a map with rules');
  });
});
