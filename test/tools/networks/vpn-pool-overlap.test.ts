import { describe, expect, it } from 'vitest';
import { riskLines } from '../../../src/tools/bot/policy-tools.js';
import { useTestBot } from '../../helpers/tool-test.js';

/*
 * The demo's WireGuard server hands out 10.40.0.0/24 (Ana's laptop is 10.40.0.23). A network on
 * that subnet would make traffic to the VPN's clients ambiguous, so its preview says so and the
 * clients on the pool count in the risk, on a classic and on an official console alike.
 */

interface Preview {
  dry_run: boolean;
  warnings: string[];
}
interface Check {
  risk: string;
  clients: string;
  reasons: string[];
}

const OVERLAP = { name: 'X', vlan_id: 41, subnet: '10.40.0.0/24' };
const FREE = { name: 'X', vlan_id: 41, subnet: '10.70.0.0/24' };
const POOL_WARNING =
  /^the subnet overlaps the client pool of VPN WireGuard VPN \(10\.40\.0\.1\/24\); 1 VPN client\(s\) use addresses in it/;

describe.each(['9.0', '10.1'] as const)('a subnet over the WireGuard client pool on %s', (apiVersion) => {
  const bot = useTestBot({ simulator: { apiVersion } });

  it('previews create_network with a warning naming the pool, and a risk above low with its client', async () => {
    const preview = (await bot.run('create_network', { ...OVERLAP, dry_run: true })) as Preview;
    const check = (await bot.run('check_policy', {
      command: 'create_network name=X vlan_id=41 subnet=10.40.0.0/24',
    })) as Check;
    const lines = await riskLines(bot.app.context, 'create_network', OVERLAP);

    expect(preview.dry_run).toBe(true);
    expect(preview.warnings.filter((w) => POOL_WARNING.test(w))).toHaveLength(1);
    expect(check.risk).not.toBe('low');
    expect(['medium', 'high']).toContain(check.risk);
    expect(check.clients).toBe("1 (Ana's Laptop (VPN))");
    expect(lines[0]).toMatch(/^risk: (medium|high) \(1 client affected \(Ana's Laptop \(VPN\)\)\)$/);
    expect(bot.writes()).toEqual([]);
  });

  it('previews the free subnet the examples use with no pool warning and low risk', async () => {
    const preview = (await bot.run('create_network', { ...FREE, dry_run: true })) as Preview;
    const check = (await bot.run('check_policy', {
      command: 'create_network name=X vlan_id=41 subnet=10.70.0.0/24',
    })) as Check;

    expect(preview.warnings.filter((w) => w.includes('VPN'))).toEqual([]);
    expect(check.risk).toBe('low');
    expect(check.clients).toBe('none');
  });

  it('warns of the pool when an update moves a network onto it', async () => {
    const preview = (await bot.run('update_network', {
      network_id: 'Guest',
      subnet: '10.40.0.0/24',
      dry_run: true,
    })) as Preview;

    expect(preview.warnings.filter((w) => POOL_WARNING.test(w))).toHaveLength(1);
  });

  it('does not count the pool as a network of the site: the VLAN list leaves it out', async () => {
    const networks = (await bot.run('list_vlans', {})) as { name: string }[];

    expect(networks.map((n) => n.name)).not.toContain('WireGuard VPN');
  });
});
