import { describe, expect, it } from 'vitest';
import { DEMO_FIREWALL_POLICY_UUIDS, DEMO_NETWORKS, DEMO_ZONES } from '../../src/simulator/index.js';
import { messageProblems } from '../../src/slack/blocks/limits.js';
import type { SlackCall } from '../helpers/fake-slack.js';
import { expectPreviewShowsEveryValue, valuesMissingFromPreview } from '../helpers/preview-values.js';
import { type SlackBot, useSlackBots } from '../helpers/slack-bot.js';
import { requestIdOf } from '../helpers/slack-buttons.js';

const N = DEMO_NETWORKS;
const bot = useSlackBots((b) => {
  for (const call of b.slack.calls) {
    if (call.method === 'chat.postMessage' || call.method === 'chat.update') {
      expect(messageProblems(call.args), call.method).toEqual([]);
    }
  }
});

type Block = {
  type: string;
  text?: { text: string };
  fields?: { text: string }[];
  elements?: { text?: string; action_id?: string; value?: string }[];
};

const blocksOf = (call: SlackCall | undefined) => (call?.args.blocks ?? []) as Block[];

/** Everything a reader sees in a message: section texts and fields, context lines. */
function messageText(call: SlackCall | undefined): string {
  return blocksOf(call)
    .flatMap((b) => [
      b.text?.text ?? '',
      ...(b.fields ?? []).map((f) => f.text),
      ...(b.elements ?? []).map((e) => e.text ?? ''),
    ])
    .join('\n');
}

const previewsOf = (b: SlackBot) => b.slack.callsOf('chat.postMessage').filter((c) => !c.args.thread_ts);
const simWrites = (b: SlackBot) =>
  b.sim.requests.filter((r) => r.method !== 'GET' && !r.route.includes('/stat/'));

/** Requests a change as U1, approves it as U2, and returns the preview message and the bodies sent. */
async function requestAndApprove(b: SlackBot, command: string) {
  await b.command(command);
  await b.slack.waitFor(() => previewsOf(b).length > 0);
  const preview = previewsOf(b)[0];
  const id = requestIdOf(preview);
  expect(simWrites(b)).toEqual([]);
  await b.click('approve', id, 'U2');
  await b.slack.waitFor(async () => (await b.approvals.get(id))?.state === 'succeeded');
  return { preview, text: messageText(preview), bodies: simWrites(b).map((r) => r.body) };
}

describe('Slack change requests show every value the controller receives', () => {
  it('create_traffic_route', async () => {
    const b = await bot();
    const { text, bodies } = await requestAndApprove(
      b,
      'create_traffic_route name=DNS action=allow destination_ip=1.1.1.1 destination_port=53 vlan_id=20',
    );

    expect(bodies).toHaveLength(1);
    expectPreviewShowsEveryValue(text, bodies);
    // Deliberately alike: per-tool preview cases: each tool's command and the values its preview must show.
    expect(text).toContain(`network_id: ${N.iot.id} (IoT)`);
  });

  it('create_traffic_matching_list', async () => {
    const b = await bot();
    const { text, bodies } = await requestAndApprove(
      b,
      'create_traffic_matching_list list_type=IPV4_ADDRESSES name=Admins items=10.0.0.0/8,192.168.1.10-192.168.1.20,172.16.0.1',
    );

    expect(bodies).toHaveLength(1);
    expectPreviewShowsEveryValue(text, bodies);
  });

  it('assign_network_to_zone, including the write that moves the network out of its old zone', async () => {
    const b = await bot();
    const { text, bodies } = await requestAndApprove(
      b,
      'assign_network_to_zone zone_id=Internal network_id=IoT',
    );

    expect(bodies).toHaveLength(2);
    expectPreviewShowsEveryValue(text, bodies);
    expect(text).toContain(`${DEMO_ZONES.internal} (Internal)`);
    expect(text).toContain(`${N.iot.uuid} (IoT)`);
  });

  it('update_firewall_rule', async () => {
    // Traditional rules exist on the legacy demo site only; the default one is zone-based.
    const b = await bot({ simulator: { firewall: 'legacy' } });
    const { text, bodies } = await requestAndApprove(
      b,
      'update_firewall_rule rule_id="Block IoT to LAN" name="Block IoT to LAN v2" protocol=tcp port=8443',
    );

    expect(bodies).toHaveLength(1);
    expectPreviewShowsEveryValue(text, bodies);
    expect(text).toContain('name: Block IoT to LAN → Block IoT to LAN v2');
  });

  it('create_firewall_rule', async () => {
    const b = await bot({ simulator: { firewall: 'legacy' } });
    const { text, bodies } = await requestAndApprove(
      b,
      'create_firewall_rule name="Block Guest to IoT" action=drop ruleset=LAN_IN src_networkconf_id=Guest dst_networkconf_id=IoT protocol=tcp port=22',
    );

    expect(bodies).toHaveLength(1);
    expectPreviewShowsEveryValue(text, bodies);
    expect(text).toContain(`src_networkconf_id: ${N.guest.id} (Guest)`);
    expect(text).toContain(`dst_networkconf_id: ${N.iot.id} (IoT)`);
  });

  it('create_firewall_policy, with the reorder that places it first in its zone pair', async () => {
    const b = await bot();
    const { text, bodies } = await requestAndApprove(
      b,
      'create_firewall_policy name="Cameras to NAS" action=ALLOW source_zone="IoT Devices" source_networks=Cameras destination_zone=Internal destination_ips=192.168.1.20 protocol=tcp destination_port=445 position=1',
    );

    expect(bodies).toHaveLength(2);
    const created = b.sim.state.site('default')?.firewallPolicies.find((p) => p.name === 'Cameras to NAS');
    if (!created?.external_id) throw new Error('the policy was not created');
    // The new policy's id is the controller's to give: the preview holds a placeholder there. On
    // Network 10.1 the official bodies name zones, networks and policies by UUID.
    expectPreviewShowsEveryValue(text.replace('- (the new policy)', `- ${created.external_id}`), bodies);
    expect(text).toContain(`zoneId: ${DEMO_ZONES.iotDevices} (IoT Devices)`);
    expect(text).toContain(`- ${N.cameras.uuid} (Cameras)`);
    expect(text).toContain(`- ${DEMO_FIREWALL_POLICY_UUIDS.blockIotToInternal} (Block IoT to Internal)`);
  });
});

describe('/net … dry_run=true (a preview only the requester sees)', () => {
  it('shows every value the same change sends once approved', async () => {
    const b = await bot();
    const command =
      'create_traffic_route name=DNS action=allow destination_ip=1.1.1.1 destination_port=53 vlan_id=20';
    const dry = await b.command(`${command} dry_run=true`);
    await b.slack.waitFor(() => b.slack.responses.some((r) => dry.responseUrl.endsWith(r.path)));
    const answer = b.slack.responses.find((r) => dry.responseUrl.endsWith(r.path))?.body ?? {};
    const text = messageText({ method: 'respond', args: answer });
    expect(answer.response_type).toBe('ephemeral');
    expect(simWrites(b)).toEqual([]);

    const { bodies } = await requestAndApprove(b, command);

    expectPreviewShowsEveryValue(text, bodies);
    expect(text).toContain(`network_id: ${N.iot.id} (IoT)`);
  });
});

describe('a preview larger than one Slack message', () => {
  it('is split across blocks, says the full request is attached, and attaches it in the thread', async () => {
    const b = await bot();
    const ports = Array.from({ length: 400 }, (_, i) => String(10_000 + i * 7));
    const { preview, text, bodies } = await requestAndApprove(
      b,
      `create_traffic_matching_list list_type=PORTS name=Many items=${ports.join(',')}`,
    );

    const codeBlocks = blocksOf(preview).filter(
      (x) => x.type === 'section' && x.text?.text.startsWith('```'),
    );
    expect(codeBlocks.length).toBeGreaterThan(1);
    expect(text).toContain('Full request attached');
    // Nothing is cut inside a line: every shown line is a whole line of the full preview.
    expect(text).not.toContain('…');
    const complete = b.slack.callsOf('files.completeUploadExternal');
    expect(complete).toHaveLength(1);
    expect(complete[0]?.args.channel_id).toBe('C1');
    expect(complete[0]?.args.thread_ts).toBe(await postedTs(b));
    const files = uploadedFiles(b);
    expect(Object.keys(files).sort()).toEqual([
      `preview-${requestIdOf(preview)}.txt`,
      `request-${requestIdOf(preview)}.json`,
    ]);
    const fullPreview = files[`preview-${requestIdOf(preview)}.txt`] ?? '';
    const requestJson = files[`request-${requestIdOf(preview)}.json`] ?? '';
    // The attached body is exactly what the controller received, and the attached preview shows all of it.
    expect(JSON.parse(requestJson)).toEqual({ would_create: bodies[0] });
    expectPreviewShowsEveryValue(fullPreview, bodies);
    // The message shows the start of that same preview, and the rest only in the file.
    expect(valuesMissingFromPreview(text, bodies[0]).length).toBeGreaterThan(0);
    for (const port of ['10000', '10007']) expect(text).toContain(`value: ${port}`);
  });
});

/** The ts the fake Slack gave the preview message (the first top-level post). */
async function postedTs(b: SlackBot): Promise<string | undefined> {
  return (await b.approvals.get(requestIdOf(previewsOf(b)[0])))?.message?.ts;
}

/** Uploaded files by name: the fake numbers file ids F1, F2… in the order upload URLs were asked for. */
function uploadedFiles(b: SlackBot): Record<string, string> {
  const names = b.slack.callsOf('files.getUploadURLExternal').map((c) => String(c.args.filename));
  return Object.fromEntries(
    b.slack.uploads.map((u) => [names[Number(u.fileId.slice(1)) - 1] ?? u.fileId, u.bytes.toString('utf8')]),
  );
}
