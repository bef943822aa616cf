import { describe, expect, it } from 'vitest';
import { parsePlan, planOptions } from '../../src/commands/plan.js';
import { ValidationError } from '../../src/errors.js';
import { fakeSetup } from '../console/fake-registry.js';

// The text of a plan (Slack's lines after /net plan, a console file) as a set's steps.

const { registry } = fakeSetup();

describe('parsePlan', () => {
  it('reads one write per line, with or without /net, skipping blank lines and # comments', () => {
    const steps = parsePlan(
      '# the lab\n/net create_network name=Lab vlan_id=40 subnet=10.70.0.0/24\n\n  update_traffic_route route_id=r1 enabled=false  \n',
      registry,
    );
    expect(steps).toEqual([
      { tool: 'create_network', args: { name: 'Lab', vlan_id: '40', subnet: '10.70.0.0/24' }, line: 2 },
      { tool: 'update_traffic_route', args: { route_id: 'r1', enabled: 'false' }, line: 4 },
    ]);
  });

  it('refuses a read naming its line, an unknown command naming its line, and an empty plan', () => {
    expect(() => parsePlan('create_network name=Lab vlan_id=40\nlist_vlans', registry)).toThrow(
      /line 2 \(list_vlans\): only reads; a plan holds writes only/,
    );
    const unknown = (() => {
      try {
        parsePlan('create_network name=Lab vlan_id=40\n\ncreate_netwrk name=X', registry);
      } catch (error) {
        return error;
      }
    })();
    expect((unknown as Error).message).toMatch(/^line 3/);
    expect(() => parsePlan('\n# nothing\n', registry)).toThrow(ValidationError);
  });

  it('takes title and on_failure from the plan line, and nothing else', () => {
    expect(planOptions({ title: 'Door cams', on_failure: 'stop' })).toEqual({
      title: 'Door cams',
      onFailure: 'stop',
    });
    expect(() => planOptions({ on_failure: 'retry' })).toThrow(/on_failure: must be rollback or stop/);
    expect(() => planOptions({ tilte: 'x' })).toThrow(/tilte: is not an option of plan/);
  });
});
