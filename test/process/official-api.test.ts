import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LoggedRequest } from '../../src/simulator/request-log.js';
import { runBot, stopAllBots } from '../helpers/bot-process.js';
import { integrationProblems } from '../helpers/openapi-check.js';

afterAll(stopAllBots);

// The official API, through the built program with env vars only: SIMULATOR_API_VERSION picks the
// Network version the built-in simulator plays, and the bot follows what that console offers.
describe.concurrent('SIMULATOR_API_VERSION, as `node dist/main.js` runs it', () => {
  it('on 9.0 a zone tool is asked and refused by the console’s 404, named; the on-call actions still preview', async () => {
    const zones = await runBot(['list_firewall_zones'], { env: { SIMULATOR_API_VERSION: '9.0' } });
    expect(zones.code).not.toBe(0);
    expect(zones.stderr).toMatch(/UniFi Network 9\.0\.114.*does not offer firewall zones.*answered 404/s);
    const cycle = await runBot(
      ['power_cycle_port', 'device_id=Core Switch', 'port_idx=6', 'dry_run=true', '--json'],
      {
        env: { SIMULATOR_API_VERSION: '9.0' },
      },
    );
    expect(cycle.code).toBe(0);
    expect(cycle.stdout).toContain('cmd/devmgr');
    // Networks stay classic there: the networkconf id.
    const iot = await runBot(['get_network_details', 'network_id=IoT', '--json'], {
      env: { SIMULATOR_API_VERSION: '9.0' },
    });
    expect(JSON.parse(iot.stdout)).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      purpose: 'corporate',
    });
  });

  // Deliberately alike: one dry run per official-API tool, each with the route its preview must name.
  it('on 10.1 (the default) the same tools use the official API', async () => {
    const zones = await runBot(['list_firewall_zones', '--json']);
    expect(zones.code).toBe(0);
    expect(zones.stdout).toContain('Internal');
    const cycle = await runBot([
      'power_cycle_port',
      'device_id=Core Switch',
      'port_idx=6',
      'dry_run=true',
      '--json',
    ]);
    expect(cycle.code).toBe(0);
    expect(cycle.stdout).toContain('/interfaces/ports/6/actions');
    // Networks through the official API: the official id, and the full-replacement body previewed.
    const update = await runBot([
      'update_network',
      'network_id=IoT',
      'dhcp_dns_1=1.1.1.1',
      'dry_run=true',
      '--json',
    ]);
    expect(update.code).toBe(0);
    expect(JSON.parse(update.stdout)).toMatchObject({
      network_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-/),
      would_send: {
        management: 'GATEWAY',
        vlanId: 20,
        ipv4Configuration: { dhcpConfiguration: { dnsServerIpAddressesOverride: ['1.1.1.1'] } },
      },
    });
  });

  it('logs its built-in simulator’s Integration requests where SIMULATOR_REQUEST_LOG says; policies go official on 10.1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'netops-request-log-'));
    try {
      const run = await runBot(['list_firewall_policies', '--json'], { env: { SIMULATOR_REQUEST_LOG: dir } });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('Block IoT to Internal');
      const logged = readdirSync(dir).flatMap((file) =>
        readFileSync(join(dir, file), 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as LoggedRequest),
      );
      expect(logged.map((r) => `${r.method} ${r.route}`)).toContainEqual(
        expect.stringMatching(/^GET \/integration\/v1\/sites\/[^/]+\/firewall\/policies$/),
      );
      expect(integrationProblems(logged.map((r) => ({ ...r, path: r.route, headers: {} })))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses an unreadable SIMULATOR_API_VERSION naming the variable', async () => {
    const run = await runBot(['list_vlans'], { env: { SIMULATOR_API_VERSION: 'ten' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('SIMULATOR_API_VERSION');
  });
});
