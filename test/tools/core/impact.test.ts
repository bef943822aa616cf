import { mkdtempSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ResourceNotFoundError } from '../../../src/errors.js';
import { type Guardrails, networkPosition } from '../../../src/tools/core/guardrails.js';
import { rejection, useTestBot } from '../../helpers/tool-test.js';

// The bot's address is the Nest Thermostat's (10.20.0.103): on IoT, on the Home-IoT SSID, behind
// the Living Room AP, which hangs off the Core Switch.
const dir = mkdtempSync(join(tmpdir(), 'netops-policy-'));
// Deliberately alike: a policy file is data; each file writes the rules its own tests need.
const policyFile = join(dir, 'policy.yaml');
writeFileSync(
  policyFile,
  `rules:
  - name: no-delete-with-clients
    when: tool == "delete_network" && blast_radius.clients.count > 0
    deny: Move the clients off the network first
  - name: three-for-switches
    when: tool == "restart_device" && blast_radius.devices.count > 1
    approvals: 3
  - name: nightly-wifi
    when: tool == "set_wifi_broadcast_enabled"
    window: night
windows:
  night: { cron: "0 22 * * *", duration: 4h, timezone: Europe/Berlin }
freezes:
  - name: year-end
    from: 2026-12-20T00:00:00+01:00
    to: 2027-01-04T00:00:00+01:00
    reason: Year-end freeze
`,
);
const NOON = Date.UTC(2026, 0, 5, 12);
const bot = useTestBot({
  env: { POLICY_FILE: policyFile, BOT_SOURCE_ADDRESS: '10.20.0.103' },
  now: () => NOON,
});

type Check = Record<string, unknown> & { reasons: string[]; matched_rules: string[] };
const check = async (command: string) => (await bot.run('check_policy', { command })) as Check;

describe('blast radius on the demo site', () => {
  it('counts the clients on IoT and names what refers to it; deleting it is refused by the rule', async () => {
    const result = await check('delete_network network_id=IoT');
    expect(result.target).toBe('network IoT (VLAN 20)');
    // The count is whole; five names are shown.
    expect(result.clients).toMatch(/^11 \(([^,]+, ){5}\+6 more\)$/);
    expect(result.references).toEqual(
      expect.arrayContaining([
        'firewall zone "IoT Devices"',
        'Wi-Fi network "Home-IoT"',
        'ACL rule "Block IoT to NAS"',
      ]),
    );
    expect(result.matched_rules).toEqual(['no-delete-with-clients']);
    expect(result.denied).toEqual({
      rule: 'no-delete-with-clients',
      reason: 'Move the clients off the network first',
    });
    expect(result.verdict).toBe('refused by no-delete-with-clients: Move the clients off the network first');
    // Nothing was proposed or sent.
    expect(bot.writes()).toEqual([]);
  });

  it('with the bot inside the network it changes: high risk with the self-lockout warning', async () => {
    const result = await check('update_network network_id=IoT vlan_id=21');
    expect(result.risk).toBe('high');
    expect(result.self_lockout).toBe(
      'This change may cut the bot off from the controller: the bot’s own address 10.20.0.103 is in network IoT (VLAN 20), subnet 10.20.0.1/24.',
    );
    expect(result.approvals).toBe(2);
    expect(result.reasons).toContain('high risk: 2 approvals');
  });

  it('a rename moves nobody: no self-lockout and no clients counted', async () => {
    const result = await check('update_network network_id=IoT name=Things');
    expect(result.self_lockout).toBeUndefined();
    expect(result.clients).toBe('none');
    expect(result.risk).toBe('medium');
  });

  it('a device restart counts its downstream devices and clients, and sees the bot behind it', async () => {
    const result = await check('restart_device device_id="Core Switch"');
    expect(result.devices).toMatch(/^6 \(Core Switch, Garage AP, Garden Mesh AP, Living Room AP/);
    expect(result.clients).toMatch(/^40 \(/);
    expect(result.risk).toBe('high');
    expect(String(result.self_lockout)).toContain(
      '10.20.0.103 is behind device Core Switch (Nest Thermostat)',
    );
    expect(result.approvals).toBe(3);
    expect(result.matched_rules).toEqual(['three-for-switches']);
  });

  it('turning off the bot’s own SSID is a self-lockout; the window rule says when it would run', async () => {
    const result = await check('set_wifi_broadcast_enabled wifi_id=Home-IoT enabled=false');
    expect(String(result.self_lockout)).toContain('10.20.0.103 is on Wi-Fi Home-IoT');
    expect(result.window).toEqual({
      name: 'night',
      names: ['night'],
      open: false,
      nextOpening: '2026-01-05T21:00:00.000Z',
      nextOpeningMs: Date.UTC(2026, 0, 5, 21),
    });
    const other = await check('set_wifi_broadcast_enabled wifi_id="Guest WiFi" enabled=false');
    expect(other.self_lockout).toBeUndefined();
  });

  it('blocking the bot’s own address is a self-lockout; a client elsewhere is low risk', async () => {
    expect(String((await check('block_client client="Nest Thermostat"')).self_lockout)).toContain(
      'the bot’s own address 10.20.0.103 is client Nest Thermostat',
    );
    const other = await check('block_client client="Hue Bridge"');
    expect(other.self_lockout).toBeUndefined();
    expect(other.risk).toBe('medium');
    expect(other.clients).toBe('1 (Hue Bridge)');
  });

  it('a target that does not exist is refused as the tool refuses it; a read needs nothing', async () => {
    expect(await rejection(check('set_wifi_broadcast_enabled wifi_id=Nope enabled=false'))).toBeInstanceOf(
      ResourceNotFoundError,
    );
    expect(await check('list_vlans')).toEqual({
      tool: 'list_vlans',
      verdict: 'list_vlans only reads: it needs no approval, and no rule applies',
    });
  });

  it('show_policy lists the rules with their lines, the windows with their next opening', async () => {
    const shown = (await bot.run('show_policy', {})) as Record<string, unknown>;
    expect(shown.source).toBe(policyFile);
    expect(shown.every_write_needs).toBe('1 approval, 2 for high risk');
    expect(shown.rules).toEqual([
      expect.objectContaining({
        name: 'no-delete-with-clients',
        line: 2,
        effects: 'deny: Move the clients off the network first',
      }),
      expect.objectContaining({ name: 'three-for-switches', line: 5, effects: 'approvals: 3' }),
      expect.objectContaining({ name: 'nightly-wifi', line: 8, effects: 'window: night' }),
    ]);
    expect(shown.windows).toEqual([
      expect.objectContaining({ name: 'night', open_now: false, next_opening: '2026-01-05T21:00:00.000Z' }),
    ]);
    expect(shown.freezes).toEqual([
      {
        name: 'year-end',
        from: '2026-12-19T23:00:00.000Z',
        to: '2027-01-03T23:00:00.000Z',
        reason: 'Year-end freeze',
        in_force: false,
        approvers: null,
      },
    ]);
  });
});

describe('the bot’s own address', () => {
  it('is the local address of a connection to the controller when BOT_SOURCE_ADDRESS is unset', async () => {
    const server = createServer((socket) => socket.end());
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    try {
      const guardrails = {
        ...bot.app.context.guardrails,
        controllerUrl: `http://127.0.0.1:${port}`,
      } as Guardrails;
      delete guardrails.sourceAddress;
      expect(await networkPosition(guardrails)).toEqual({ source: '127.0.0.1', controller: '127.0.0.1' });
      // BOT_SOURCE_ADDRESS wins over the socket's own.
      expect(await networkPosition({ ...guardrails, sourceAddress: '10.20.0.103' })).toEqual({
        source: '10.20.0.103',
        controller: '127.0.0.1',
      });
    } finally {
      server.close();
    }
  });

  it('is unknown when the controller cannot be reached (no self-lockout claimed)', async () => {
    const guardrails = { ...bot.app.context.guardrails, controllerUrl: 'http://localhost:9' } as Guardrails;
    delete guardrails.sourceAddress;
    expect(await networkPosition(guardrails)).toEqual({});
  });
});
