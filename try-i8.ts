import { startTestBot } from './test/helpers/test-bot.js';
import { renderPreview } from './src/format/preview-text.js';
import { valuesMissingFromPreview } from './test/helpers/preview-values.js';
const bot = await startTestBot();
const cases: [string, Record<string, unknown>][] = [
  ['create_network', { name: 'Lab', vlan_id: 40, subnet: '10.40.0.0/24', dhcp_dns_1: '1.1.1.1', domain_name: 'lab.example.com' }],
  ['update_network', { network_id: 'IoT', vlan_id: 21, name: 'IoT2' }],
  ['delete_network', { network_id: 'Servers' }],
  ['create_firewall_zone', { name: 'Sensors', network_ids: ['IoT', 'Guest'] }],
  ['update_firewall_zone', { firewall_zone_id: 'IoT Devices', name: 'Things', network_ids: ['IoT', 'Servers'] }],
  ['delete_firewall_zone', { zone_id: 'IoT Devices' }],
  ['unassign_network_from_zone', { zone_id: 'IoT Devices', network_id: 'Cameras' }],
  ['create_firewall_rule', { name: 'IoT to Guest', action: 'reject', rule_index: 20010, src_networkconf_id: 'IoT', dst_networkconf_id: 'Guest', protocol: 'tcp', port: 22 }],
  ['delete_firewall_rule', { rule_id: 'Drop Telnet from WAN' }],
  ['create_acl_rule', { name: 'Block x', action: 'deny', source_type: 'network', source_id: 'IoT', destination_type: 'ip', destination_network: '10.0.0.0/8', protocol: 'tcp', dst_port: 22, priority: 2 }],
  ['update_acl_rule', { acl_rule_id: 'Block guest SSH', name: 'Block guest SSH v2', priority: 1 }],
  ['update_traffic_matching_list', { list_id: 'Web Ports', items: ['80', '443', '8443'] }],
  ['delete_traffic_matching_list', { list_id: 'Web Ports' }],
  ['update_traffic_route', { route_id: '65b3c8e1f4a9d20c7e5a1201', enabled: false }],
  ['create_traffic_route', { name: 'Cap', action: 'shape', bandwidth_limit_kbps: 5000, source_ip: '10.20.0.0/24' }],
];
for (const [tool, args] of cases) {
  bot.sim.reset(); bot.sim.clearRequests();
  try {
    const preview = await bot.run(tool, { ...args, dry_run: true }) as Record<string, unknown>;
    const text = renderPreview(preview, { width: 100 });
    await bot.run(tool, { ...args, confirm: true });
    const bodies = bot.writes().map(r => ({ m: `${r.method} ${r.route}`, body: r.body }));
    const missing = bodies.flatMap(b => valuesMissingFromPreview(text, b.body).map(x => `${b.m}: ${x}`));
    console.log(`${tool}: ${bodies.length} writes, missing ${missing.length}`, missing.slice(0, 8));
    if (process.argv[2] === tool) console.log(text);
  } catch (e) { console.log(tool, 'ERR', (e as Error).message); }
}
await bot.close();
