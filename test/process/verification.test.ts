import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NetworkConf, type Simulator, startSimulator } from '../../src/simulator/index.js';
import { integrationNetwork } from '../../src/simulator/routes/integration-networks.js';
import { MAIN, runBot, stopAllBots } from '../helpers/bot-process.js';

// What a write's result says when the controller keeps something else than was sent, through the
// built program: the console's text and --json, and an MCP answer in confirm mode.

afterAll(stopAllBots);

/**
 * Where each version's network writes go, and how a stored value is changed there: classic
 * networkconf keeps flat fields, the official body nests the address plan.
 */
const GENERATIONS = [
  {
    version: '9.0',
    route: 'rest/networkconf' as string | RegExp,
    vlan: (vlan: number) => ({ vlan }),
    stop: (ip: string) => ({ dhcpd_stop: ip }),
  },
  {
    version: '10.1',
    route: /\/integration\/v1\/sites\/[^/]+\/networks(\/|$)/ as string | RegExp,
    vlan: (vlan: number) => ({ vlanId: vlan }),
    stop: (ip: string) => ({ 'ipv4Configuration.dhcpConfiguration.ipAddressRange.stop': ip }),
  },
] as const;

/** The built console on the suite's simulator, with a fresh DATA_DIR named after `prefix`. */
function consoleIn(c: { env: Record<string, string> }, prefix: string) {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  return (args: string[]) => runBot(args, { env: { ...c.env, DATA_DIR: dataDir } });
}

/** A simulator of `version` for the suite, and the console's environment to reach it. */
function useConsoleSimulator(version: string): { sim: Simulator; env: Record<string, string> } {
  const c = {} as { sim: Simulator; env: Record<string, string> };
  beforeAll(async () => {
    c.sim = await startSimulator({ apiVersion: version });
    c.env = { GATEWAY_URL: c.sim.url, GATEWAY_API_KEY: c.sim.apiKey };
  });
  afterAll(async () => {
    await c.sim?.close();
  });
  return c;
}

describe.each(GENERATIONS)('a write the controller stores differently, on $version', (generation) => {
  const c = useConsoleSimulator(generation.version);
  const storeAs = (method: 'PUT' | 'POST', set: Record<string, unknown>) =>
    c.sim.injectFault({ kind: 'store-as', method, route: generation.route, set });

  it('says "applied, not as sent" with the field sent and held, in the console’s text and --json', async () => {
    const run = consoleIn(c, 'netops-verify-console-');
    storeAs('PUT', generation.vlan(1071));
    const text = await run(['update_network', 'network_id=IoT', 'vlan_id=71', '--yes']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/verification: applied, not as sent: sent vlan 71, controller holds 1071/);

    // A nested field of the official body (the lease range's end) is compared as the flat one is.
    storeAs('PUT', generation.stop('10.60.0.151'));
    const json = await run([
      'update_network',
      'network_id=Cameras',
      'dhcp_stop=10.60.0.150',
      '--yes',
      '--json',
    ]);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      verification: {
        status: 'not_as_sent',
        summary: expect.stringContaining('applied, not as sent'),
        mismatches: [{ field: 'dhcpd_stop', sent: '10.60.0.150', held: '10.60.0.151' }],
      },
    });

    const verified = await run(['update_network', 'network_id=Guest', 'vlan_id=73', '--yes', '--json']);
    expect(JSON.parse(verified.stdout)).toMatchObject({ verification: { status: 'verified' } });
  });

  it('says it of a network created with another value than sent', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'netops-verify-create-'));
    storeAs('POST', generation.vlan(1045));
    const created = await runBot(
      ['create_network', 'name=Lab', 'vlan_id=45', 'subnet=10.70.0.0/24', '--yes', '--json'],
      { env: { ...c.env, DATA_DIR: dataDir } },
    );
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({
      verification: { status: 'not_as_sent', mismatches: [{ field: 'vlan', sent: 45, held: 1045 }] },
    });
  });
});

describe('what a revert and an assistant are told, on 9.0', () => {
  const c = useConsoleSimulator('9.0');
  const storeOtherVlan = (vlan: number) =>
    c.sim.injectFault({ kind: 'store-as', method: 'PUT', route: 'rest/networkconf', set: { vlan } });

  it('re-creates a deleted network with every stored setting it had, equal but for the ids the controller gives', async () => {
    const run = consoleIn(c, 'netops-verify-restore-');
    expect(
      (await run(['create_network', 'name=Lab', 'vlan_id=44', 'subnet=10.44.0.0/24', '--yes'])).code,
    ).toBe(0);
    // Settings no tool argument sets, changed on the controller: a lease time, flags, an empty value.
    const lab = c.sim.state.site('default')?.networks.find((n) => n.name === 'Lab') as Record<
      string,
      unknown
    >;
    Object.assign(lab, {
      dhcpd_leasetime: 1800,
      dhcpd_boot_enabled: false,
      dhcpd_wpad_url: '',
      igmp_snooping: true,
    });
    const deleted = structuredClone(lab);

    const gone = await run(['delete_network', 'network_id=Lab', '--yes', '--json']);
    expect(gone.code, gone.stderr).toBe(0);
    const changeId = (JSON.parse(gone.stdout) as { change_id: string }).change_id;
    const reverted = await run(['revert', changeId, '--yes', '--json']);
    expect(reverted.code, reverted.stderr).toBe(0);
    expect(JSON.parse(reverted.stdout)).toMatchObject({ verification: { status: 'verified' } });

    const back = c.sim.state.site('default')?.networks.find((n) => n.name === 'Lab') as Record<
      string,
      unknown
    >;
    const { _id: _a, external_id: _b, ...was } = deleted;
    const { _id: _c, external_id: _d, ...now } = back;
    expect(now).toEqual(was);
  });

  it('says it in an MCP answer (confirm mode)', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN, 'mcp'],
      env: {
        ...c.env,
        DATA_DIR: mkdtempSync(join(tmpdir(), 'netops-verify-mcp-')),
        MCP_WRITES: 'confirm',
        PATH: process.env.PATH ?? '',
      },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'verification-assistant', version: '1.0' });
    await client.connect(transport);
    try {
      storeOtherVlan(1074);
      const result = (await client.callTool({
        name: 'update_network',
        arguments: { network_id: 'Servers', vlan_id: 74, confirm: true },
      })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        verification: expect.stringMatching(/applied, not as sent: sent vlan 74, controller holds 1074/),
      });
    } finally {
      await client.close();
    }
  });
});

describe('a deleted network reverted on 10.1', () => {
  const c = useConsoleSimulator('10.1');
  const site = () => {
    const found = c.sim.state.site('default');
    if (!found) throw new Error('no default site');
    return found;
  };
  const lab = () => site().networks.find((n) => n.name === 'Lab') as NetworkConf & { external_id: string };

  it('is re-created whole: the stored record and its official details differ only in the ids the controller gives', async () => {
    const run = consoleIn(c, 'netops-verify-restore-ten-');
    expect(
      (await run(['create_network', 'name=Lab', 'vlan_id=44', 'subnet=10.44.0.0/24', '--yes'])).code,
    ).toBe(0);
    // Settings changed on the controller: some the official model carries (a lease time, mDNS,
    // internet access, conflict checking), some only networkconf holds (IGMP snooping, NTP, WPAD).
    // A lease time stored as text (a real quirk) comes back as text.
    Object.assign(lab(), {
      dhcpd_leasetime: '1800',
      mdns_enabled: true,
      internet_access_enabled: false,
      dhcp_conflict_checking: true,
      igmp_snooping: true,
      dhcpguard_enabled: true,
      dhcpd_ntp_enabled: true,
      dhcpd_ntp_1: '10.44.0.2',
      dhcpd_wpad_url: 'http://10.44.0.2/wpad.dat',
      nat_outbound_ip_addresses: [],
    });
    const stored = structuredClone(lab());
    const details = integrationNetwork(lab(), site());

    const gone = await run(['delete_network', 'network_id=Lab', '--yes', '--json']);
    expect(gone.code, gone.stderr).toBe(0);
    expect(lab()).toBeUndefined();
    const changeId = (JSON.parse(gone.stdout) as { change_id: string }).change_id;
    const reverted = await run(['revert', changeId, '--yes', '--json']);
    expect(reverted.code, reverted.stderr).toBe(0);
    const answer = JSON.parse(reverted.stdout) as Record<string, unknown>;
    expect(answer).toMatchObject({ verification: { status: 'verified' } });
    expect(JSON.stringify(answer)).not.toMatch(/not restored/);

    const { _id: _a, external_id: _b, ...was } = stored;
    const { _id: _c, external_id: _d, ...now } = lab();
    expect(now).toEqual(was);
    const { id: _e, ...detailsWere } = details;
    const { id: _f, ...detailsNow } = integrationNetwork(lab(), site());
    expect(detailsNow).toEqual(detailsWere);
    // The result names the re-created network by its official id, as every network result on 10.1.
    expect(JSON.stringify(answer)).toContain(lab().external_id);
  });
});
