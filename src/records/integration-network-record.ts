import { z } from 'zod';
import { boolish, lenientArray, numberish, stringish } from './lenient.js';

const lenientObject = <T extends z.ZodRawShape>(shape: T) =>
  z
    .looseObject(shape)
    .optional()
    .catch(() => undefined);

// Deliberately alike: record schemas list their own fields with the shared lenient types; each types only what its tools read.
/**
 * An Integration `/networks` record (`Network details` in the 10.1.85 document; the list shows the
 * same shape). Loose: every field is kept, so a full-replacement PUT built from it carries the
 * settings the bot does not model (IPv6, NAT, PXE, DHCP guarding…) unchanged. Only what the tools
 * map is typed, leniently.
 */
export const integrationNetworkRecordSchema = z.looseObject({
  id: z.string().min(1),
  name: stringish.transform((v) => v ?? ''),
  management: stringish,
  enabled: boolish,
  vlanId: numberish,
  default: boolish,
  metadata: lenientObject({ origin: stringish, configurable: boolish }),
  isolationEnabled: boolish,
  internetAccessEnabled: boolish,
  ipv4Configuration: lenientObject({
    hostIpAddress: stringish,
    prefixLength: numberish,
    autoScaleEnabled: boolish,
    dhcpConfiguration: lenientObject({
      mode: stringish,
      ipAddressRange: lenientObject({ start: stringish, stop: stringish }),
      leaseTimeSeconds: numberish,
      dnsServerIpAddressesOverride: lenientArray(z.string()),
      domainName: stringish,
      gatewayIpAddressOverride: stringish,
    }),
  }),
});

/** A parsed Integration network record. */
export type IntegrationNetworkRecord = z.output<typeof integrationNetworkRecordSchema>;

/**
 * `GET networks/{id}/references` (10.1.85): per kind of object (`CLIENT`, `DEVICE`, `WIFI`,
 * `STATIC_ROUTE`, `NAT_RULE`…), how many point at the network and, for some, their ids.
 */
export const networkReferencesSchema = z.looseObject({
  referenceResources: lenientArray(
    z.looseObject({
      resourceType: z.string(),
      referenceCount: numberish,
      references: lenientArray(z.looseObject({ referenceId: stringish })),
    }),
  ).transform((v) => v ?? []),
});

/** A parsed references answer. */
export type NetworkReferences = z.output<typeof networkReferencesSchema>;
