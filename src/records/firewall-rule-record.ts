import { z } from 'zod';
import { boolish, numberish, stringish } from './lenient.js';

// Deliberately alike: record schemas list their own fields with the shared lenient types; each types only what its tools read.
/** A classic `rest/firewallrule` record. Loose: only the fields the tools read are typed. */
export const firewallRuleRecordSchema = z.looseObject({
  _id: z.string().min(1),
  name: stringish.transform((v) => v ?? ''),
  ruleset: stringish,
  rule_index: numberish,
  action: stringish,
  enabled: boolish,
  logging: boolish,
  protocol: stringish,
  protocol_v6: stringish,
  src_address: stringish,
  dst_address: stringish,
  src_address_ipv6: stringish,
  dst_address_ipv6: stringish,
  icmp_typename: stringish,
  icmpv6_typename: stringish,
  src_port: stringish,
  dst_port: stringish,
  src_networkconf_id: stringish,
  src_networkconf_type: stringish,
  dst_networkconf_id: stringish,
  dst_networkconf_type: stringish,
  state_established: boolish,
  state_related: boolish,
  state_new: boolish,
  state_invalid: boolish,
  attr_no_edit: boolish,
  attr_no_delete: boolish,
});

/** A parsed firewallrule record. */
export type FirewallRuleRecord = z.output<typeof firewallRuleRecordSchema>;
