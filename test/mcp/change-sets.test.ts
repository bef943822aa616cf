import { describe, expect, it } from 'vitest';
import { textOf, useMcpBot } from '../helpers/mcp.js';

// Change sets over MCP with MCP_WRITES=confirm (the default without Slack): propose_change_set runs the
// set when confirmed; its arguments are checked naming the field.

describe('propose_change_set, MCP_WRITES=confirm', () => {
  const bot = useMcpBot({ label: 'U0ALICE' });

  const steps = [
    { tool: 'create_network', arguments: { name: 'Lab', vlan_id: 41, subnet: '10.41.0.0/24' } },
    { tool: 'update_network', arguments: { network_id: 'Lab', dhcp_dns_1: '9.9.9.9' } },
  ];

  it('is listed, refuses bad arguments naming the field, needs confirm, and runs the set in order when confirmed', async () => {
    const { tools } = await bot.client.listTools();
    expect(tools.map((t) => t.name)).toContain('propose_change_set');

    const bad = await bot.call('propose_change_set', { steps: [{ tool: 'create_network', args: {} }] });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/steps\.0/);
    const unconfirmed = await bot.call('propose_change_set', { steps });
    expect(unconfirmed.isError).toBe(true);
    expect(bot.writes()).toEqual([]);

    const ran = await bot.call('propose_change_set', { steps, title: 'Lab', confirm: true });
    expect(ran.isError, textOf(ran)).toBeUndefined();
    expect(ran.structuredContent).toMatchObject({
      change_id: expect.stringMatching(/^cr_/),
      state: 'succeeded',
      steps: [
        expect.stringMatching(/^1\. done: create_network/),
        expect.stringMatching(/^2\. done: update_network/),
      ],
    });
    expect(bot.writes().map((r) => r.method)).toEqual(['POST', 'PUT']);
    expect(bot.sim.state.findNetworkByName('default', 'Lab')).toMatchObject({ dhcpd_dns_1: '9.9.9.9' });
  });
});
