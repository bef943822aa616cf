import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { JOURNAL_FILE } from '../../src/store/file/journal.js';
import { slackHttpEnv, stopAllBots } from '../helpers/bot-process.js';
import type { SlackCall } from '../helpers/fake-slack.js';
import { buttonsIn, buttonsOf } from '../helpers/slack-buttons.js';
import {
  buttonBody,
  commandBody,
  homeOpenedBody,
  slackHeaders,
  slackJsonHeaders,
} from '../helpers/slack-requests.js';
import { useListeningBot, useSlackRig } from '../helpers/slack-rig.js';

// Networks serve as the sample write on their classic path (networkconf routes and faults): a 9.0
// console. Networks through the official API (10.1): tools/networks-official.test.ts.

// The policy file (POLICY_FILE) through the built program (`node dist/main.js`, Slack over HTTP,
// the simulator, the file store): the policy file wired into the approval flow. One bot serves
// every test here.

afterAll(stopAllBots);

const SECRET = 'policy-approvals-signing-secret';
const PERIOD_S = 20;
// The openings' phase: 2 s past the second this file loads (mod PERIOD_S). The window test comes
// a few seconds after the bot starts; phased so, it finds itself early in a closed stretch and
// waits for one opening, instead of first waiting for a closed stretch to begin.
const PHASE_S = (Math.floor(Date.now() / 1000) + 2) % PERIOD_S;
const OPENINGS = Array.from({ length: 60 / PERIOD_S }, (_, k) => PHASE_S + k * PERIOD_S).join(',');

const dir = mkdtempSync(join(tmpdir(), 'netops-policy-approvals-'));
const POLICY = join(dir, 'policy.yaml');
writeFileSync(
  POLICY,
  `windows:
  soon:
    # Opens every ${PERIOD_S} seconds for two seconds (six fields: seconds first).
    cron: "${OPENINGS} * * * * *"
    duration: 2s
rules:
  - name: no-delete-with-clients
    when: tool == "delete_network" && blast_radius.clients.count > 0
    deny: Move the clients off the network first
  - name: renames-in-the-window
    when: tool == "update_network" && has(args.name) && args.name.startsWith("Win")
    window: soon
`,
);

describe('the policy in the approval flow (Slack over HTTP, file store)', () => {
  const rig = useSlackRig({ apiVersion: '9.0' });
  const served = useListeningBot(() => ({
    ...slackHttpEnv(rig.slack, SECRET, rig.sim),
    POLICY_FILE: POLICY,
    // The bot's own address inside the demo IoT network (10.20.0.0/24).
    BOT_SOURCE_ADDRESS: '10.20.0.103',
  }));
  const post = (body: string) =>
    fetch(served.events, { method: 'POST', headers: slackHeaders(SECRET, body), body });
  const previews = () => rig.slack.callsOf('chat.postMessage').filter((c) => !c.args.thread_ts);
  const threadOf = (ts: string) =>
    rig.slack.callsOf('chat.postMessage').filter((c) => c.args.thread_ts === ts);
  const updatesOf = (ts: string) => rig.slack.callsOf('chat.update').filter((c) => c.args.ts === ts);
  const textOf = (call: SlackCall | undefined) =>
    `${String(call?.args.text)} ${JSON.stringify(call?.args.blocks ?? [])}`;
  const journal = () => {
    const path = join(served.bot.dataDir, JOURNAL_FILE);
    if (!existsSync(path)) return [];
    return readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map(
        (l) =>
          JSON.parse(l) as {
            type: string;
            id: string;
            actor: { userId: string };
            request?: { tool: string };
          },
      );
  };
  const typesOf = (id: string) =>
    journal()
      .filter((e) => e.id === id)
      .map((e) => e.type);

  /** `/net <text>` as U1; the response_url it was given. */
  async function command(text: string): Promise<string> {
    const url = rig.slack.responseUrl();
    await post(commandBody({ text, user_id: 'U1', channel_id: 'C1', response_url: url }));
    return url;
  }

  /** Proposes as U1 and returns the posted preview and its request id. */
  async function propose(text: string): Promise<{ id: string; ts: string; preview: SlackCall }> {
    const before = previews().length;
    await command(text);
    await rig.slack.waitFor(() => previews().length > before, 20_000);
    const preview = previews().at(-1) as SlackCall;
    const id = buttonsOf(preview).find((b) => b.action_id === 'approve')?.value ?? '';
    await rig.slack.waitFor(() => typesOf(id).includes('message'), 10_000);
    return { id, ts: String(preview.answer?.ts ?? ''), preview };
  }

  /** Clicks Approve as `user` and resolves with what the clicker was told. */
  async function click(id: string, user: string): Promise<string> {
    const url = rig.slack.responseUrl();
    await post(buttonBody({ actionId: 'approve', value: id, userId: user, response_url: url }));
    await rig.slack.waitFor(() => rig.slack.responses.some((r) => url.endsWith(r.path)), 20_000);
    return String(rig.slack.responses.find((r) => url.endsWith(r.path))?.body.text);
  }

  const writesTo = (route: string) =>
    rig.sim.requests.filter((r) => r.method !== 'GET' && r.route.includes(route));

  it('refuses delete_network of a network with clients with the rule’s reason, and writes nothing', async () => {
    const posted = previews().length;
    const url = await command('delete_network network_id=IoT');
    await rig.slack.waitFor(() => rig.slack.responses.some((r) => url.endsWith(r.path)), 20_000);
    const told = String(rig.slack.responses.find((r) => url.endsWith(r.path))?.body.text);

    expect(told).toContain(
      'refused by policy rule "no-delete-with-clients": Move the clients off the network first',
    );
    expect(previews()).toHaveLength(posted);
    expect(journal().filter((e) => e.request?.tool === 'delete_network')).toEqual([]);
    expect(writesTo('networkconf')).toEqual([]);
    expect(rig.sim.state.findNetworkByName('default', 'IoT')).toBeDefined();
  }, 30_000);

  it('previews a change to the bot’s own network as high risk with the self-lockout warning in bold, then needs two distinct approvers', async () => {
    const { id, ts, preview } = await propose('update_network network_id=IoT vlan_id=21');
    const shown = textOf(preview);
    expect(shown).toContain('*Risk: high*');
    expect(shown).toContain(
      ':rotating_light: *This change may cut the bot off from the controller: the bot’s own address 10.20.0.103 is in network IoT (VLAN 20), subnet 10.20.0.1/24.*',
    );
    expect(shown).toContain('0 of 2 approvals');

    const first = await click(id, 'U2');
    expect(first).toContain('1 of 2 approvals');
    await rig.slack.waitFor(() => updatesOf(ts).some((c) => textOf(c).includes('1 of 2 approvals')));
    const edited = textOf(updatesOf(ts).find((c) => textOf(c).includes('1 of 2 approvals')));
    expect(edited).toContain('approved by <@U2>');
    expect(edited).toContain('may still approve');
    expect(await click(id, 'U2')).toContain('you approved this change already');
    expect(await click(id, 'U1')).toContain('you requested this change');
    expect(writesTo('networkconf')).toEqual([]);

    // The last approval runs it; its clicker sees the message change, nothing is whispered.
    await post(
      buttonBody({ actionId: 'approve', value: id, userId: 'U3', response_url: rig.slack.responseUrl() }),
    );
    await rig.slack.waitFor(() => typesOf(id).includes('succeeded'), 20_000);
    expect(writesTo('networkconf')).toHaveLength(1);
    expect(rig.sim.state.findNetworkByName('default', 'IoT')).toMatchObject({ vlan: 21 });
    const approvals = journal().filter((e) => e.id === id && ['endorsed', 'approved'].includes(e.type));
    expect(approvals.map((e) => [e.type, e.actor.userId])).toEqual([
      ['endorsed', 'U2'],
      ['approved', 'U3'],
    ]);
    const created = journal().find((e) => e.id === id && e.type === 'created') as unknown as {
      request: { assessment: { risk: string; selfLockout: string; approvals: number } };
    };
    expect(created.request.assessment).toMatchObject({ risk: 'high', approvals: 2 });
    expect(created.request.assessment.selfLockout).toContain('10.20.0.103');
  }, 60_000);

  it('schedules a change approved outside its window, runs it at the opening, and does not run one whose target changed', async () => {
    // Approve well inside a closed stretch, a few seconds before the next opening.
    const inPeriod = () => (Math.floor(Date.now() / 1000) - PHASE_S + PERIOD_S) % PERIOD_S;
    while (inPeriod() < 2 || inPeriod() > 7) await new Promise((r) => setTimeout(r, 250));
    const guest = rig.sim.state.findNetworkByName('default', 'Guest');
    const runs = await propose('update_network network_id=Cameras name=WinCams');
    const drifts = await propose(`update_network network_id=${String(guest?._id)} name=WinGuest`);
    expect(textOf(runs.preview)).toContain('Runs only in window `soon`');

    expect(await click(runs.id, 'U2')).toContain('scheduled for');
    expect(await click(drifts.id, 'U2')).toContain('scheduled for');
    await rig.slack.waitFor(() => updatesOf(runs.ts).some((c) => textOf(c).includes('*Scheduled*')));
    expect(typesOf(runs.id)).toContain('scheduled');
    expect(rig.sim.state.findNetworkByName('default', 'WinCams')).toBeUndefined();
    // App Home lists them with Run now and Cancel; Run now is refused while the policy requires the window.
    const body = homeOpenedBody('U2');
    const published = rig.slack.callsOf('views.publish').length;
    await fetch(served.events, { method: 'POST', headers: slackJsonHeaders(SECRET, body), body });
    await rig.slack.waitFor(() => rig.slack.callsOf('views.publish').length > published, 10_000);
    const home = rig.slack.callsOf('views.publish').at(-1);
    const view = JSON.stringify(home?.args.view);
    expect(view).toContain('Scheduled changes');
    const homeButtons = buttonsIn((home?.args.view as { blocks?: unknown } | undefined)?.blocks);
    expect(homeButtons).toContainEqual(
      expect.objectContaining({ action_id: 'run_scheduled_now', value: runs.id }),
    );
    expect(homeButtons).toContainEqual(expect.objectContaining({ action_id: 'cancel', value: runs.id }));
    const runNow = rig.slack.responseUrl();
    await post(
      buttonBody({ actionId: 'run_scheduled_now', value: runs.id, userId: 'U2', response_url: runNow }),
    );
    await rig.slack.waitFor(() => rig.slack.responses.some((r) => runNow.endsWith(r.path)), 20_000);
    expect(String(rig.slack.responses.find((r) => runNow.endsWith(r.path))?.body.text)).toContain(
      'the policy lets this change run only in window soon',
    );
    // A third one is scheduled, then cancelled: it never runs.
    const cancelled = await propose('update_network network_id=IoT name=WinIoT');
    expect(await click(cancelled.id, 'U2')).toContain('scheduled for');
    await post(
      buttonBody({
        actionId: 'cancel',
        value: cancelled.id,
        userId: 'U1',
        response_url: rig.slack.responseUrl(),
      }),
    );
    await rig.slack.waitFor(() => typesOf(cancelled.id).includes('cancelled'), 10_000);
    // Someone renames Guest on the controller before the window opens.
    if (guest) guest.name = 'Visitors';

    await rig.slack.waitFor(() => typesOf(runs.id).includes('succeeded'), (PERIOD_S + 10) * 1000);
    expect(rig.sim.state.findNetworkByName('default', 'WinCams')).toBeDefined();
    await rig.slack.waitFor(() => typesOf(drifts.id).includes('superseded'), 10_000);
    await rig.slack.waitFor(() =>
      threadOf(drifts.ts).some((c) => textOf(c).includes('Not run at the opening')),
    );
    expect(textOf(threadOf(drifts.ts).find((c) => textOf(c).includes('Not run at the opening')))).toContain(
      'the target changed since it was approved',
    );
    expect(rig.sim.state.findNetworkByName('default', 'WinGuest')).toBeUndefined();
    expect(rig.sim.state.findNetworkByName('default', 'Visitors')).toBeDefined();
    expect(rig.sim.state.findNetworkByName('default', 'WinIoT')).toBeUndefined();
    expect(typesOf(cancelled.id).at(-1)).toBe('cancelled');
  }, 90_000);
});
