import { describe, expect, it } from 'vitest';
import { useMcpBot } from '../helpers/mcp.js';

// An assistant gets show_policy and check_policy through the same registry.
const bot = useMcpBot({ env: { BOT_SOURCE_ADDRESS: '10.20.0.103' } });

describe('guardrails over MCP', () => {
  it('check_policy answers risk, blast radius and the default decision; nothing is written', async () => {
    const result = await bot.call('check_policy', { command: 'update_network network_id=IoT vlan_id=21' });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      tool: 'update_network',
      risk: 'high',
      approvals: 2,
      matched_rules: [],
      self_lockout: expect.stringContaining('10.20.0.103 is in network IoT (VLAN 20)'),
    });
    expect(bot.writes()).toEqual([]);
  });

  it('show_policy is listed as read-only and shows the default', async () => {
    const { tools } = await bot.client.listTools();
    expect(tools.find((t) => t.name === 'show_policy')?.annotations?.readOnlyHint).toBe(true);
    expect(tools.find((t) => t.name === 'check_policy')?.annotations?.readOnlyHint).toBe(true);
    const shown = await bot.call('show_policy');
    expect(shown.structuredContent).toMatchObject({ every_write_needs: '1 approval, 2 for high risk' });
  });
});
