import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runInteractiveConsole } from '../../src/console/console.js';
import { silentLogger } from '../../src/log.js';
import { DEMO_FIREWALL_POLICY_UUIDS, DEMO_NETWORKS, DEMO_ZONES } from '../../src/simulator/index.js';
import { expectPreviewShowsEveryValue } from '../helpers/preview-values.js';
import type { TestBot } from '../helpers/test-bot.js';
import { TextSink } from '../helpers/text-sink.js';
import { useTestBot } from '../helpers/tool-test.js';

const bot = useTestBot();
// The traditional firewall rules live on the legacy demo site; the default one is zone-based.
const legacy = useTestBot({ simulator: { firewall: 'legacy' } });
const N = DEMO_NETWORKS;

/** Types a write into the console against the simulator, answers y, and returns the preview it printed. */
async function previewAndApprove(
  line: string,
  target: TestBot = bot,
): Promise<{ preview: string; output: string }> {
  const input = new PassThrough();
  const output = new TextSink();
  const errorOutput = new TextSink();
  const done = runInteractiveConsole({
    registry: target.app.registry,
    context: target.app.context,
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
      `network_ids:\n    before:\n      - ${N.defaultLan.uuid} (Default)\n    after:\n      - ${N.defaultLan.uuid} (Default)\n      - ${N.iot.uuid} (IoT)`,
    );
  });

  // Deliberately alike: per-tool preview cases: each tool's command and the values its preview must show.
  it('update_firewall_rule: the whole stored rule as it goes back, changed fields before and after', async () => {
    const { preview } = await previewAndApprove(
      'update_firewall_rule rule_id="Block IoT to LAN" name="Block IoT to LAN v2" protocol=tcp port=8443',
      legacy,
    );

    expect(legacy.writes().map((r) => r.method)).toEqual(['PUT']);
    expectPreviewShowsEveryValue(
      preview,
      legacy.writes().map((r) => r.body),
    );
    expect(preview).toContain('name: Block IoT to LAN → Block IoT to LAN v2');
    expect(preview).toContain('dst_port: "" → 8443');
    expect(preview).toContain(`src_networkconf_id: ${N.iot.id} (IoT)`);
    expect(preview).toContain(`dst_networkconf_id: ${N.defaultLan.id} (Default)`);
  });

  it('create_firewall_rule: every field sent, each network id with its name', async () => {
    const { preview } = await previewAndApprove(
      'create_firewall_rule name="Block Guest to IoT" action=drop ruleset=LAN_IN src_networkconf_id=Guest dst_networkconf_id=IoT protocol=tcp port=22',
      legacy,
    );

    expect(legacy.writes().map((r) => r.method)).toEqual(['POST']);
    expectPreviewShowsEveryValue(
      preview,
      legacy.writes().map((r) => r.body),
    );
    expect(preview).toContain(`src_networkconf_id: ${N.guest.id} (Guest)`);
    expect(preview).toContain(`dst_networkconf_id: ${N.iot.id} (IoT)`);
  });

  it('create_firewall_policy: the policy and its reorder, each zone and network id with its name', async () => {
    const { preview } = await previewAndApprove(
      'create_firewall_policy name="Cameras to NAS" action=ALLOW source_zone="IoT Devices" source_networks=Cameras destination_zone=Internal destination_ips=192.168.1.20 protocol=tcp destination_port=445 position=1',
    );

    // Network 10.1: the official endpoints, which name zones and networks by UUID.
    expect(bot.writes().map((r) => `${r.method} ${r.route.split('/').at(-1)}`)).toEqual([
      'POST policies',
      'PUT ordering',
    ]);
    const created = bot.site().firewallPolicies.find((p) => p.name === 'Cameras to NAS');
    if (!created?.external_id) throw new Error('the policy was not created');
    // The new policy's id is the controller's to give: the preview holds a placeholder there.
    expectPreviewShowsEveryValue(
      preview.replace('- (the new policy)', `- ${created.external_id}`),
      bot.writes().map((r) => r.body),
    );
    expect(preview).toContain(`zoneId: ${DEMO_ZONES.iotDevices} (IoT Devices)`);
    expect(preview).toContain(`zoneId: ${DEMO_ZONES.internal} (Internal)`);
    expect(preview).toContain(`- ${N.cameras.uuid} (Cameras)`);
    expect(preview).toContain(`- ${DEMO_FIREWALL_POLICY_UUIDS.blockIotToInternal} (Block IoT to Internal)`);
  });
});
