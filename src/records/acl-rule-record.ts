import { z } from 'zod';
import { boolish, lenientArray, numberish, stringish } from './lenient.js';
import { integrationMetadataSchema } from './zone-record.js';

// Deliberately alike: record schemas list their own fields with the shared lenient types; each types only what its tools read.
/** One side of an ACL rule (`sourceFilter` / `destinationFilter`): a union keyed on `type`, read loosely. */
export const aclEndpointSchema = z.looseObject({
  type: z.string(),
  networkIds: lenientArray(z.string()),
  ipAddressesOrSubnets: lenientArray(z.string()),
  macAddresses: lenientArray(z.string()),
  portFilter: lenientArray(z.number()).nullable(),
});

/** A parsed ACL endpoint filter. */
export type AclEndpointRecord = z.output<typeof aclEndpointSchema>;

// Deliberately alike: record schemas list their own fields with the shared lenient types; each types only what its tools read.
/** An Integration `acl-rules` record (IPV4 or MAC). An unreadable filter becomes undefined, not a failure. */
export const aclRuleRecordSchema = z.looseObject({
  id: z.string().min(1),
  type: stringish,
  name: stringish.transform((v) => v ?? ''),
  description: stringish,
  enabled: boolish,
  action: stringish,
  index: numberish,
  sourceFilter: aclEndpointSchema.nullable().optional().catch(undefined),
  destinationFilter: aclEndpointSchema.nullable().optional().catch(undefined),
  protocolFilter: lenientArray(z.string()).nullable(),
  // MAC rules only: the network (UUID) the rule applies in.
  networkIdFilter: stringish,
  metadata: integrationMetadataSchema,
});

/** A parsed ACL rule record. */
export type AclRuleRecord = z.output<typeof aclRuleRecordSchema>;

/** `GET acl-rules/ordering`: user-defined rule ids, first evaluated first. */
export const aclOrderingSchema = z.looseObject({
  orderedAclRuleIds: z.array(z.string()),
});
