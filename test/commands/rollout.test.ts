import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../src/commands/parse-command-line.js';
import { parseRollout } from '../../src/commands/rollout.js';
import { ValidationError } from '../../src/errors.js';
import { fakeSetup } from '../console/fake-registry.js';

const { registry } = fakeSetup();
const parse = (line: string, lines: string[] = []) => parseRollout(parseCommandLine(line), lines, registry);

describe('the rollout grammar', () => {
  it('takes a write and its arguments, and sites=, waves=, soak= as the rollout’s own', () => {
    const { what, options } = parse(
      'rollout create_network name=Lab vlan_id=40 subnet=10.40.0.0/24 sites=customer=acme waves=1,25%,rest soak=10m',
    );
    expect(what).toEqual({
      kind: 'write',
      tool: 'create_network',
      args: expect.objectContaining({ name: 'Lab', vlan_id: '40', subnet: '10.40.0.0/24' }),
    });
    expect(what.kind === 'write' && 'sites' in what.args).toBe(false);
    expect(options.sites).toBe('customer=acme');
    expect([options.waves].flat().join(',')).toBe('1,25%,rest');
    expect(options.soak).toBe('10m');
  });

  it('takes a list of console/site pairs, or *', () => {
    const listed = parse(
      'rollout create_network name=Lab vlan_id=40 subnet=10.40.0.0/24 sites=berlin/default,munich/lab',
    );
    expect([listed.options.sites].flat().join(',')).toBe('berlin/default,munich/lab');
    expect(
      parse('rollout create_network name=Lab vlan_id=40 subnet=10.40.0.0/24 sites=*').options.sites,
    ).toBe('*');
  });

  it('takes a plan: its lines (Slack), or a file (console)', () => {
    const slack = parse('rollout plan sites=* waves=1,rest', ['create_network name=Lab vlan_id=40']);
    expect(slack.what).toEqual({ kind: 'plan', lines: ['create_network name=Lab vlan_id=40'] });
    expect(parse('rollout plan changes.txt sites=*').what).toEqual({
      kind: 'plan',
      file: 'changes.txt',
      lines: [],
    });
  });

  it('refuses no sites=, no write, a read, and a stray option on a plan, naming the field', () => {
    const issue = (line: string) => {
      try {
        parse(line);
      } catch (error) {
        if (error instanceof ValidationError) return error.issues[0]?.field;
        throw error;
      }
      return undefined;
    };
    expect(issue('rollout create_network name=Lab vlan_id=40')).toBe('sites');
    expect(issue('rollout sites=*')).toBe('write');
    expect(issue('rollout list_vlans sites=*')).toBe('write');
    expect(issue('rollout plan sites=* name=Lab')).toBe('name');
    expect(() =>
      parse('rollout create_network name=Lab vlan_id=40 subnet=10.40.0.0/24 sites=*', [
        'create_network name=X',
      ]),
    ).toThrow(/start it with rollout plan/);
  });
});
