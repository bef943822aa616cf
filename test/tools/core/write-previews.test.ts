import { describe, expect, it } from 'vitest';
import { renderPreview } from '../../../src/format/preview-text.js';
import { REDACTED } from '../../../src/lib/redact.js';
import { isSecretField } from '../../../src/lib/secret-fields.js';
import { valuesMissingFromPreview } from '../../helpers/preview-values.js';
import { useTestBot } from '../../helpers/tool-test.js';

// The demo site is zone-based; the traditional-rule tools work on the legacy one only.
const zoneBased = useTestBot();
const legacy = useTestBot({ simulator: { firewall: 'legacy' } });
const botFor = (tool: string) =>
  zoneBased.app.registry.require(tool).firewall === 'legacy' ? legacy : zoneBased;

/** One write per tool, each with the arguments that make it send the most. */
const WRITES: [string, Record<string, unknown>][] = [
  [
    'create_network',
    {
      name: 'Lab',
      vlan_id: 40,
      subnet: '10.70.0.0/24',
      dhcp_dns_1: '1.1.1.1',
      domain_name: 'lab.example.com',
    },
  ],
  ['update_network', { network_id: 'IoT', vlan_id: 21, name: 'Things' }],
  ['delete_network', { network_id: 'Servers' }],
  ['create_firewall_zone', { name: 'Sensors', network_ids: ['IoT', 'Guest'] }],
  [
    'update_firewall_zone',
    { firewall_zone_id: 'IoT Devices', name: 'Things', network_ids: ['IoT', 'Servers'] },
  ],
  ['delete_firewall_zone', { zone_id: 'IoT Devices' }],
  ['assign_network_to_zone', { zone_id: 'Dmz', network_id: 'Guest' }],
  ['unassign_network_from_zone', { zone_id: 'IoT Devices', network_id: 'Cameras' }],
  [
    'create_firewall_rule',
    {
      name: 'IoT to Guest',
      action: 'reject',
      ruleset: 'LAN_IN',
      rule_index: 20010,
      src_networkconf_id: 'IoT',
      dst_networkconf_id: 'Guest',
      protocol: 'tcp',
      port: 22,
    },
  ],
  [
    'update_firewall_rule',
    { rule_id: 'Block IoT to LAN', dst_address: '10.9.0.0/16', protocol: 'tcp', port: 8080 },
  ],
  ['delete_firewall_rule', { rule_id: 'Drop Telnet from WAN' }],
  // Deliberately alike: tool arguments are data; the same demo policy serves the revert tests.
  [
    'create_firewall_policy',
    {
      name: 'Cameras to NAS',
      action: 'ALLOW',
      source_zone: 'IoT Devices',
      source_networks: ['Cameras'],
      destination_zone: 'Internal',
      destination_ips: ['192.168.1.20'],
      protocol: 'tcp',
      destination_port: '445,2049',
      ip_version: 'IPV4',
      schedule: 'every_week',
      schedule_days: ['mon', 'fri'],
      schedule_time: '08:00-18:00',
      logging: true,
      description: 'NVR backups',
      // Before "Block IoT to Internal": a create, then a reorder of the pair.
      position: 1,
    },
  ],
  [
    'update_firewall_policy',
    {
      policy_id: 'Allow Plex from WAN',
      name: 'Plex',
      enabled: true,
      destination_ips: ['192.168.1.21'],
      destination_port: '32400,32469',
      schedule: 'every_day',
      schedule_time: '06:00-23:00',
    },
  ],
  ['delete_firewall_policy', { policy_id: 'Cameras: no internet' }],
  [
    'create_acl_rule',
    {
      name: 'Block IoT SSH',
      action: 'deny',
      source_type: 'network',
      source_id: 'IoT',
      destination_type: 'ip',
      destination_network: '10.0.0.0/8',
      protocol: 'tcp',
      dst_port: 22,
      priority: 2,
    },
  ],
  ['update_acl_rule', { acl_rule_id: 'Block guest SSH', name: 'Block guest SSH v2', priority: 1 }],
  ['delete_acl_rule', { acl_rule_id: 'Block guest SSH' }],
  [
    'create_traffic_matching_list',
    { list_type: 'IPV6_ADDRESSES', name: 'v6', items: ['2001:db8::/32', '::1'] },
  ],
  ['update_traffic_matching_list', { list_id: 'Web Ports', name: 'Web', items: ['22', '8443', '9000-9100'] }],
  ['delete_traffic_matching_list', { list_id: 'Web Ports' }],
  [
    'create_traffic_route',
    { name: 'Cap', action: 'shape', bandwidth_limit_kbps: 5000, source_ip: '10.20.0.0/24' },
  ],
  ['update_traffic_route', { route_id: 'Block social media on IoT', enabled: false }],
  ['delete_traffic_route', { route_id: 'Block social media on IoT' }],
  // The on-call actions.
  ['restart_device', { device_id: 'Office Switch' }],
  ['power_cycle_port', { device_id: 'Core Switch', port_idx: 6 }],
  ['locate_device', { device_id: 'Living Room AP', enabled: true }],
  ['block_client', { client: 'Galaxy-S23' }],
  ['unblock_client', { client: 'Unknown Tablet' }],
  ['reconnect_client', { client: 'Pixel-7a' }],
  ['authorize_guest', { client: 'Galaxy-S23', minutes: 90, down_kbps: 4000, up_kbps: 1000, data_mb: 2048 }],
  ['unauthorize_guest', { client: 'Galaxy-S23' }],
  ['create_vouchers', { count: 4, minutes: 720, quota: 3, down_kbps: 8000, up_kbps: 2000, note: 'Offsite' }],
  ['revoke_voucher', { voucher_id: '73022-18845' }],
  ['set_wifi_broadcast_enabled', { wifi_id: 'Home-IoT', enabled: false }],
];

describe('every write tool previews every value it then sends', () => {
  it('covers every write tool of the registry', () => {
    const writeTools = zoneBased.app.registry
      .list()
      .filter((t) => t.access === 'write')
      // keep_change sends nothing to the controller (it cancels a deadline in the store): its own
      // tests are test/tools/keep-tools.test.ts and test/changes/timers-wired.test.ts.
      .filter((t) => t.name !== 'keep_change')
      .map((t) => t.name);
    expect(WRITES.map(([tool]) => tool).sort()).toEqual([...writeTools].sort());
  });

  it.each(WRITES)('%s', async (tool, args) => {
    const bot = botFor(tool);
    const preview = (await bot.run(tool, { ...args, dry_run: true })) as Record<string, unknown>;
    const text = renderPreview(preview, { width: 100 });
    expect(bot.writes()).toEqual([]);

    const result = (await bot.run(tool, { ...args, confirm: true })) as Record<string, unknown>;

    expect(bot.writes().length).toBeGreaterThan(0);
    // A new rule's or policy's id is the controller's to give; its preview holds a placeholder where it goes.
    const created =
      (result.acl_rule as { id?: string } | undefined)?.id ??
      (tool === 'create_firewall_policy' ? (result.policy as { id?: string } | undefined)?.id : undefined);
    const missing = bot
      .writes()
      .flatMap((r) => valuesMissingFromPreview(text, r.body))
      .filter((leaf) => created === undefined || !leaf.endsWith(`= "${created}"`))
      // A secret the body restates unchanged (the Wi-Fi passphrase of an official PUT) is shown masked.
      .filter((leaf) => {
        const key = /(?:^|\.)([^.[\]]+) = /.exec(leaf)?.[1];
        return !(key !== undefined && isSecretField(key) && text.includes(`${key}: ${REDACTED}`));
      });
    expect(missing, text).toEqual([]);
    expect(text).not.toContain('…');
  });
});
