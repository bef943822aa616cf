import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInteractiveConsole, runOneShot } from '../../src/console/console.js';
import type { ChangeRequest } from '../../src/model/change-request.js';
import { FileStore } from '../../src/store/file/file-store.js';
import { consoleHarness } from '../helpers/console-harness.js';
import { sampleRequest } from '../store/contract.js';
import { fakeSetup } from './fake-registry.js';

const RITA = { userId: 'U0RITA', name: 'rita' };
const ALEX = { userId: 'U0ALEX', name: 'alex' };
const T0 = Date.parse('2030-01-01T00:00:00.000Z');

let dir: string;
let done: ChangeRequest;
let waiting: ChangeRequest;
let journalText: string;

/** A DATA_DIR whose journal the bot wrote: one change approved and run, one still pending. */
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'netops-console-history-'));
  const bot = new FileStore(dir);
  const changes = bot.changes();
  done = await changes.create(sampleRequest({ createdS: 0 }), RITA, T0);
  await changes.transition(
    done.id,
    { type: 'approved', id: done.id, actor: ALEX, previewHash: done.previewHash },
    { from: ['pending'], at: T0 + 1000, live: true },
  );
  await changes.transition(
    done.id,
    { type: 'executing', id: done.id, actor: ALEX },
    { from: ['approved'], at: T0 + 2000 },
  );
  await changes.transition(
    done.id,
    {
      type: 'succeeded',
      id: done.id,
      actor: ALEX,
      result: { success: true, network: { name: 'Lab-result' } },
    },
    { from: ['executing'], at: T0 + 3000 },
  );
  waiting = await changes.create(
    sampleRequest({ createdS: 60, requester: ALEX, tool: 'update_traffic_route' }),
    ALEX,
    T0 + 60_000,
  );
  await bot.close();
  journalText = readFileSync(join(dir, 'approvals.jsonl'), 'utf8');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function harness() {
  const { registry, context } = fakeSetup();
  return consoleHarness({ registry, context, changes: new FileStore(dir).changeHistory() });
}

async function oneShot(args: string[]) {
  const h = harness();
  const code = await runOneShot(args, h.deps);
  return { code, stdout: h.output.text, stderr: h.errorOutput.text };
}

describe('console history commands over the store, read-only', () => {
  it('lists change requests newest first with state, requester and approver', async () => {
    const run = await oneShot(['changes']);

    expect(run.code).toBe(0);
    expect(run.stdout).toContain('2 change request(s), newest first; page 1 of 1:');
    expect(run.stdout.indexOf(waiting.id)).toBeLessThan(run.stdout.indexOf(done.id));
    expect(run.stdout).toMatch(new RegExp(`${done.id}\\s+succeeded\\s+default\\s+rita\\s+alex`));
    expect(run.stdout).toMatch(new RegExp(`${waiting.id}\\s+pending`));
  });

  it('filters by state, user, tool and time, and answers JSON for scripts', async () => {
    const pending = await oneShot(['changes', 'state=pending', '--json']);
    const byName = await oneShot(['changes', 'user=@rita', '--json']);
    const byTool = await oneShot(['changes', 'tool=update_traffic_route', '--json']);
    const future = await oneShot(['changes', 'since=2031-01-01']);

    expect(JSON.parse(pending.stdout).requests.map((r: ChangeRequest) => r.id)).toEqual([waiting.id]);
    expect(JSON.parse(byName.stdout)).toMatchObject({ total: 1, criteria: ['user=U0RITA'] });
    expect(JSON.parse(byTool.stdout).requests.map((r: ChangeRequest) => r.id)).toEqual([waiting.id]);
    expect(future.stdout).toContain('no change requests (since 2031-01-01T00:00:00Z).');
  });

  it('shows one request in full: fields, preview, every journal entry, and the result', async () => {
    const run = await oneShot(['change', done.id]);

    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`id: ${done.id}`);
    expect(run.stdout).toContain('state: succeeded');
    expect(run.stdout).toContain('approved_by: alex');
    expect(run.stdout).toMatch(/would create:\n {2}name: Lab\d+/);
    for (const event of ['created', 'approved', 'executing', 'succeeded'])
      expect(run.stdout).toMatch(new RegExp(`Z\\s+${event}\\s`));
    expect(run.stdout).toContain('Lab-result');
    expect(run.stdout).not.toContain('cancelled_by');
  });

  it('exits 1 for an unknown id and 2 for a bad filter, naming the field and the rule', async () => {
    const unknown = await oneShot(['change', 'cr_nosuchrequest']);
    const bad = await oneShot(['changes', 'state=done']);
    const typo = await oneShot(['changes', 'tol=create_network']);

    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('change request cr_nosuchrequest not found');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('state');
    expect(bad.stderr).toContain('pending, approved');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('did you mean tool?');
  });

  it('answers in the interactive console too, lists the commands in help, and never writes the journal', async () => {
    const h = harness();
    const finished = runInteractiveConsole(h.deps);
    h.input.end(['help', `change ${waiting.id}`, 'changes state=finished', 'quit', ''].join('\n'));
    await finished;

    expect(h.output.text).toContain('changes [state=pending,failed]');
    expect(h.output.text).toContain(`id: ${waiting.id}`);
    expect(h.output.text).toContain('1 change request(s) (state=succeeded,failed,unknown)');
    expect(readFileSync(join(dir, 'approvals.jsonl'), 'utf8')).toBe(journalText);
  });
});
