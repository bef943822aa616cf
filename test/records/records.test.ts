import { describe, expect, it } from 'vitest';
import { clientRecordSchema } from '../../src/records/client-record.js';
import { deviceRecordSchema } from '../../src/records/device-record.js';
import { networkRecordSchema } from '../../src/records/network-record.js';
import { fixtureRecords } from '../helpers/fixtures.js';

const DEVICE_FIXTURES = [
  'classic/stat-device.aiounifi.json',
  'classic/stat-device.unpoller-uap.json',
  'classic/stat-device.unpoller-ugw.json',
  'classic/stat-device.unpoller-usw.json',
];
const NETWORK_FIXTURES = [
  'classic/rest-networkconf.udm.json',
  'classic/rest-networkconf-put-response-lan-dns-set.udm.json',
  'classic/rest-networkconf-put-response-lan-dns-cleared.udm.json',
  'classic/rest-networkconf-put-response-wan.udm.json',
];

describe('controller record schemas over real captured payloads', () => {
  it.each(DEVICE_FIXTURES)('parses every device record in %s', (file) => {
    const records = fixtureRecords(file);
    expect(records.length).toBeGreaterThan(0);
    for (const record of records) {
      const parsed = deviceRecordSchema.safeParse(record);
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    }
  });

  it('keeps the topology fields of the aiounifi devices, including a missing remote port', () => {
    const devices = fixtureRecords('classic/stat-device.aiounifi.json').map((r) =>
      deviceRecordSchema.parse(r),
    );
    const gateway = devices.find((d) => d.type === 'ugw');
    const us8 = devices.find((d) => d.model === 'US8');
    const mini = devices.find((d) => d.model === 'USMINI');
    expect(gateway?.uplink?.uplink_mac).toBeUndefined();
    expect(us8?.uplink?.uplink_mac).toMatch(/^[0-9a-f:]{17}$/);
    expect(us8?.uplink?.uplink_remote_port).toBeUndefined();
    expect(mini?.last_uplink?.uplink_mac).toMatch(/^[0-9a-f:]{17}$/);
    const switch16 = devices.find((d) => d.model === 'US16P150');
    expect(switch16?.port_table?.length).toBe(18);
    expect(switch16?.port_table?.[0]?.port_idx).toBe(1);
  });

  it.each(NETWORK_FIXTURES)('parses every networkconf record in %s', (file) => {
    for (const record of fixtureRecords(file)) {
      const parsed = networkRecordSchema.safeParse(record);
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    }
  });

  it('reads the real quirks of networkconf: untagged LAN, tagged VLANs, WAN with empty vlan', () => {
    const networks = fixtureRecords('classic/rest-networkconf.udm.json').map((r) =>
      networkRecordSchema.parse(r),
    );
    const lan = networks.find((n) => n.purpose === 'corporate' && n.vlan_enabled === false);
    const tagged = networks.filter((n) => n.vlan_enabled === true).map((n) => n.vlan);
    expect(lan?.vlan).toBeUndefined();
    expect(tagged.sort()).toEqual([22, 33]);
    expect(networks.find((n) => n.purpose === 'wan')?.ip_subnet).toBeUndefined();
  });

  it('parses both client records and keeps the hyphenated wired counters', () => {
    const clients = fixtureRecords('classic/stat-sta.aiounifi.json').map((r) => clientRecordSchema.parse(r));
    const wired = clients.find((c) => c.is_wired === true);
    const wireless = clients.find((c) => c.is_wired === false);
    expect(wired?.tx_bytes).toBeUndefined();
    expect(wired?.['wired-tx_bytes']).toBe(0);
    expect(wired?.sw_mac).toMatch(/:/);
    expect(wireless?.ap_mac).toMatch(/:/);
    expect(wireless?.vlan).toBe(0);
  });

  it('turns odd values into absent ones instead of failing the record', () => {
    const parsed = networkRecordSchema.parse({ _id: 'a1', name: 'WAN', vlan: '', dhcpd_leasetime: '86400' });
    expect(parsed.vlan).toBeUndefined();
    expect(parsed.dhcpd_leasetime).toBe(86400);
    const device = deviceRecordSchema.parse({
      mac: 'aa',
      port_table: [{ port_idx: 1 }, 'garbage', { port_idx: 'x' }],
    });
    expect(device.port_table?.map((p) => p.port_idx)).toEqual([1, undefined]);
  });

  it('rejects a record without its identity', () => {
    expect(networkRecordSchema.safeParse({ name: 'no id' }).success).toBe(false);
    expect(clientRecordSchema.safeParse({ ip: '10.0.0.1' }).success).toBe(false);
    expect(deviceRecordSchema.safeParse({ name: 'no mac' }).success).toBe(false);
  });
});
