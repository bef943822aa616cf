import { z } from 'zod';
import { boolish, numberish, stringish } from './lenient.js';

// Deliberately alike: record schemas list their own fields with the shared lenient types; each types only what its tools read.
/**
 * A classic `rest/networkconf` record. Loose: every stored field is kept (get_network_details
 * returns them), and only the fields the tools read are typed.
 */
export const networkRecordSchema = z.looseObject({
  _id: z.string().min(1),
  name: stringish.transform((v) => v ?? ''),
  purpose: stringish,
  networkgroup: stringish,
  enabled: boolish,
  vlan_enabled: boolish,
  vlan: numberish,
  ip_subnet: stringish,
  dhcpd_enabled: boolish,
  dhcpd_start: stringish,
  dhcpd_stop: stringish,
  dhcpd_leasetime: numberish,
  dhcpd_dns_enabled: boolish,
  dhcpd_dns_1: stringish,
  dhcpd_dns_2: stringish,
  dhcpd_dns_3: stringish,
  dhcpd_dns_4: stringish,
  dhcpd_gateway_enabled: boolish,
  dhcpd_gateway: stringish,
  domain_name: stringish,
  site_id: stringish,
  external_id: stringish,
  attr_no_delete: boolish,
  attr_hidden_id: stringish,
});

/** A parsed networkconf record. */
export type NetworkRecord = z.output<typeof networkRecordSchema>;
