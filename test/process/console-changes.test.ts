import { userInfo } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runAuditVerify, runBot, stopAllBots } from '../helpers/bot-process.js';
import { startSlackBot } from '../helpers/slack-bot.js';

afterAll(stopAllBots);

const me = userInfo().username;

// Deliberately alike: each console suite starts its own simulator and closes it after.
describe('console writes are recorded changes', () => {
  let sim: Simulator;
  afterAll(async () => {
    await sim?.close();
  });

  it('a --yes write answers its change_id, and `changes` / `change <id>` show it approved at the console', async () => {
    sim = await startSimulator();
    const dataDir = (await import('node:fs')).mkdtempSync(
      `${(await import('node:os')).tmpdir()}/netops-console-changes-`,
    );
    const env = { GATEWAY_URL: sim.url, GATEWAY_API_KEY: sim.apiKey, DATA_DIR: dataDir };

    const created = await runBot(
      ['create_network', 'name=Lab', 'vlan_id=91', 'subnet=10.91.0.0/24', '--yes', '--json'],
      { env },
    );
    expect(created.code).toBe(0);
    const answer = JSON.parse(created.stdout) as { change_id: string };
    expect(answer.change_id).toMatch(/^cr_[a-z2-7]{20}$/);
    expect(created.stdout).toContain('"Lab"');

    const listed = await runBot(['changes', '--json'], { env });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(answer.change_id);
    const shown = await runBot(['change', answer.change_id], { env });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('state: succeeded');
    expect(shown.stdout).toContain(`approved at the console (${me})`);
    expect(shown.stdout).toContain('create_network');

    const text = await runBot(['create_network', 'name=Lab2', 'vlan_id=92', 'subnet=10.92.0.0/24', '--yes'], {
      env,
    });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/recorded as change cr_[a-z2-7]{20}/);

    // `revert <id>` previews the change that undoes it (a create is undone by a delete), runs it
    // only with --yes, and records it as a change of its own.
    const previewed = await runBot(['revert', answer.change_id], { env });
    expect(previewed.code).toBe(3);
    expect(previewed.stderr).toContain(`not run: delete_network (the revert of ${answer.change_id})`);
    expect(sim.state.site('default')?.networks.some((n) => n.name === 'Lab')).toBe(true);
    const reverted = await runBot(['revert', answer.change_id, '--yes', '--json'], { env });
    expect(reverted.code, reverted.stderr).toBe(0);
    const revertId = (JSON.parse(reverted.stdout) as { change_id: string }).change_id;
    expect(revertId).not.toBe(answer.change_id);
    expect(sim.state.site('default')?.networks.some((n) => n.name === 'Lab')).toBe(false);
    expect(await runAuditVerify({ DATA_DIR: dataDir })).toMatchObject({ code: 0 });
  }, 90_000);

  it('the interactive console records a write approved at the prompt', async () => {
    const run = await runBot([], {
      input: ['create_network name=Lab3 vlan_id=93 subnet=10.93.0.0/24', 'y', 'changes', 'quit', ''].join(
        '\n',
      ),
    });
    expect(run.code).toBe(0);
    const id = /recorded as change (cr_[a-z2-7]{20})/.exec(run.stdout)?.[1];
    expect(id).toBeDefined();
    const listing = run.stdout.slice(run.stdout.indexOf('change request(s)'));
    expect(listing).toContain(String(id));
    expect(listing).toContain('succeeded');
  }, 60_000);

  it('`keep <id>` says when nothing is pending, and `revert` without an id names the missing argument', async () => {
    const keep = await runBot(['keep', 'cr_aaaaaaaaaaaaaaaaaaaa']);
    const missing = await runBot(['revert']);

    expect(`${keep.stdout}${keep.stderr}`).toMatch(/cr_aaaaaaaaaaaaaaaaaaaa has no automatic revert pending/);
    expect(keep.stderr).not.toContain('unknown');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('change_id: is required: revert <change id>');
  }, 60_000);

  it('a console writing beside a running bot on one DATA_DIR: both are recorded and the journal verifies', async () => {
    const bot = await startSlackBot();
    try {
      const env = { GATEWAY_URL: bot.sim.url, GATEWAY_API_KEY: bot.sim.apiKey, DATA_DIR: bot.dataDir };
      const first = await bot.propose('create_network name=BotA vlan_id=71 subnet=10.71.0.0/24');
      const consoleRun = runBot(
        ['create_network', 'name=ConA', 'vlan_id=72', 'subnet=10.72.0.0/24', '--yes', '--json'],
        { env },
      );
      const click = await bot.click('approve', first.id, 'U2');
      expect(click.status).toBe(200);
      const run = await consoleRun;
      expect(run.code).toBe(0);
      const consoleId = (JSON.parse(run.stdout) as { change_id: string }).change_id;
      await bot.slack.waitFor(async () => (await bot.approvals.get(first.id))?.state === 'succeeded');
      // The bot appends after the console did: its chain continues the console's events.
      const second = await bot.propose('create_network name=BotB vlan_id=73 subnet=10.73.0.0/24');

      const seen = await bot.approvals.get(consoleId);
      expect(seen?.state).toBe('succeeded');
      expect(seen?.requester.userId).toBe(`console:${me}`);
      expect((await bot.approvals.get(second.id))?.state).toBe('pending');
      const verified = await runAuditVerify({ DATA_DIR: bot.dataDir });
      expect(verified.code).toBe(0);
      expect(verified.stdout).toContain('journal OK');
    } finally {
      await bot.close();
    }
  }, 90_000);
});
