// After the store failed between the approval and the run, every answer says what is provable: the
// change was approved and not run, never "running" nor "ran and failed".
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { FileStore } from '../../src/store/file/file-store.js';
import { faultyFs } from '../helpers/faulty-fs.js';
import { type SlackBot, startSlackBot } from '../helpers/slack-bot.js';

let bot: SlackBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

async function readOn(b: SlackBot, responseUrl: string): Promise<string> {
  await b.slack.waitFor(() => b.slack.responses.some((r) => responseUrl.endsWith(r.path)), 10_000);
  return String(b.slack.responses.find((r) => responseUrl.endsWith(r.path))?.body.text);
}

describe('the disk fills between the approval and the run', () => {
  it('says "approved but not run" to every later click and in the message, before and after the disk is freed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'netops-wording-'));
    const disk = faultyFs();
    bot = await startSlackBot({
      dataDir,
      store: new FileStore(dataDir, { data: new MemoryStore(), fs: disk.seam }),
      // A shared, loaded machine: the dry runs must not time out before the disk fault is reached.
      gateway: { timeoutMs: 10_000 },
    });
    const b = bot;
    const { id, ts } = await b.propose('create_network name=Full808 vlan_id=808 subnet=10.88.0.0/24', 'U1');

    // The approval is recorded; then the disk is full for `executing` and for the outcome.
    disk.faults.fullAfterWrites = 1;
    await b.click('approve', id, 'U2');
    await b.slack.waitFor(async () => (await b.approvals.get(id))?.state === 'approved', 10_000);
    await b.slack.waitFor(
      () =>
        b.slack
          .callsOf('chat.update')
          .some((c) => c.args.ts === ts && JSON.stringify(c.args.blocks).includes('Not run')),
      10_000,
    );
    const whileFull = await b.click('approve', id, 'U3');
    const whileFullText = await readOn(b, whileFull.responseUrl);

    // The disk is freed; the next sweep records the outcome the bot knew.
    disk.faults.fullAfterWrites = undefined;
    await b.app.slack?.sweep();
    const freed = await b.click('approve', id, 'U3');
    const freedText = await readOn(b, freed.responseUrl);
    const stored = await b.approvals.get(id);
    const writes = b.sim.requests.filter((r) => r.method === 'POST' && r.route.endsWith('rest/networkconf'));

    const notRun =
      /^:no_entry_sign: Approved \(approved by <@U2>\) but not run: not run: the approvals journal cannot be written \(the disk is full, ENOSPC\)/;
    expect(whileFullText).toMatch(notRun);
    expect(freedText).toMatch(notRun);
    expect(stored).toMatchObject({ state: 'failed', notRun: true });
    expect(writes).toEqual([]);
  }, 30_000);
});
