import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { SHUTTING_DOWN_TEXT } from '../../src/slack/transport/drain.js';
import { FileStore } from '../../src/store/file/file-store.js';
import { journalReport } from '../../src/store/file/journal.js';
import { Clock } from '../approvals/harness.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { callText } from '../helpers/fake-slack.js';
import { faultyFs } from '../helpers/faulty-fs.js';
import { type SlackBot, useSlackBots } from '../helpers/slack-bot.js';
import { buttonsOf, requestIdOf } from '../helpers/slack-buttons.js';
import { viewSubmissionBody } from '../helpers/slack-requests.js';

const bot = useSlackBots();

const previews = (b: SlackBot) => b.slack.callsOf('chat.postMessage').filter((c) => !c.args.thread_ts);
const networkPosts = (b: SlackBot) =>
  b.sim.requests.filter((r) => r.method === 'POST' && r.route.endsWith('/networks'));
const updatesOf = (b: SlackBot, ts: string) => b.slack.callsOf('chat.update').filter((c) => c.args.ts === ts);

/** Holds the next network write at the simulator until `release()` (it arrives, and waits). */
function holdNetworkWrite(b: SlackBot): { release: () => void } {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  b.sim.injectFault({ kind: 'hold', method: 'POST', route: /\/networks$/, until: () => held });
  return { release };
}

/** Proposes a network and returns the request id and the preview's ts, once the ts is recorded. */
async function propose(b: SlackBot, name: string, vlan: number): Promise<{ id: string; ts: string }> {
  return b.propose(`create_network name=${name} vlan_id=${vlan} subnet=10.${vlan}.0.0/24`, 'U1');
}

// Deliberately alike: each case holds the controller write with latency to act while it is in flight.
describe('an approved change while it runs', () => {
  it('shows "Running…" without buttons before the controller write starts', async () => {
    const b = await bot();
    const { id, ts } = await propose(b, 'Held', 71);
    b.sim.injectFault({ kind: 'latency', ms: 800, method: 'POST', route: /\/networks$/ });

    await b.click('approve', id, 'U2');
    await b.slack.waitFor(() => networkPosts(b).length === 1);
    const shownWhenTheWriteArrived = updatesOf(b, ts).map((c) => callText(c));
    const createdYet = b.sim.state.findNetworkByName('default', 'Held') !== undefined;
    await b.slack.waitFor(() => updatesOf(b, ts).some((c) => callText(c).includes('*Done*')));

    expect(createdYet).toBe(false);
    expect(shownWhenTheWriteArrived).toHaveLength(1);
    expect(shownWhenTheWriteArrived[0]).toContain('*Running…* · approved by <@U2>');
    expect(buttonsOf(updatesOf(b, ts)[0])).toEqual([]);
    expect(updatesOf(b, ts).map((c) => (callText(c).includes('*Done*') ? 'done' : 'running'))).toEqual([
      'running',
      'done',
    ]);
    expect(networkPosts(b)).toHaveLength(1);
  });
});

describe('a request decided before its message ts was recorded', () => {
  it('is edited once the ts is known: cancelled while chat.postMessage was still answering', async () => {
    const b = await bot();
    b.slack.delays['chat.postMessage'] = 600;
    await b.command('create_network name=Race vlan_id=72 subnet=10.72.0.0/24', 'U1');
    await b.slack.waitFor(() => previews(b).length === 1);
    const id = requestIdOf(previews(b)[0]);

    await b.click('cancel', id, 'U1');
    await b.slack.waitFor(async () => (await b.approvals.get(id))?.state === 'cancelled');
    const editsBeforeTheTs = b.slack.callsOf('chat.update').length;
    await b.slack.waitFor(() => b.slack.callsOf('chat.update').length > 0, 5000);

    const edit = b.slack.callsOf('chat.update')[0];
    expect(editsBeforeTheTs).toBe(0);
    expect(callText(edit)).toContain('Cancelled');
    expect(buttonsOf(edit)).toEqual([]);
    expect(edit?.args.ts).toBe((await b.approvals.get(id))?.message?.ts);
  });

  it('is edited once the ts is known: expired by a sweep while chat.postMessage was still answering', async () => {
    const clock = new Clock();
    clock.ms = Date.now();
    const b = await bot({ now: clock.now });
    b.slack.delays['chat.postMessage'] = 600;
    await b.command('create_network name=Late vlan_id=73 subnet=10.73.0.0/24', 'U1');
    await b.slack.waitFor(() => previews(b).length === 1);
    const id = requestIdOf(previews(b)[0]);

    clock.advance(901);
    await b.app.slack?.sweep();
    const state = (await b.approvals.get(id))?.state;
    await b.slack.waitFor(() => b.slack.callsOf('chat.update').length > 0, 5000);

    expect(state).toBe('expired');
    expect(callText(b.slack.callsOf('chat.update')[0])).toContain('Expired, not run');
    expect(buttonsOf(b.slack.callsOf('chat.update')[0])).toEqual([]);
  });
});

describe('message edits a sweep could not make', () => {
  it('are made at the next sweep', async () => {
    const clock = new Clock();
    clock.ms = Date.now();
    const b = await bot({ now: clock.now });
    const { id, ts } = await propose(b, 'Owed', 74);
    b.slack.failures['chat.update'] = { error: 'ratelimited', times: 1 };

    clock.advance(901);
    const first = await b.app.slack?.sweep();
    const afterFirst = updatesOf(b, ts).length;
    const second = await b.app.slack?.sweep();

    expect(first).toEqual({ expired: 1, interrupted: 0, announced: 0, edited: 0 });
    expect(afterFirst).toBe(1);
    expect(second).toEqual({ expired: 0, interrupted: 0, announced: 0, edited: 0 });
    expect(updatesOf(b, ts)).toHaveLength(2);
    expect(callText(updatesOf(b, ts)[1])).toContain('Expired, not run');
    expect((await b.approvals.get(id))?.state).toBe('expired');
  });
});

describe('a journal that cannot be written', () => {
  it('refuses the change with a clear message, and /healthz says degraded with the reason until the disk takes writes again', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'netops-slack-'));
    const disk = faultyFs();
    const b = await bot({
      dataDir,
      store: new FileStore(dataDir, { data: new MemoryStore(), fs: disk.seam }),
    });
    const health = async () => {
      const response = await fetch(`http://127.0.0.1:${b.port}/healthz`);
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    disk.faults.enospcAfter = 10;

    const { responseUrl } = await b.command('create_network name=Full vlan_id=75 subnet=10.75.0.0/24', 'U1');
    await b.slack.waitFor(() => b.slack.responses.some((r) => responseUrl.endsWith(r.path)));
    disk.faults.enospcAfter = 0;
    const full = await health();
    const freed = await health();
    const retry = await propose(b, 'Full', 75);

    const told = b.slack.responses.find((r) => responseUrl.endsWith(r.path));
    expect(String(told?.body.text)).toBe(
      ':floppy_disk: Not recorded: the approvals journal cannot be written (the disk is full, ENOSPC), so nothing was recorded. ' +
        "Nothing was run; ask an admin to check the bot's storage (/healthz says why), then try again.",
    );
    expect(previews(b)).toHaveLength(1);
    expect(full.status).toBe(200);
    expect(full.body).toMatchObject({
      status: 'degraded',
      store: { kind: 'file', ok: false, read_only: true },
      pending_changes: 0,
    });
    expect(String((full.body.store as { error: string }).error)).toMatch(
      /\(ENOSPC\): changes are refused, lookups work$/,
    );
    expect(freed).toMatchObject({ status: 200, body: { status: 'ok', store: { kind: 'file', ok: true } } });
    expect((await b.approvals.get(retry.id))?.state).toBe('pending');
    expect(b.sim.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });
});

describe('stopping', () => {
  it('refuses new work, reports 503 stopping, and lets a running change finish before it stops', async () => {
    const b = await bot();
    const { id, ts } = await propose(b, 'Drain', 76);
    b.sim.injectFault({ kind: 'latency', ms: 800, method: 'POST', route: /\/networks$/ });
    await b.click('approve', id, 'U2');
    await b.slack.waitFor(() => networkPosts(b).length === 1);

    const stopping = b.app.slack?.stop();
    const command = await b.command('list_vlans', 'U3');
    const health = await fetch(`http://127.0.0.1:${b.port}/healthz`);
    const healthBody = await health.json();
    const stateWhileStopping = (await b.approvals.get(id))?.state;
    await stopping;

    expect(JSON.parse(command.text)).toEqual({
      response_type: 'ephemeral',
      text: ':hourglass: The bot is restarting and takes no new work; nothing was done. Try again in a moment.',
    });
    expect(health.status).toBe(503);
    expect(healthBody).toMatchObject({ status: 'stopping' });
    expect(stateWhileStopping).toBe('executing');
    expect((await b.approvals.get(id))?.state).toBe('succeeded');
    expect(callText(updatesOf(b, ts).at(-1))).toContain('*Done*');
    expect(b.slack.callsOf('chat.postMessage').filter((c) => c.args.thread_ts === ts)).toHaveLength(1);
    expect(networkPosts(b)).toHaveLength(1);
    expect(b.slack.responses).toHaveLength(0);
  });

  it('makes an edit Slack refused earlier once more before it stops, instead of losing it', async () => {
    // Arrange: the "Running…" and "Done" edits are refused, so "Done" is owed to the next sweep.
    const b = await bot();
    const { id, ts } = await propose(b, 'Owed', 77);
    b.slack.faults['chat.update'] = 'ratelimited';
    await b.click('approve', id, 'U2');
    await b.slack.waitFor(async () => (await b.approvals.get(id))?.state === 'succeeded');
    const shownBeforeStop = updatesOf(b, ts).filter((c) => c.answer?.ok === true).length;
    delete b.slack.faults['chat.update'];

    // Act: no sweep ran; the bot is stopped.
    await b.app.slack?.stop();

    // Assert
    const made = updatesOf(b, ts).filter((c) => c.answer?.ok === true);
    expect(shownBeforeStop).toBe(0);
    expect(made).toHaveLength(1);
    expect(callText(made[0])).toContain('*Done*');
  });

  it('answers a click and a form submission "restarting" too, and does neither', async () => {
    // Writes wait up to 10 s here, so the held one keeps the bot stopping while the test clicks.
    const b = await bot({ gateway: { timeoutMs: 10_000 } });
    const waiting = await propose(b, 'Later', 78);
    const running = await propose(b, 'Busy', 79);
    await b.command('form create_network', 'U1');
    await b.slack.waitFor(() => b.slack.callsOf('views.open').length === 1);
    const form = b.slack.callsOf('views.open')[0]?.args.view as {
      private_metadata: string;
      blocks: { type: string; block_id?: string }[];
    };
    const write = holdNetworkWrite(b);
    await b.click('approve', running.id, 'U2');
    await b.slack.waitFor(() => networkPosts(b).length === 1);

    const stopping = b.app.slack?.stop();
    const click = await b.click('approve', waiting.id, 'U2');
    await b.slack.waitFor(() => b.slack.responses.some((r) => click.responseUrl.endsWith(r.path)));
    const submitted = await b.post(
      viewSubmissionBody({
        userId: 'U1',
        privateMetadata: form.private_metadata,
        blocks: form.blocks,
        values: {
          name: { value: { type: 'plain_text_input', value: 'Stopping' } },
          vlan_id: { value: { type: 'plain_text_input', value: '80' } },
          subnet: { value: { type: 'plain_text_input', value: '10.80.0.0/24' } },
        },
      }),
    );
    const stateWhileStopping = (await b.approvals.get(running.id))?.state;
    write.release();
    await stopping;

    const firstInput = form.blocks.find((x) => x.type === 'input')?.block_id ?? '';
    expect(click.status).toBe(200);
    expect(b.slack.responses.find((r) => click.responseUrl.endsWith(r.path))?.body).toEqual({
      response_type: 'ephemeral',
      replace_original: false,
      text: SHUTTING_DOWN_TEXT,
    });
    // Shown under the form's first input (the site), the form left open to submit again later.
    expect(firstInput).toBe('site_id');
    expect(submitted.status).toBe(200);
    expect(JSON.parse(submitted.text)).toEqual({
      response_action: 'errors',
      errors: { site_id: SHUTTING_DOWN_TEXT },
    });
    expect(stateWhileStopping).toBe('executing');
    expect((await b.approvals.get(waiting.id))?.state).toBe('pending');
    expect((await b.approvals.get(running.id))?.state).toBe('succeeded');
    expect(previews(b)).toHaveLength(2);
    expect(networkPosts(b)).toHaveLength(1);
  });

  it('stops at SHUTDOWN_GRACE_SECONDS with the change still running, says so, and the restart shows its outcome unknown', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'netops-slack-'));
    const log = captureLogger();
    const first = await bot({
      dataDir,
      logger: log.logger,
      env: { SHUTDOWN_GRACE_SECONDS: '1' },
      gateway: { timeoutMs: 30_000 },
    });
    const { id, ts } = await propose(first, 'Cut', 77);
    const write = holdNetworkWrite(first);
    await first.click('approve', id, 'U2');
    await first.slack.waitFor(() => networkPosts(first).length === 1);

    const started = Date.now();
    await first.app.slack?.stop();
    const waited = Date.now() - started;
    const stateAtStop = (await first.approvals.get(id))?.state;
    // The process would exit here: its journal is closed, so the running change records nothing more.
    await first.app.close();
    const second = await bot({ dataDir, sim: first.sim });
    await second.slack.waitFor(() => updatesOf(second, ts).length > 0);
    write.release();

    const lines = log.lines();
    const unknown = updatesOf(second, ts).at(-1);
    expect(waited).toBeGreaterThanOrEqual(950);
    expect(stateAtStop).toBe('executing');
    expect(lines.filter((l) => l.msg.startsWith('stopping: waiting for running work'))).toMatchObject([
      { level: 30, running: 1, grace_s: 1 },
    ]);
    expect(lines.filter((l) => l.msg.startsWith('SHUTDOWN_GRACE_SECONDS is over'))).toEqual([
      expect.objectContaining({
        level: 40,
        running: 1,
        msg: 'SHUTDOWN_GRACE_SECONDS is over with work still running: left as it is; a change caught running shows "outcome unknown" after the restart',
      }),
    ]);
    expect(callText(unknown)).toContain('Outcome unknown');
    expect(callText(unknown)).toContain('may or may not have reached the controller');
    expect(buttonsOf(unknown)).toEqual([]);
    expect((await second.approvals.get(id))?.state).toBe('unknown');
    expect(networkPosts(second)).toHaveLength(1);
    expect(journalReport(dataDir)).toMatchObject({ exitCode: 0 });
  });
});

describe('journal anchors in AUDIT_CHANNEL', () => {
  it('posts the head and count at start, when it moved, and at stop; each one verifies the journal', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'netops-slack-'));
    const first = await bot({ dataDir, env: { AUDIT_CHANNEL: 'CAUDIT1' } });
    const startAnchors = first.slack.callsOf('chat.postMessage').filter((c) => c.args.channel === 'CAUDIT1');
    await propose(first, 'Anchored', 81);
    await first.app.close();
    const second = await bot({ dataDir, sim: first.sim, env: { AUDIT_CHANNEL: 'CAUDIT1' } });
    await second.slack.waitFor(() =>
      second.slack.callsOf('chat.postMessage').some((c) => c.args.channel === 'CAUDIT1'),
    );

    const anchors = [...first.slack.calls, ...second.slack.calls]
      .filter((c) => c.method === 'chat.postMessage' && c.args.channel === 'CAUDIT1')
      .map((c) => String(c.args.text));
    const head = await second.approvals.journalHead();
    const found = anchors.map((text) => /`(\d+):([0-9a-f]{64})`/.exec(text)?.slice(1, 3));

    expect(startAnchors).toEqual([]);
    expect(anchors).toHaveLength(2);
    expect(anchors[0]).toMatch(
      /^:anchor: Journal anchor \(stop\): 2 events, head `2:[0-9a-f]{64}`\. Check the journal against it with `audit:verify --anchor 2:[0-9a-f]{64}`\.$/,
    );
    expect(anchors[1]).toMatch(/^:anchor: Journal anchor \(start\): 2 events/);
    expect(found[1]).toEqual([String(head.count), head.head]);
    expect(
      journalReport(dataDir, {
        anchors: found.map((f) => ({ count: Number(f?.[0]), head: String(f?.[1]) })),
      }),
    ).toMatchObject({ exitCode: 0 });
  });
});
