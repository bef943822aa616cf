import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEADLINES_FILE } from '../../src/store/file/deadline-file.js';
// Deliberately alike: the bot-process helpers every listening-bot process test imports.
import {
  type BotProcess,
  runAuditVerify,
  slackHttpEnv,
  spawnListeningBot,
  stopAllBots,
} from '../helpers/bot-process.js';
import type { SlackCall } from '../helpers/fake-slack.js';
import { network, putsTo } from '../helpers/network-writes.js';
import { clickApprove, proposeInC1 } from '../helpers/slack-buttons.js';
import { slackHeaders } from '../helpers/slack-requests.js';
import { useSlackRig } from '../helpers/slack-rig.js';

// The built bot (env only) with JOURNAL_KEY: a temporary change's revert deadline is part of its
// signed journal. Killed (SIGKILL) right after the change succeeded, before the deadline reached
// deadlines.json, the restarted bot restores it from the journal and reverts once; a deadline put
// in deadlines.json without the key fails audit:verify and the bot reverts nothing for it.

afterAll(stopAllBots);

const SECRET = 'deadline-journal-secret';
const KEY = 'deadline-journal-key-0123456789abcdef';
const textOf = (call: SlackCall | undefined) => JSON.stringify(call?.args ?? {});

interface FileDeadline {
  id: string;
  changeId: string;
  kind: string;
  state: string;
  dueAt: string;
  createdAt: string;
}

describe('revert deadlines in the signed journal, the built bot on files', () => {
  const rig = useSlackRig({ apiVersion: '9.0' });
  let bot: BotProcess;
  let events = '';
  const dataDir = mkdtempSync(join(tmpdir(), 'netops-deadline-journal-'));
  const deadlinesPath = join(dataDir, DEADLINES_FILE);
  const deadlines = (): FileDeadline[] =>
    existsSync(deadlinesPath)
      ? (JSON.parse(readFileSync(deadlinesPath, 'utf8')) as { deadlines: FileDeadline[] }).deadlines
      : [];
  const journal = () => readFileSync(join(dataDir, 'approvals.jsonl'), 'utf8');
  const post = (body: string) => fetch(events, { method: 'POST', headers: slackHeaders(SECRET, body), body });
  const audit = () => rig.slack.callsOf('chat.postMessage').filter((c) => c.args.channel === 'CAUDIT');
  const verify = () => runAuditVerify({ DATA_DIR: dataDir, JOURNAL_KEY: KEY });

  async function start() {
    ({ bot, events } = await spawnListeningBot(
      {
        ...slackHttpEnv(rig.slack, SECRET, rig.sim),
        AUDIT_CHANNEL: 'CAUDIT',
        DATA_DIR: dataDir,
        JOURNAL_KEY: KEY,
        CHANGE_TIMER_TICK_SECONDS: '1',
      },
      20_000,
    ));
  }

  /** Proposes as U1 and approves as U2; resolves once the journal records the change's success. */
  async function run(text: string): Promise<string> {
    const id = await proposeInC1(rig.slack, post, text);
    await clickApprove(rig.slack, post, id);
    await rig.slack.waitFor(
      () => journal().includes(`"type":"succeeded","id":"${id}"`) && journal().includes('"deadline":{'),
      20_000,
    );
    return id;
  }

  beforeAll(async () => {
    await start();
  }, 30_000);
  afterAll(async () => {
    await bot?.stop('SIGKILL');
  });

  it('killed right after a for= change succeeded, before its deadline was stored, the restarted bot restores it and reverts once', async () => {
    const guestStart = network(rig.sim, 'Guest');
    const id = await run('update_network network_id=Guest vlan_id=36 for=5s');
    await bot.stop('SIGKILL');
    // What a kill between the journaled success and the deadline store's write leaves.
    writeFileSync(deadlinesPath, JSON.stringify({ deadlines: deadlines().filter((d) => d.changeId !== id) }));
    const missing = await verify();
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain('missing from the deadline store');

    await start();
    await rig.slack.waitFor(
      () => audit().some((c) => textOf(c).includes(`(${id}) reverted automatically`)),
      30_000,
    );
    await rig.slack.waitFor(() => deadlines().find((d) => d.changeId === id)?.state === 'fired', 10_000);

    expect(network(rig.sim, 'Guest')).toEqual(guestStart);
    expect(putsTo(rig.sim, guestStart?._id)).toBe(2);
    expect(audit().filter((c) => textOf(c).includes(`(${id}) reverted automatically`))).toHaveLength(1);
    expect((await verify()).code).toBe(0);
  }, 90_000);

  it('a deadline added to deadlines.json without the key fails audit:verify, and the bot reverts nothing for it', async () => {
    const iotStart = network(rig.sim, 'IoT');
    const id = await run('update_network network_id=IoT vlan_id=37 for=1h');
    await rig.slack.waitFor(() => deadlines().some((d) => d.changeId === id), 10_000);
    await bot.stop('SIGKILL');
    // The attacker replaces the real deadline with one due now (its id unknown to the journal).
    const now = new Date().toISOString();
    const forged = {
      id: 'dl_0000000000000000f0f0',
      changeId: id,
      kind: 'temporary',
      state: 'scheduled',
      dueAt: now,
      createdAt: now,
    };
    writeFileSync(
      deadlinesPath,
      JSON.stringify({ deadlines: [...deadlines().filter((d) => d.changeId !== id), forged] }),
    );
    const tampered = await verify();
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toContain(forged.id);

    await start();
    await rig.slack.waitFor(
      () => audit().some((c) => textOf(c).includes(`refused to act on its automatic revert ${forged.id}`)),
      20_000,
    );

    expect(network(rig.sim, 'IoT')).toEqual({ ...iotStart, vlan: 37 });
    expect(putsTo(rig.sim, iotStart?._id)).toBe(1);
    expect(deadlines().find((d) => d.id === forged.id)?.state).toBe('failed');
  }, 90_000);
});
