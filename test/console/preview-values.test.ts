import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runInteractiveConsole } from '../../src/console/console.js';
import { silentLogger } from '../../src/log.js';
import { DEMO_NETWORKS, DEMO_ZONES } from '../../src/simulator/index.js';
import { expectPreviewShowsEveryValue } from '../helpers/preview-values.js';
import { useTestBot } from '../helpers/tool-test.js';
import { TextSink } from './fake-registry.js';

const bot = useTestBot();
const N = DEMO_NETWORKS;

/** Types a write into the console against the simulator, answers y, and returns the preview it printed. */
async function previewAndApprove(line: string): Promise<{ preview: string; output: string }> {
  const input = new PassThrough();
  const output = new TextSink();
  const errorOutput = new TextSink();
  const done = runInteractiveConsole({
    registry: bot.app.registry,
    context: bot.app.context,
    input,
    output,
    errorOutput,
    logger: silentLogger(),
  });
  input.end(`${line}\ny\nquit\n`);
  await done;
  expect(errorOutput.text).toBe('');
  const approval = output.text.indexOf('approve? [y/N]');
  expect(approval).toBeGreaterThan(0);
  return { preview: output.text.slice(0, approval), output: output.text };
}

describe('console previews show every value the controller receives', () => {
  it('create_traffic_route: the rule body with its destination, port and network itemised', async () => {
    const { preview } = await previewAndApprove(
      'create_traffic_route name=DNS action=allow destination_ip=1.1.1.1 destination_port=53 vlan_id=20',
    );

    expect(bot.writes().map((r) => r.method)).toEqual(['POST']);
    expectPreviewShowsEveryValue(
      preview,
      bot.writes().map((r) => r.body),
    );
    expect(preview).toContain(`network_id: ${N.iot.id} (IoT)`);
    expect(preview).not.toContain('…');
  });

  it('create_traffic_matching_list: every typed item', async () => {
    const { preview } = await previewAndApprove(
      'create_traffic_matching_list list_type=PORTS name=Streaming items=80,443,8000-8100',
    );

    expect(bot.writes().map((r) => r.method)).toEqual(['POST']);
    expectPreviewShowsEveryValue(
      preview,
      bot.writes().map((r) => r.body),
    );
    expect(preview).toContain('start: 8000');
  });

  it('assign_network_to_zone: both writes of a move, every network id with its name', async () => {
    const { preview } = await previewAndApprove('assign_network_to_zone zone_id=Internal network_id=IoT');

    // The network leaves its old zone first, then joins the new one.
    expect(bot.writes().map((r) => `${r.method} ${r.route.split('/').at(-1)}`)).toEqual([
      `PUT ${DEMO_ZONES.iotDevices}`,
      `PUT ${DEMO_ZONES.internal}`,
    ]);
    expectPreviewShowsEveryValue(
      preview,
      bot.writes().map((r) => r.body),
    );
    expect(preview).toContain(`${N.iot.uuid} (IoT)`);
    expect(preview).toContain(`${N.cameras.uuid} (Cameras)`);
    expect(preview).toContain(`${DEMO_ZONES.iotDevices} (IoT Devices)`);
    // Both sides of the diff in full: the networks before, and the same plus IoT after.
    expect(preview).toContain(
      `networkIds:\n    before:\n      - ${N.defaultLan.id} (Default)\n    after:\n      - ${N.defaultLan.id} (Default)\n      - ${N.iot.id} (IoT)`,
    );
  });

  it('update_firewall_rule: the whole stored rule as it goes back, changed fields before and after', async () => {
    const { preview } = await previewAndApprove(
      'update_firewall_rule rule_id="Block IoT to LAN" name="Block IoT to LAN v2" protocol=tcp port=8443',
    );

    expect(bot.writes().map((r) => r.method)).toEqual(['PUT']);
    expectPreviewShowsEveryValue(
      preview,
      bot.writes().map((r) => r.body),
    );
    expect(preview).toContain('name: Block IoT to LAN → Block IoT to LAN v2');
    expect(preview).toContain('dst_port: "" → 8443');
    expect(preview).toContain(`src_networkconf_id: ${N.iot.id} (IoT)`);
    expect(preview).toContain(`dst_networkconf_id: ${N.defaultLan.id} (Default)`);
  });
});
