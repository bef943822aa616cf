// Change sets through the built program (`node dist/main.js`, environment variables only): a change set
// proposed with `/net plan` (and over MCP), previewed whole, approved once in Slack, run in order;
// a step the controller refuses undoes the steps before it (or leaves them, on_failure=stop); a
// typo is refused before anything is sent; a SIGKILL mid-set is settled once by the next start.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runBot } from '../helpers/bot-process.js';
import { callText, type SlackCall } from '../helpers/fake-slack.js';
import { type BotProcess, startBotProcess } from '../helpers/replica-process.js';
import { buttonBody, slackHeaders, viewSubmissionBody } from '../helpers/slack-requests.js';
import { useSlackRig } from '../helpers/slack-rig.js';

const SECRET = 'change-set-signing-secret';
const MCP_SECRET = 'change-set-mcp-secret-0123456789';

const PLAN = [
  'create_network name=Doorcams vlan_id=77 subnet=10.77.0.0/24',
  'assign_network_to_zone zone_id=Dmz network_id=Doorcams',
  'create_traffic_matching_list list_type=PORTS name="Cam Ports" items=554,8554',
  'update_network network_id=Guest name=Visitors',
  'update_network network_id=Doorcams dhcp_dns_1=9.9.9.9',
];

const rig = useSlackRig();

/** The controller refuses every network update (classic or official path): the plan's first is step 4. */
const REFUSE_STEP_4 = {
  kind: 'status',
  status: 400,
  method: 'PUT',
  route: /rest\/networkconf|\/networks\/[^/]+$/,
} as const;
const controller = () => {
  const site = rig.sim.state.site('default');
  return structuredClone({
    networks: site?.networks,
    zones: site?.zones,
    lists: site?.trafficMatchingLists,
  });
};
const writes = () => rig.sim.requests.filter((r) => r.method !== 'GET');
const previews = () =>
  rig.slack
    .callsOf('chat.postMessage')
    .filter((c) => !c.args.thread_ts && String(c.args.channel).startsWith('C'));
const results = () => rig.slack.callsOf('chat.postMessage').filter((c) => c.args.thread_ts);
function approveId(call: SlackCall | undefined): string {
  const blocks = (call?.args.blocks ?? []) as { elements?: { action_id: string; value: string }[] }[];
  const button = blocks.flatMap((b) => b.elements ?? []).find((e) => e.action_id === 'approve');
  if (!button) throw new Error('the preview has no Approve button');
  return button.value;
}

/** `/net plan` with the steps on the lines after it; the preview it posts. */
async function plan(bot: BotProcess, head: string, steps: readonly string[]): Promise<SlackCall | undefined> {
  const before = previews().length;
  expect(await bot.command([head, ...steps].join('\n'), 'U1', rig.slack.responseUrl())).toBe(200);
  await rig.slack.waitFor(() => previews().length > before, 20_000);
  return previews().at(-1);
}

/** Approves as U2, and as U3 too when the risk asks two approvals; the result posted in the thread. */
async function approve(bot: BotProcess, id: string): Promise<SlackCall | undefined> {
  const before = results().length;
  const first = rig.slack.responseUrl();
  await bot.click('approve', id, 'U2', first);
  // U3 clicks once U2's click is decided, so it never races the first approval: with two needed,
  // U2 is told the approval is recorded; with one, the set runs and its result is posted.
  await rig.slack.waitFor(
    () => rig.slack.responses.some((r) => first.endsWith(r.path)) || results().length > before,
    30_000,
  );
  await bot.click('approve', id, 'U3', rig.slack.responseUrl());
  await rig.slack.waitFor(() => results().length > before, 30_000);
  return results().at(-1);
}

describe('/net plan over Slack HTTP, and propose_change_set over MCP, one bot', () => {
  let bot: BotProcess;
  beforeAll(async () => {
    bot = await startBotProcess(
      'change-sets',
      {
        SLACK_BOT_TOKEN: 'xoxb-change-sets',
        SLACK_API_URL: rig.slack.apiUrl,
        GATEWAY_URL: rig.sim.url,
        GATEWAY_API_KEY: rig.sim.apiKey,
        MCP_TOKEN: `U0ASSIST:${MCP_SECRET}`,
        MCP_APPROVAL_CHANNEL: 'C0SETS',
      },
      SECRET,
    );
  }, 30_000);
  afterAll(async () => {
    await bot?.kill('SIGKILL');
  });
  beforeEach(() => {
    rig.sim.reset();
    rig.sim.clearFaults();
  });

  it('previews all five steps (step 2 names the network step 1 creates) and runs them in order after one approval', async () => {
    const start = controller();
    const sent = writes().length;
    const preview = await plan(bot, 'plan title="Door cameras"', PLAN);
    const shown = callText(preview);
    for (const value of ['Doorcams', '10.77.0.1/24', 'Dmz', 'Cam Ports', '8554', 'Visitors', '9.9.9.9'])
      expect(shown).toContain(value);
    expect(writes()).toHaveLength(sent);

    const result = await approve(bot, approveId(preview));
    expect(callText(result)).toContain('done');
    const ran = writes()
      .slice(sent)
      .map((r) => `${r.method} ${r.route.replace(/\/[0-9a-f-]{20,}$/, '/<id>')}`);
    expect(ran).toEqual([
      expect.stringMatching(/^POST .*\/integration\/v1\/sites\/[^/]+\/networks$/),
      // The network moves into Dmz: out of its first zone, then into Dmz.
      expect.stringMatching(/^PUT .*firewall\/zones\/<id>$/),
      expect.stringMatching(/^PUT .*firewall\/zones\/<id>$/),
      expect.stringMatching(/^POST .*traffic-matching-lists$/),
      expect.stringMatching(/^PUT .*\/integration\/v1\/sites\/[^/]+\/networks\/<id>$/),
      expect.stringMatching(/^PUT .*\/integration\/v1\/sites\/[^/]+\/networks\/<id>$/),
    ]);
    const site = rig.sim.state.site('default');
    expect(site?.networks.find((n) => n.name === 'Doorcams')?.dhcpd_dns_1).toBe('9.9.9.9');
    expect(site?.networks.some((n) => n.name === 'Visitors')).toBe(true);

    // Revert (the button on the result): one set undoing the five steps in reverse order.
    const revert = ((result?.args.blocks ?? []) as { elements?: { action_id: string; value: string }[] }[])
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.action_id === 'revert_change');
    expect(revert).toBeDefined();
    const posted = previews().length;
    await bot.post(
      // Deliberately alike: a signed Approve click, spelled out where its user and message matter.
      buttonBody({
        actionId: 'revert_change',
        value: revert?.value ?? '',
        userId: 'U1',
        response_url: rig.slack.responseUrl(),
      }),
    );
    await rig.slack.waitFor(() => previews().length > posted, 20_000);
    expect(callText(previews().at(-1))).toMatch(/revert of/);
    await approve(bot, approveId(previews().at(-1)));
    expect(controller()).toEqual(start);
  }, 60_000);

  it('step 4 refused by the controller: every record is as before; the result lists each step', async () => {
    const start = controller();
    const preview = await plan(bot, 'plan', PLAN);
    rig.sim.injectFault(REFUSE_STEP_4);
    const result = await approve(bot, approveId(preview));
    const text = callText(result);
    expect(text).toMatch(/step 4 \(update_network\) failed/);
    expect(text).toMatch(/1\. reverted: create_network/);
    expect(text).toMatch(/4\. failed: update_network/);
    expect(text).toMatch(/5\. not run: update_network/);
    expect(controller()).toEqual(start);
  }, 60_000);

  it('on_failure=stop leaves steps 1–3', async () => {
    const preview = await plan(bot, 'plan on_failure=stop', PLAN);
    rig.sim.injectFault(REFUSE_STEP_4);
    const result = await approve(bot, approveId(preview));
    expect(callText(result)).toMatch(/on_failure=stop/);
    const site = rig.sim.state.site('default');
    expect(site?.networks.some((n) => n.name === 'Doorcams')).toBe(true);
    expect(site?.trafficMatchingLists.some((l) => l.name === 'Cam Ports')).toBe(true);
    expect(site?.networks.some((n) => n.name === 'Visitors')).toBe(false);
  }, 60_000);

  it('a typo in step 3 is refused at preview, naming the step and argument; nothing is posted or sent', async () => {
    const before = { previews: previews().length, writes: writes().length };
    const steps = [...PLAN];
    steps[2] = 'create_traffic_matching_list list_type=PORTS name="Cam Ports" itemz=554';
    const url = rig.slack.responseUrl();
    expect(await bot.command(['plan', ...steps].join('\n'), 'U1', url)).toBe(200);
    const path = new URL(url).pathname;
    await rig.slack.waitFor(() => rig.slack.responses.some((r) => r.path === path), 20_000);
    const answer = JSON.stringify(rig.slack.responses.filter((r) => r.path === path));
    expect(answer).toMatch(/step 3 \(create_traffic_matching_list\) itemz/);
    expect(previews()).toHaveLength(before.previews);
    expect(writes()).toHaveLength(before.writes);
  }, 30_000);

  it('/net plan alone opens a modal; a bad line keeps it open with the reason, a good plan posts its preview', async () => {
    const opened = rig.slack.callsOf('views.open').length;
    expect(await bot.command('plan', 'U1', rig.slack.responseUrl())).toBe(200);
    await rig.slack.waitFor(() => rig.slack.callsOf('views.open').length > opened, 10_000);
    const view = rig.slack.callsOf('views.open').at(-1)?.args.view as {
      callback_id: string;
      private_metadata: string;
    };
    expect(view.callback_id).toBe('plan_form');
    const submit = async (steps: string) => {
      const body = viewSubmissionBody({
        userId: 'U1',
        callbackId: 'plan_form',
        privateMetadata: view.private_metadata,
        values: {
          steps: { value: { type: 'plain_text_input', value: steps } },
          title: { value: { type: 'plain_text_input', value: null } },
          on_failure: { value: { type: 'static_select', selected_option: { value: 'rollback' } } },
        },
      });
      const response = await fetch(`http://127.0.0.1:${bot.port}/slack/events`, {
        method: 'POST',
        headers: slackHeaders(SECRET, body),
        body,
      });
      return response.text();
    };
    expect(
      await submit('create_network name=Lab vlan_id=41 subnet=10.41.0.0/24\nlist_firewall_zones'),
    ).toMatch(/"steps":".*line 2 \(list_firewall_zones\).*writes only/);
    const before = previews().length;
    await submit(PLAN.slice(0, 2).join('\n'));
    await rig.slack.waitFor(() => previews().length > before, 15_000);
    expect(callText(previews().at(-1))).toContain('Doorcams');
  }, 30_000);

  it('an MCP client proposes a set and gets one pending change request; approval in Slack runs it', async () => {
    const client = new Client({ name: 'set-assistant', version: '1.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${bot.port}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${MCP_SECRET}` } },
      }),
    );
    const before = previews().length;
    const result = (await client.callTool({
      name: 'propose_change_set',
      arguments: {
        title: 'Lab',
        steps: [
          { tool: 'create_network', arguments: { name: 'Lab', vlan_id: 41, subnet: '10.41.0.0/24' } },
          { tool: 'assign_network_to_zone', arguments: { zone_id: 'Dmz', network_id: 'Lab' } },
        ],
      },
    })) as CallToolResult;
    expect(result.isError).toBeUndefined();
    const answer = result.structuredContent as { change_request_id: string; state: string; steps: number };
    expect(answer).toMatchObject({ state: 'pending', steps: 2 });
    await rig.slack.waitFor(() => previews().length > before, 10_000);
    expect(previews()).toHaveLength(before + 1);
    expect(approveId(previews().at(-1))).toBe(answer.change_request_id);
    const done = await approve(bot, answer.change_request_id);
    expect(callText(done)).toContain('done');
    const lab = rig.sim.state.site('default')?.networks.find((n) => n.name === 'Lab');
    expect(rig.sim.state.site('default')?.zones.find((z) => z.name === 'Dmz')?.networkIds).toContain(
      lab?.external_id,
    );
    const followed = (await client.callTool({
      name: 'get_change_request',
      arguments: { change_request_id: answer.change_request_id },
    })) as CallToolResult;
    expect(followed.structuredContent).toMatchObject({ state: 'succeeded' });
    await client.close();
  }, 60_000);
});

// Deliberately alike: each set scenario starts from a reset simulator and its own data dir.
describe('the console: plan <file> and plan typed until an empty line', () => {
  it('previews the set, runs it with --yes (or y), records it as one change with its steps', async () => {
    rig.sim.reset();
    rig.sim.clearFaults();
    const dataDir = mkdtempSync(join(tmpdir(), 'netops-set-console-'));
    const env = { GATEWAY_URL: rig.sim.url, GATEWAY_API_KEY: rig.sim.apiKey, DATA_DIR: dataDir };
    const file = join(dataDir, 'changes.txt');
    writeFileSync(file, `# door cameras\n${PLAN.slice(0, 2).join('\n')}\n`);
    const ran = await runBot(['plan', file, '--yes', '--json'], { env });
    expect(ran.code, ran.stderr).toBe(0);
    // One JSON document: what ran, with the whole preview it ran.
    const answer = JSON.parse(ran.stdout) as { change_id: string; steps: string[]; preview: unknown };
    expect(JSON.stringify(answer.preview)).toContain('10.77.0.1/24');
    expect(answer.steps).toEqual([
      expect.stringMatching(/^1\. done: create_network/),
      expect.stringMatching(/^2\. done: assign_network_to_zone/),
    ]);
    const detail = await runBot(['change', answer.change_id], { env });
    expect(detail.stdout).toMatch(/steps \(on_failure=rollback\):\n1\. done: create_network/);

    const typed = await runBot([], {
      env,
      input: `plan on_failure=stop\nupdate_network network_id=Doorcams dhcp_dns_1=9.9.9.9\n\ny\nquit\n`,
    });
    expect(typed.stdout).toMatch(/1\. done: update_network/);
    expect(rig.sim.state.site('default')?.networks.find((n) => n.name === 'Doorcams')?.dhcpd_dns_1).toBe(
      '9.9.9.9',
    );

    // The first set reverts as one at the console, newest step first: the network goes back to the
    // zone it was in, then is deleted.
    const preview = await runBot(['revert', answer.change_id], { env });
    expect(preview.code).toBe(3);
    expect(preview.stdout).toMatch(/at the console: your own confirmation is the approval this change needs/);
    const reverted = await runBot(['revert', answer.change_id, '--yes', '--json'], { env });
    expect(reverted.code, reverted.stderr).toBe(0);
    expect((JSON.parse(reverted.stdout) as { steps: string[] }).steps).toEqual([
      expect.stringMatching(/^1\. done: assign_network_to_zone/),
      expect.stringMatching(/^2\. done: delete_network/),
    ]);
    expect(rig.sim.state.site('default')?.networks.find((n) => n.name === 'Doorcams')).toBeUndefined();
  }, 60_000);
});

describe('a bot killed (SIGKILL) in the middle of a set', () => {
  it('is settled by the next start: the step in flight is read back, not re-sent; steps 3, 2, 1 are reverted once', async () => {
    rig.sim.reset();
    rig.sim.clearFaults();
    const dataDir = mkdtempSync(join(tmpdir(), 'netops-set-kill-'));
    const env = {
      SLACK_BOT_TOKEN: 'xoxb-change-sets-kill',
      SLACK_API_URL: rig.slack.apiUrl,
      GATEWAY_URL: rig.sim.url,
      GATEWAY_API_KEY: rig.sim.apiKey,
      DATA_DIR: dataDir,
    };
    const start = controller();
    const first = await startBotProcess('set-kill-1', env, SECRET);
    const preview = await plan(first, 'plan', PLAN);
    const id = approveId(preview);
    // Step 4's write reaches the controller and is held there: the bot dies while it is in flight.
    let arrived: () => void = () => undefined;
    const inFlight = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let drop: (reason: Error) => void = () => undefined;
    rig.sim.injectFault({
      kind: 'hold',
      method: 'PUT',
      route: /rest\/networkconf|\/networks\/[^/]+$/,
      until: () =>
        new Promise<void>((_resolve, reject) => {
          drop = reject;
          arrived();
        }),
    });
    const told = rig.slack.responseUrl();
    await first.click('approve', id, 'U2', told);
    let held = false;
    void inFlight.then(() => {
      held = true;
    });
    // As approve() does: U3 clicks once U2's click is decided (told, or the set already running).
    await rig.slack.waitFor(() => held || rig.slack.responses.some((r) => told.endsWith(r.path)), 30_000);
    await first.click('approve', id, 'U3', rig.slack.responseUrl());
    await inFlight;
    await first.kill('SIGKILL');
    drop(new Error('the bot is gone'));
    const sentBefore = writes().length;

    const second = await startBotProcess('set-kill-2', env, SECRET);
    try {
      await rig.slack.waitFor(() => JSON.stringify(controller()) === JSON.stringify(start), 20_000);
      const events = readFileSync(join(dataDir, 'approvals.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { id: string; type: string; step?: number; status?: string });
      const steps = events.filter((e) => e.id === id && e.type === 'set_step');
      expect(steps.filter((e) => e.status === 'reverted').map((e) => e.step)).toEqual([3, 2, 1]);
      expect(steps.find((e) => e.step === 4 && e.status === 'failed')).toBeDefined();
      const outcome = events.filter((e) => e.id === id).map((e) => e.type);
      expect(outcome.at(-1)).toBe('failed');
      expect(outcome).toContain('outcome_unknown');
      // The undoing writes (the zone move back is two), and step 4 was never sent again.
      const guest = start.networks?.find((n) => n.name === 'Guest')?._id;
      const after = writes().slice(sentBefore);
      expect(after.filter((r) => r.method === 'DELETE')).toHaveLength(2);
      expect(after.some((r) => r.route.endsWith(`rest/networkconf/${String(guest)}`))).toBe(false);
      expect(controller()).toEqual(start);
    } finally {
      await second.kill('SIGKILL');
    }
  }, 90_000);
});
