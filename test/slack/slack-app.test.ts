import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_NETWORKS } from '../../src/simulator/index.js';
import { messageProblems, viewProblems } from '../../src/slack/blocks/limits.js';
import { verifyJournal } from '../../src/store/file/journal.js';
import { SIGNING_SECRET, type SlackBot, useSlackBots } from '../helpers/slack-bot.js';
import { buttonsOf, requestIdOf } from '../helpers/slack-buttons.js';
import { commandBody, slackHeaders } from '../helpers/slack-requests.js';

const bot = useSlackBots((b) => assertWithinBlockKitLimits(b));

/** Every message and view the bot sent must pass the Block Kit limits check. */
function assertWithinBlockKitLimits(b: SlackBot): void {
  for (const call of b.slack.calls) {
    if (['chat.postMessage', 'chat.update', 'chat.postEphemeral'].includes(call.method)) {
      expect(messageProblems(call.args), `${call.method}`).toEqual([]);
    }
    if (call.method === 'views.open') expect(viewProblems(call.args.view), 'views.open').toEqual([]);
  }
  for (const response of b.slack.responses) expect(messageProblems(response.body), response.path).toEqual([]);
}

const previews = (b: SlackBot) => b.slack.callsOf('chat.postMessage').filter((c) => !c.args.thread_ts);

const simWrites = (b: SlackBot) =>
  b.sim.requests.filter((r) => r.method !== 'GET' && !r.route.includes('/stat/'));
const responsesTo = (b: SlackBot, url: string) => b.slack.responses.filter((r) => url.endsWith(r.path));
const textOf = (body: Record<string, unknown>) => `${String(body.text)} ${JSON.stringify(body.blocks ?? [])}`;

async function previewCreate(
  b: SlackBot,
  text = 'create_network name=IoT2 vlan_id=31 subnet=10.31.0.0/24',
  user = 'U1',
) {
  const before = previews(b).length;
  await b.command(text, user);
  await b.slack.waitFor(() => previews(b).length > before);
  const preview = previews(b).at(-1);
  // The fake records the post before the bot reads the answer and notes the message's ts.
  await b.slack.waitFor(async () => (await b.approvals.get(requestIdOf(preview)))?.message !== undefined);
  return preview;
}

describe('request verification', () => {
  it('refuses a bad or missing signature, or a stale timestamp, with 401 and does nothing', async () => {
    const b = await bot();
    const body = commandBody({
      text: 'create_network name=X vlan_id=33 subnet=10.33.0.0/24',
      response_url: b.slack.responseUrl(),
    });
    const stale = Math.floor(Date.now() / 1000) - 6 * 60;
    const results = await Promise.all([
      b.post(body, slackHeaders('wrong-secret', body)),
      b.post(body, { 'content-type': 'application/x-www-form-urlencoded' }),
      b.post(body, slackHeaders(SIGNING_SECRET, body, stale)),
    ]);
    expect(results.map((r) => r.status)).toEqual([401, 401, 401]);
    await new Promise((r) => setTimeout(r, 100));
    expect(b.slack.calls.filter((c) => c.method !== 'auth.test')).toEqual([]);
    expect(b.slack.responses).toEqual([]);
    expect(b.sim.requests).toEqual([]);
  });

  it('serves /healthz with a JSON status', async () => {
    const b = await bot();
    const response = await fetch(`http://127.0.0.1:${b.port}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      status: 'ok',
      front_end: 'slack',
      mode: 'http',
      store: { kind: 'file', ok: true },
      pending_changes: 0,
    });
  });
});

describe('refusals of REQUESTERS and WRITE_CHANNELS', () => {
  const refusalTo = async (b: SlackBot, user: string, channel: string) => {
    const { responseUrl } = await b.command(
      'create_network name=Lab vlan_id=91 subnet=10.91.0.0/24',
      user,
      channel,
    );
    await b.slack.waitFor(() => responsesTo(b, responseUrl).length > 0);
    const body = responsesTo(b, responseUrl)[0]?.body ?? {};
    return { text: String(body.text), blocks: JSON.stringify(body.blocks) };
  };

  it('name who may request, and where, as Slack mentions escaped once, not twice', async () => {
    const b = await bot({ env: { REQUESTERS: 'U0ALICE,S0NETOPS', WRITE_CHANNELS: 'C0OPS' } });
    b.slack.userGroups.S0NETOPS = ['U0CAROL'];

    const stranger = await refusalTo(b, 'U0BOB', 'C0OPS');
    const elsewhere = await refusalTo(b, 'U0ALICE', 'C0RANDOM');

    expect(stranger.text).toBe(
      ':no_entry: Not allowed: only members of REQUESTERS (<@U0ALICE>, <!subteam^S0NETOPS>) may request changes',
    );
    expect(elsewhere.text).toBe(
      ':no_entry: Not allowed: changes may only be requested in WRITE_CHANNELS (<#C0OPS>); not in <#C0RANDOM>',
    );
    expect(`${stranger.blocks}${elsewhere.blocks}`).not.toContain('&lt;');
    expect(previews(b)).toEqual([]);
  });

  it('show a channel id that is not shaped like one as text, so it cannot carry Slack markup', async () => {
    const b = await bot({ env: { WRITE_CHANNELS: 'C0OPS' } });

    const refusal = await refusalTo(b, 'U0ALICE', 'C1> <!channel');

    expect(refusal.text).toContain('not in C1&gt; &lt;!channel');
    expect(refusal.text).not.toContain('<!channel');
  });
});

describe('/net reads', () => {
  it('acknowledges list_vlans in the HTTP response, then posts once to response_url naming every network', async () => {
    const b = await bot();
    const { status, text, responseUrl } = await b.command('list_vlans');
    expect(status).toBe(200);
    expect(text).toBe('');
    await b.slack.waitFor(() => responsesTo(b, responseUrl).length > 0);
    const answers = responsesTo(b, responseUrl);
    expect(answers).toHaveLength(1);
    expect(answers[0]?.body.response_type).toBe('ephemeral');
    const shown = textOf(answers[0]?.body ?? {});
    // The official network list (10.1) has no WAN.
    for (const name of ['Default', 'IoT', 'Guest', 'Servers', 'Cameras']) expect(shown).toContain(name);
    expect(b.slack.callsOf('chat.postMessage')).toEqual([]);
  });

  it('answers help and shortcuts, and a bad command with the field and rule', async () => {
    const b = await bot();
    const help = await b.command('help');
    const bad = await b.command('list_vlans limit=0');
    await b.slack.waitFor(() => b.slack.responses.length >= 2);
    expect(textOf(responsesTo(b, help.responseUrl)[0]?.body ?? {})).toContain('create_network');
    expect(textOf(responsesTo(b, bad.responseUrl)[0]?.body ?? {})).toContain(
      '`limit`: must be a whole number from 1 to 10000',
    );
  });

  it('says "controller unreachable" once when the controller is down, and serves the next command', async () => {
    const b = await bot();
    b.sim.injectFault({ kind: 'status', status: 503, times: Number.POSITIVE_INFINITY });
    const down = await b.command('list_vlans');
    await b.slack.waitFor(() => responsesTo(b, down.responseUrl).length > 0, 8000);
    expect(responsesTo(b, down.responseUrl)).toHaveLength(1);
    expect(textOf(responsesTo(b, down.responseUrl)[0]?.body ?? {})).toContain('Controller unreachable');
    b.sim.clearFaults();
    const up = await b.command('vlans');
    await b.slack.waitFor(() => responsesTo(b, up.responseUrl).length > 0);
    expect(textOf(responsesTo(b, up.responseUrl)[0]?.body ?? {})).toContain('Cameras');
  });
});

describe('approval-gated writes', () => {
  it('previews in the channel, changes nothing, and runs once a second user approves', async () => {
    const b = await bot();
    const preview = await previewCreate(b);
    expect(previews(b)).toHaveLength(1);
    expect(preview?.args.channel).toBe('C1');
    expect(buttonsOf(preview).map((x) => x.action_id)).toEqual(['approve', 'cancel']);
    expect(simWrites(b)).toEqual([]);
    const id = requestIdOf(preview);
    expect(id).toMatch(/^cr_/);

    await b.click('approve', id, 'U2');
    await b.slack.waitFor(() => b.slack.callsOf('chat.postMessage').some((c) => c.args.thread_ts));
    const created = b.sim.state.findNetworkByName('default', 'IoT2');
    expect(created).toMatchObject({ vlan: 31, vlan_enabled: true });
    expect(simWrites(b).map((r) => r.method)).toEqual(['POST']);
    const update = b.slack.callsOf('chat.update').at(-1);
    expect(textOf(update?.args ?? {})).toContain('Done');
    expect(buttonsOf(update)).toEqual([]);
    const thread = b.slack.callsOf('chat.postMessage').find((c) => c.args.thread_ts);
    expect(thread?.args.thread_ts).toBe(`${update?.args.ts}`);
  });

  it('runs one of two concurrent approvals and tells the other clicker it already ran', async () => {
    const b = await bot();
    const id = requestIdOf(await previewCreate(b));
    const [first, second] = await Promise.all([b.click('approve', id, 'U2'), b.click('approve', id, 'U3')]);
    await b.slack.waitFor(() => b.slack.callsOf('chat.postMessage').some((c) => c.args.thread_ts));
    await b.slack.waitFor(() => b.slack.responses.length >= 1);
    expect(simWrites(b).filter((r) => r.method === 'POST')).toHaveLength(1);
    const told = [...responsesTo(b, first.responseUrl), ...responsesTo(b, second.responseUrl)].map((r) =>
      String(r.body.text),
    );
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/Already (running|ran)/);
  });

  it('refuses self-approval by default, ephemerally, and changes nothing', async () => {
    const b = await bot();
    const id = requestIdOf(await previewCreate(b));
    const click = await b.click('approve', id, 'U1');
    await b.slack.waitFor(() => responsesTo(b, click.responseUrl).length > 0);
    const refusal = responsesTo(b, click.responseUrl)[0]?.body;
    expect(refusal?.response_type).toBe('ephemeral');
    expect(String(refusal?.text)).toMatch(/someone else must approve/);
    expect(simWrites(b)).toEqual([]);
    expect((await b.approvals.get(id))?.state).toBe('pending');
  });

  it('with APPROVERS set, refuses others and accepts a member of a listed user group', async () => {
    const b = await bot({ env: { APPROVERS: 'U99, S0NETADMINS' } });
    b.slack.userGroups.S0NETADMINS = ['U5'];
    const id = requestIdOf(await previewCreate(b));
    const stranger = await b.click('approve', id, 'U2');
    await b.slack.waitFor(() => responsesTo(b, stranger.responseUrl).length > 0);
    expect(String(responsesTo(b, stranger.responseUrl)[0]?.body.text)).toMatch(/APPROVERS/);
    expect(simWrites(b)).toEqual([]);
    await b.click('approve', id, 'U5');
    await b.slack.waitFor(async () => (await b.approvals.get(id))?.state === 'succeeded');
    expect(b.slack.callsOf('usergroups.users.list').map((c) => c.args.usergroup)).toContain('S0NETADMINS');
    expect(b.sim.state.findNetworkByName('default', 'IoT2')).toBeDefined();
  });

  it('refuses an approver removed from the APPROVERS group a few seconds after they approved something', async () => {
    let now = Date.now();
    const b = await bot({ now: () => now, env: { APPROVERS: 'S0NETADMINS' } });
    b.slack.userGroups.S0NETADMINS = ['U5'];
    const first = requestIdOf(await previewCreate(b));
    await b.click('approve', first, 'U5');
    await b.slack.waitFor(async () => (await b.approvals.get(first))?.state === 'succeeded');
    const second = requestIdOf(
      await previewCreate(b, 'create_network name=Lab2 vlan_id=32 subnet=10.32.0.0/24'),
    );

    b.slack.userGroups.S0NETADMINS = ['U6'];
    now += 11_000;
    const click = await b.click('approve', second, 'U5');

    await b.slack.waitFor(() => responsesTo(b, click.responseUrl).length > 0);
    expect(String(responsesTo(b, click.responseUrl)[0]?.body.text)).toMatch(/only members of APPROVERS/);
    expect((await b.approvals.get(second))?.state).toBe('pending');
    expect(b.sim.state.findNetworkByName('default', 'Lab2')).toBeUndefined();
  });

  it('refuses an expired request and edits its message to say it did not run', async () => {
    let now = Date.now();
    const b = await bot({ now: () => now, env: { APPROVAL_TTL_SECONDS: '60' } });
    const preview = await previewCreate(b);
    const id = requestIdOf(preview);
    now += 61_000;
    const click = await b.click('approve', id, 'U2');
    await b.slack.waitFor(() => responsesTo(b, click.responseUrl).length > 0);
    expect(String(responsesTo(b, click.responseUrl)[0]?.body.text)).toMatch(/expired/);
    const edited = b.slack.callsOf('chat.update').at(-1);
    expect(edited?.args.ts).toBe(String((await b.approvals.get(id))?.message?.ts));
    expect(textOf(edited?.args ?? {})).toContain('Expired, not run');
    expect(buttonsOf(edited)).toEqual([]);
    expect(simWrites(b)).toEqual([]);
  });

  it('edits expired previews when the sweeper runs, without anyone clicking', async () => {
    let now = Date.now();
    const b = await bot({ now: () => now, env: { APPROVAL_TTL_SECONDS: '60' } });
    await previewCreate(b);
    now += 61_000;
    expect(await b.app.slack?.sweepExpired()).toBe(1);
    expect(textOf(b.slack.callsOf('chat.update').at(-1)?.args ?? {})).toContain('Expired, not run');
  });

  it('runs nothing when the network changed since the preview, and offers a new preview', async () => {
    const b = await bot();
    const first = await previewCreate(b, 'update_network network_id=Guest vlan_id=35');
    const id = requestIdOf(first);
    const guest = b.sim.state.findNetworkById('default', DEMO_NETWORKS.guest.id);
    if (!guest) throw new Error('no Guest network');
    guest.vlan = 36;
    await b.click('approve', id, 'U2');
    await b.slack.waitFor(() => previews(b).length === 2);
    expect(simWrites(b)).toEqual([]);
    expect((await b.approvals.get(id))?.state).toBe('superseded');
    const replacement = previews(b)[1];
    expect(textOf(replacement?.args ?? {})).toContain('36 → 35');
    expect(requestIdOf(replacement)).not.toBe(id);
    expect(textOf(b.slack.callsOf('chat.update').at(-1)?.args ?? {})).toContain('changed since this preview');
  });

  it('survives a restart: a preview made before runs exactly once after, and the journal verifies', async () => {
    const first = await bot();
    const id = requestIdOf(await previewCreate(first));
    await first.app.close();
    const second = await bot({ dataDir: first.dataDir, sim: first.sim });
    await second.click('approve', id, 'U2');
    await second.slack.waitFor(async () => (await second.approvals.get(id))?.state === 'succeeded');
    const again = await second.click('approve', id, 'U3');
    await second.slack.waitFor(() => responsesTo(second, again.responseUrl).length > 0);
    expect(
      first.sim.requests.filter((r) => r.method === 'POST' && r.route.endsWith('/networks')),
    ).toHaveLength(1);
    const journal = join(first.dataDir, 'approvals.jsonl');
    expect(verifyJournal(journal)).toMatchObject({ ok: true });
    const lines = readFileSync(journal, 'utf8').split('\n');
    const created = lines.findIndex((l) => l.includes('"IoT2"'));
    writeFileSync(
      journal,
      lines.map((l, i) => (i === created ? l.replace('"IoT2"', '"IoT3"') : l)).join('\n'),
    );
    expect(verifyJournal(journal)).toMatchObject({ ok: false });
  });

  it('cancels on the requester’s click and edits the message', async () => {
    const b = await bot();
    const id = requestIdOf(await previewCreate(b));
    await b.click('cancel', id, 'U1');
    await b.slack.waitFor(async () => (await b.approvals.get(id))?.state === 'cancelled');
    await b.slack.waitFor(() => b.slack.callsOf('chat.update').length > 0);
    expect(textOf(b.slack.callsOf('chat.update').at(-1)?.args ?? {})).toContain('Cancelled');
    expect(simWrites(b)).toEqual([]);
  });

  it('posts one audit line per executed change to AUDIT_CHANNEL', async () => {
    const b = await bot({ env: { AUDIT_CHANNEL: 'CAUDIT1' } });
    const id = requestIdOf(await previewCreate(b));
    await b.click('approve', id, 'U2');
    await b.slack.waitFor(() =>
      b.slack.callsOf('chat.postMessage').some((c) => c.args.channel === 'CAUDIT1'),
    );
    const audit = b.slack.callsOf('chat.postMessage').filter((c) => c.args.channel === 'CAUDIT1');
    expect(audit).toHaveLength(1);
    expect(String(audit[0]?.args.text)).toMatch(
      /^SUCCEEDED: `create_network` on `default` requested by <@U1>, approved by <@U2>/,
    );
  });
});

describe('forms', () => {
  it('opens a form named by argument when a write lacks required arguments, then validates and previews', async () => {
    const b = await bot();
    await b.command('create_network name=Lab9');
    await b.slack.waitFor(() => b.slack.callsOf('views.open').length > 0);
    const view = b.slack.callsOf('views.open')[0]?.args.view as {
      private_metadata: string;
      blocks: { type: string; block_id?: string; element?: { initial_value?: string } }[];
    };
    const inputs = view.blocks.filter((x) => x.type === 'input');
    expect(inputs.map((x) => x.block_id)).toEqual(
      expect.arrayContaining([
        'site_id',
        'name',
        'vlan_id',
        'subnet',
        'purpose',
        'dhcp_enabled',
        'dhcp_start',
        'domain_name',
      ]),
    );
    expect(inputs.map((x) => x.block_id)).not.toContain('confirm');
    expect(inputs.find((x) => x.block_id === 'name')?.element?.initial_value).toBe('Lab9');

    const invalid = await b.submit('U1', view.private_metadata, {
      name: { value: { type: 'plain_text_input', value: 'Lab9' } },
      vlan_id: { value: { type: 'number_input', value: '5000' } },
      subnet: { value: { type: 'plain_text_input', value: '10.9.0.0/24' } },
    });
    expect(invalid.status).toBe(200);
    expect(JSON.parse(invalid.text)).toEqual({
      response_action: 'errors',
      errors: { vlan_id: 'must be a whole number from 1 to 4094' },
    });
    expect(previews(b)).toHaveLength(0);

    const valid = await b.submit('U1', view.private_metadata, {
      name: { value: { type: 'plain_text_input', value: 'Lab9' } },
      vlan_id: { value: { type: 'number_input', value: '49' } },
      subnet: { value: { type: 'plain_text_input', value: '10.49.0.0/24' } },
      purpose: { value: { type: 'static_select', selected_option: { value: 'corporate' } } },
    });
    expect(valid.status).toBe(200);
    await b.slack.waitFor(() => previews(b).length === 1);
    expect(textOf(previews(b)[0]?.args ?? {})).toContain('10.49.0.1/24');
    expect(simWrites(b)).toEqual([]);
  });

  it('opens the form for `/net create_network` with no arguments at all', async () => {
    const b = await bot();
    await b.command('create_network');
    await b.slack.waitFor(() => b.slack.callsOf('views.open').length > 0);
    const call = b.slack.callsOf('views.open')[0];
    expect(call?.args.trigger_id).toBe('trigger-1');
    const view = call?.args.view as { blocks: { type: string; block_id?: string }[] };
    const ids = view.blocks.filter((x) => x.type === 'input').map((x) => x.block_id);
    expect(ids.slice(0, 4)).toEqual(['site_id', 'name', 'vlan_id', 'subnet']);
    expect(previews(b)).toEqual([]);
    expect(b.sim.requests).toEqual([]);
  });

  it('opens the same form with /net form <tool>', async () => {
    const b = await bot();
    await b.command('form delete_network');
    await b.slack.waitFor(() => b.slack.callsOf('views.open').length > 0);
    const view = b.slack.callsOf('views.open')[0]?.args.view as { blocks: { block_id?: string }[] };
    expect(view.blocks.map((x) => x.block_id).filter(Boolean)).toEqual(['site_id', 'network_id']);
  });
});

describe('files', () => {
  it('uploads export_topology as topology-<site>.graphml in three steps, with the export as content', async () => {
    const b = await bot();
    await b.command('export_topology format=graphml', 'U1', 'C7');
    await b.slack.waitFor(() => b.slack.callsOf('files.completeUploadExternal').length > 0);
    const [getUrl] = b.slack.callsOf('files.getUploadURLExternal');
    expect(getUrl?.args.filename).toBe('topology-default.graphml');
    expect(b.slack.uploads).toHaveLength(1);
    const content = b.slack.uploads[0]?.bytes.toString('utf8') ?? '';
    expect(content).toMatch(/^<\?xml/);
    expect(content).toContain('<graphml');
    expect(content).toContain('Dream Machine Pro');
    expect(Number(getUrl?.args.length)).toBe(Buffer.byteLength(content));
    const complete = b.slack.callsOf('files.completeUploadExternal')[0];
    expect(complete?.args.channel_id).toBe('C7');
    expect(complete?.args.files).toEqual([{ id: 'F1', title: 'Topology of default (graphml)' }]);
  });

  it('draws /net topology as a PNG and uploads it into the channel', async () => {
    const b = await bot();
    await b.command('topology');
    await b.slack.waitFor(() => b.slack.callsOf('files.completeUploadExternal').length > 0, 15_000);
    expect(b.slack.callsOf('files.getUploadURLExternal')[0]?.args.filename).toBe('topology-default.png');
    const png = b.slack.uploads[0]?.bytes ?? Buffer.alloc(0);
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(png.length).toBeGreaterThan(10_000);
  }, 20_000);

  it('refuses an unknown export format naming the three valid ones, and uploads nothing', async () => {
    const b = await bot();
    const { responseUrl } = await b.command('export_topology format=GraphML');
    await b.slack.waitFor(() => responsesTo(b, responseUrl).length > 0);
    expect(textOf(responsesTo(b, responseUrl)[0]?.body ?? {})).toMatch(/json.*graphml.*dot/);
    expect(b.slack.uploads).toEqual([]);
  });
});
