import { describe, expect, it } from 'vitest';
import { textOf, useMcpBot } from '../helpers/mcp.js';

describe('MCP (confirm): change_id, verification and revert_change', () => {
  const bot = useMcpBot({ label: 'U0ALICE' });

  it('a write answers change_id and "verified"; revert_change with confirm puts the record back', async () => {
    const start = structuredClone(bot.sim.state.site('default')?.networks);
    const { tools } = await bot.client.listTools();
    expect(tools.map((t) => t.name)).toContain('revert_change');
    const update = tools.find((t) => t.name === 'update_network');
    expect(Object.keys(update?.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['revert_after', 'for']),
    );

    const written = await bot.call('update_network', { network_id: 'IoT', vlan_id: 26, confirm: true });
    expect(written.isError).toBeUndefined();
    const answer = written.structuredContent as { change_id: string; verification: string };
    expect(answer.change_id).toMatch(/^cr_[a-z2-7]{20}$/);
    expect(answer.verification).toBe('verified');

    const refused = await bot.call('revert_change', { change_id: answer.change_id });
    expect(refused.isError).toBe(true);
    expect(bot.sim.state.site('default')?.networks).not.toEqual(start);

    const reverted = await bot.call('revert_change', { change_id: answer.change_id, confirm: true });
    expect(reverted.isError).toBeUndefined();
    expect((reverted.structuredContent as { change_id: string }).change_id).not.toBe(answer.change_id);
    expect(bot.sim.state.site('default')?.networks).toEqual(start);

    const again = await bot.call('revert_change', { change_id: answer.change_id, confirm: true });
    expect(again.isError).toBe(true);
    expect(textOf(again)).toContain('reverted already');
  });

  it('an update_network that changes nothing answers "nothing to change" and runs nothing', async () => {
    const before = bot.writes().length;
    const result = await bot.call('update_network', { network_id: 'Guest', vlan_id: 30, confirm: true });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('nothing to change');
    expect(bot.writes().length).toBe(before);
  });
});
