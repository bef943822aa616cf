import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { DEADLINES_FILE } from '../../src/store/file/deadline-file.js';
import { MAIN, runBot, slackHttpEnv, spawnBot, stopAllBots } from '../helpers/bot-process.js';
import { callText, type FakeSlack, startFakeSlack } from '../helpers/fake-slack.js';
import { network, putsTo } from '../helpers/network-writes.js';
import { buttonsOf, keepPromptPosted, proposeInC1 } from '../helpers/slack-buttons.js';
import { buttonBody, slackHeaders } from '../helpers/slack-requests.js';

// One gate through the built program (`node dist/main.js`, environment only): the Approve button,
// Keep, Revert now, a timer firing, the console's --yes and an MCP confirm all get the same answer
// from the same policy. Only the actor the policy names succeeds; the others are refused with the
// reason, and nothing reaches the controller. Networks on a 9.0 console are the sample write.

afterAll(stopAllBots);

const SECRET = 'one-gate-signing-secret';
const putsToNamed = (sim: Simulator, name: string) => putsTo(sim, network(sim, name)?._id);
const vlanOf = (sim: Simulator, name: string) => network(sim, name)?.vlan;

/** A bot on the file store with a policy file, Slack over HTTP, the timers ticking every second. */
async function startBot(policy: string, sim: Simulator, slack: FakeSlack) {
  const dir = mkdtempSync(join(tmpdir(), 'netops-one-gate-'));
  const policyFile = join(dir, 'policy.yaml');
  writeFileSync(policyFile, policy);
  const env = {
    GATEWAY_URL: sim.url,
    GATEWAY_API_KEY: sim.apiKey,
    DATA_DIR: join(dir, 'data'),
    POLICY_FILE: policyFile,
  };
  const bot = spawnBot({
    ...env,
    ...slackHttpEnv(slack, SECRET),
    AUDIT_CHANNEL: 'CAUDIT',
    CHANGE_TIMER_TICK_SECONDS: '1',
  });
  const listening = await bot.waitForLog((line) => line.msg.startsWith('listening on port'), 20_000);
  const events = `http://127.0.0.1:${String(listening.port)}/slack/events`;
  const post = (body: string) => fetch(events, { method: 'POST', headers: slackHeaders(SECRET, body), body });
  return { bot, env, post };
}

/** A simulator, the fake Slack and a bot with `policy`, started before the describe's tests. */
function botWith(policy: string) {
  const parts = {} as { slack: FakeSlack; sim: Simulator; bot: Awaited<ReturnType<typeof startBot>> };
  beforeAll(async () => {
    [parts.slack, parts.sim] = await Promise.all([startFakeSlack(), startSimulator({ apiVersion: '9.0' })]);
    parts.bot = await startBot(policy, parts.sim, parts.slack);
  }, 30_000);
  afterAll(async () => {
    await parts.bot?.bot.stop('SIGKILL');
    await Promise.all([parts.slack?.close(), parts.sim?.close()]);
  });
  return parts;
}

/** Slack's side: proposals, clicks, and what the clicker and the channels are told. */
function slackSide(slack: FakeSlack, post: (body: string) => Promise<unknown>) {
  const audit = () => slack.callsOf('chat.postMessage').filter((c) => c.args.channel === 'CAUDIT');
  /** What the clicker was told privately (response_url answers and ephemeral posts). */
  const toldPrivately = () => [
    ...slack.responses.map((r) => JSON.stringify(r.body)),
    ...slack.callsOf('chat.postEphemeral').map(callText),
  ];
  const click = async (actionId: string, value: string, userId: string) => {
    const before = toldPrivately().length;
    await post(buttonBody({ actionId, value, userId, response_url: slack.responseUrl() }));
    return before;
  };
  return {
    audit,
    toldPrivately,
    async propose(text: string): Promise<string> {
      return proposeInC1(slack, post, text, 'U0RITA');
    },
    /** Clicks, without waiting for an answer (an approval that runs is answered in the channel). */
    async click(actionId: string, value: string, userId: string): Promise<void> {
      await click(actionId, value, userId);
    },
    /** Clicks and resolves with what the clicker was told next. */
    async clickAndHear(actionId: string, value: string, userId: string): Promise<string> {
      const before = await click(actionId, value, userId);
      await slack.waitFor(() => toldPrivately().length > before, 20_000);
      return toldPrivately().slice(before).join('\n');
    },
    approved: (id: string) => keepPromptPosted(slack, id),
  };
}

describe.concurrent('one gate, through the built bot', () => {
  const POLICY = `rules:
  - name: networks-by-carol
    when: tool == "update_network"
    approvers: [U0CAROL]
    revert_after: 1h
`;

  const p = botWith(POLICY);

  it.sequential('Approve, Keep and Revert now: Bob is refused with the reason, Carol is not', async () => {
    const side = slackSide(p.slack, p.bot.post);
    const id = await side.propose('update_network network_id=IoT vlan_id=24');

    expect(await side.clickAndHear('approve', id, 'U0BOB')).toMatch(
      /only the approvers the policy named at the proposal \(<@U0CAROL>\) may approve this change/,
    );
    expect(putsToNamed(p.sim, 'IoT')).toBe(0);

    await side.click('approve', id, 'U0CAROL');
    await side.approved(id);
    expect(vlanOf(p.sim, 'IoT')).toBe(24);
    expect(putsToNamed(p.sim, 'IoT')).toBe(1);

    expect(await side.clickAndHear('keep_change', id, 'U0BOB')).toMatch(
      /only someone who may approve this change can keep it: only the approvers .*<@U0CAROL>/,
    );
    expect(await side.clickAndHear('revert_now', id, 'U0BOB')).toMatch(
      /only someone who may approve this change can revert it now: only the approvers .*<@U0CAROL>/,
    );
    const deadlines = JSON.parse(readFileSync(join(p.bot.env.DATA_DIR, DEADLINES_FILE), 'utf8')) as {
      deadlines: { changeId: string; state: string }[];
    };
    expect(deadlines.deadlines.find((d) => d.changeId === id)?.state).toBe('scheduled');
    expect(putsToNamed(p.sim, 'IoT')).toBe(1);

    expect(await side.clickAndHear('keep_change', id, 'U0CAROL')).toMatch(/Kept/);
    await p.slack.waitFor(() => side.audit().some((c) => callText(c).includes(`(${id}) kept by`)), 20_000);
  });

  it.sequential('the console’s --yes is refused where the policy names approvers, and runs with the bot keeping its deadline otherwise', async () => {
    const refused = await runBot(['update_network', 'network_id=Guest', 'name=Lobby', '--yes'], {
      env: p.bot.env,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /only U0CAROL may approve this change .*propose it in Slack \(\/net update_network/,
    );
    expect(putsToNamed(p.sim, 'Guest')).toBe(0);

    const timed = await runBot(
      ['create_network', 'name=Gate', 'vlan_id=77', 'subnet=10.77.0.0/24', 'for=1h', '--yes'],
      { env: p.bot.env },
    );
    expect(timed.code, timed.stderr).toBe(0);
    expect(timed.stdout).toMatch(/deadline: temporary: reverts by itself 1h after it runs/);
  });

  it.sequential('Slack, the console, a revert and a plan show the same risk and who must approve', async () => {
    const side = slackSide(p.slack, p.bot.post);
    const id = await side.propose('update_network network_id=Servers name=Srv');
    const shown = callText(
      p.slack.callsOf('chat.postMessage').find((c) => buttonsOf(c).some((b) => b.value === id)),
    );
    expect(shown).toContain('0 of 1 approval');
    expect(shown).toContain('may still approve: <@U0CAROL>');
    expect(shown).toMatch(/medium/);
    const console = await runBot(['update_network', 'network_id=Servers', 'name=Srv'], { env: p.bot.env });
    expect(console.stdout).toMatch(/risk: medium \(/);
    expect(console.stdout).toContain('needs 1 approval from people other than the requester (only U0CAROL)');
    expect(console.stdout).toMatch(/cannot run at the console: only U0CAROL may approve this change/);

    const made = await runBot(
      ['create_network', 'name=Plan', 'vlan_id=78', 'subnet=10.78.0.0/24', '--yes', '--json'],
      {
        env: p.bot.env,
      },
    );
    const changeId = (JSON.parse(made.stdout) as { change_id: string }).change_id;
    const revert = await runBot(['revert', changeId], { env: p.bot.env });
    expect(revert.code).toBe(3);
    expect(revert.stdout).toMatch(/risk: (low|medium) \(/);
    expect(revert.stdout).toContain('needs 1 approval from people other than the requester');
    expect(revert.stdout).toContain(
      'at the console: your own confirmation is the approval this change needs',
    );

    const planFile = join(mkdtempSync(join(tmpdir(), 'netops-one-gate-plan-')), 'plan.txt');
    writeFileSync(
      planFile,
      'update_network network_id=Servers name=Srv2\ncreate_network name=Plan2 vlan_id=79 subnet=10.79.0.0/24\n',
    );
    const plan = await runBot(['plan', planFile], { env: p.bot.env });
    expect(plan.code).toBe(3);
    expect(plan.stdout).toMatch(/risk: medium \(step 1: /);
    expect(plan.stdout).toContain('(only U0CAROL)');
    expect(plan.stdout).toMatch(/cannot run at the console: only U0CAROL may approve this change/);
  });

  it.sequential('with no policy file, one y at the console cannot restart a switch 25 clients hang off', async () => {
    const env = {
      GATEWAY_URL: p.sim.url,
      GATEWAY_API_KEY: p.sim.apiKey,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'netops-one-gate-')),
    };
    const restarts = () =>
      p.sim.requests.filter((r) => r.method === 'POST' && /devmgr|actions/.test(r.route)).length;
    const check = await runBot(['policy', 'check', 'restart_device', 'device_id=Office Switch'], { env });
    expect(check.stdout, check.stderr).toMatch(
      /at_console: cannot run: this change needs 2 approvals \(high risk\)/,
    );
    const preview = await runBot(['restart_device', 'device_id=Office Switch'], { env });
    expect(preview.stdout).toMatch(/risk: high \(25 clients affected/);
    expect(preview.stdout).toMatch(/needs 2 approvals from people other than the requester/);
    const yes = await runBot(['restart_device', 'device_id=Office Switch', '--yes'], { env });
    expect(yes.code).toBe(1);
    expect(yes.stderr).toMatch(
      /needs 2 approvals \(high risk\); your own confirmation at the console counts as one/,
    );
    expect(restarts()).toBe(0);

    // The same risk at the console and in policy check, for a port's power cycle.
    const port = ['power_cycle_port', 'device_id=Core Switch', 'port_idx=5'];
    const [consoleRisk, checkRisk] = await Promise.all([
      runBot(port, { env }),
      runBot(['policy', 'check', ...port], { env }),
    ]);
    expect(consoleRisk.stdout).toMatch(/risk: medium \(1 client affected \(NVR\)\)/);
    expect(checkRisk.stdout).toMatch(/risk: medium\nreasons: 1 client affected \(NVR\)/);
  });

  it.sequential('an MCP confirm is refused with the reason and the way to get an approval', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN, 'mcp'],
      env: { ...p.bot.env, MCP_WRITES: 'confirm', PATH: process.env.PATH ?? '' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'one-gate-assistant', version: '1.0' });
    await client.connect(transport);
    try {
      const result = (await client.callTool({
        name: 'update_network',
        arguments: { network_id: 'Cameras', vlan_id: 36, confirm: true },
      })) as CallToolResult;
      expect(result.isError).toBe(true);
      const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
      expect(text).toMatch(/only U0CAROL may approve this change.*MCP_WRITES=approval/);
      expect(putsToNamed(p.sim, 'Cameras')).toBe(0);
    } finally {
      await client.close();
    }
  });
});

describe('a timer that fires during a freeze', () => {
  const now = Date.now();
  const POLICY = `freezes:
  - name: quarter-close
    from: ${new Date(now - 3_600_000).toISOString()}
    to: ${new Date(now + 3_600_000).toISOString()}
    reason: quarter close
    approvers: [U0CAROL]
`;

  const p = botWith(POLICY);

  it('does not revert by itself: the thread and the audit channel say why, and nothing is sent', async () => {
    const side = slackSide(p.slack, p.bot.post);
    const id = await side.propose('update_network network_id=Cameras vlan_id=34 revert_after=5s');
    await side.click('approve', id, 'U0CAROL');
    await side.approved(id);
    expect(putsToNamed(p.sim, 'Cameras')).toBe(1);

    await p.slack.waitFor(
      () => side.audit().some((c) => callText(c).includes(`(${id}) was NOT reverted automatically`)),
      30_000,
    );
    const said = side.audit().find((c) => callText(c).includes(`(${id}) was NOT reverted automatically`));
    expect(callText(said)).toMatch(/freeze .*quarter-close.* is in force/);
    expect(putsToNamed(p.sim, 'Cameras')).toBe(1);
    expect(vlanOf(p.sim, 'Cameras')).toBe(34);
  });
});
