import { z } from 'zod';
import { isRecord } from '../../lib/is-record.js';
import { REDACTED } from '../../lib/redact.js';
import { boolish, lenientArray, numberish, stringish } from '../../records/lenient.js';

/**
 * The official (Integration, 10.1) Wi-Fi broadcast model mapped to the spec's broadcast results,
 * and the `Wifi broadcast create or update` body (10.1.85) a toggle sends: a full replacement built
 * from the fresh `Wifi broadcast details` record with only `enabled` changed. The details carry the
 * SSID's passphrase (the document names it in `Wifi security configuration detailObject`, required
 * for the WPA3 variants), so the body restates it; what a preview, result or log shows has it
 * masked (docs/decisions.md, "Wi-Fi broadcasts through the official API").
 */

const lenientObject = <T extends z.ZodRawShape>(shape: T) =>
  z
    .looseObject(shape)
    .optional()
    .catch(() => undefined);

/** An official broadcast as the list (`Wifi broadcast overview`) and details show it; every field kept. */
export const officialWifiSchema = z.looseObject({
  id: z.string().min(1),
  name: stringish.transform((v) => v ?? ''),
  type: stringish,
  enabled: boolish,
  network: lenientObject({ type: stringish, networkId: stringish }),
  securityConfiguration: lenientObject({ type: stringish }),
  broadcastingFrequenciesGHz: lenientArray(numberish),
  hotspotConfiguration: lenientObject({ type: stringish }),
  hideName: boolish,
});
export type OfficialWifi = z.output<typeof officialWifiSchema>;

// Official security type → the classic wording the spec's `security` uses (`wpapsk (wpa2)`).
const SECURITY: Record<string, string> = {
  OPEN: 'open',
  WPA2_PERSONAL: 'wpapsk (wpa2)',
  WPA3_PERSONAL: 'wpapsk (wpa3)',
  WPA2_WPA3_PERSONAL: 'wpapsk (wpa2/wpa3)',
  WPA2_ENTERPRISE: 'wpaeap (wpa2)',
  WPA3_ENTERPRISE: 'wpaeap (wpa3)',
  WPA2_WPA3_ENTERPRISE: 'wpaeap (wpa2/wpa3)',
};

/** The spec's `security` text for an official security type. */
export function securityText(type: string | undefined): string | null {
  if (type === undefined) return null;
  return SECURITY[type] ?? type.toLowerCase();
}

const BAND: Record<string, string> = { '2.4': '2g', '5': '5g', '6': '6g' };

/** The spec's bands (`2g`, `5g`, `6g`); an IoT-optimized broadcast is 2.4 GHz only (it names no frequencies). */
export function bandsOfOfficial(record: OfficialWifi): string[] {
  if (record.type === 'IOT_OPTIMIZED') return ['2g'];
  return (record.broadcastingFrequenciesGHz ?? [])
    .filter((f): f is number => typeof f === 'number')
    .map((f) => BAND[String(f)] ?? `${f}g`);
}

// What `Wifi broadcast create or update` names (10.1.85): the base, and what STANDARD adds.
const BASE_KEYS = [
  'type',
  'name',
  'network',
  'enabled',
  'securityConfiguration',
  'broadcastingDeviceFilter',
  'mdnsProxyConfiguration',
  'multicastFilteringPolicy',
  'multicastToUnicastConversionEnabled',
  'clientIsolationEnabled',
  'hideName',
  'uapsdEnabled',
  'basicDataRateKbpsByFrequencyGHz',
  'clientFilteringPolicy',
  'blackoutScheduleConfiguration',
];
const STANDARD_KEYS = [
  'broadcastingFrequenciesGHz',
  'hotspotConfiguration',
  'mloEnabled',
  'bandSteeringEnabled',
  'arpProxyEnabled',
  'bssTransitionEnabled',
  'advertiseDeviceName',
  'dtimPeriodByFrequencyGHzOverride',
];

/**
 * Why the toggle of this broadcast cannot go through the official PUT, or undefined when it can.
 * A personal (PSK) SSID must restate its key: the document requires `passphrase` for WPA3 and
 * WPA2/WPA3 personal, and a WPA2 personal body without `passphrase` or `presharedKeys` would
 * leave the console to guess the key. When the details did not return it, the body cannot be
 * complete, so the toggle stays classic (which changes `enabled` alone).
 */
export function officialToggleBlocker(details: Record<string, unknown>): string | undefined {
  const security = details.securityConfiguration;
  if (!isRecord(security) || typeof security.type !== 'string') {
    return 'the official record has no security configuration to restate';
  }
  if (!security.type.endsWith('_PERSONAL')) return undefined;
  const keys = security.presharedKeys;
  const hasKeys =
    Array.isArray(keys) &&
    keys.length > 0 &&
    keys.every((k) => isRecord(k) && typeof k.passphrase === 'string');
  if (typeof security.passphrase === 'string' && security.passphrase !== '') return undefined;
  if (security.type === 'WPA2_PERSONAL' && hasKeys) return undefined;
  return 'the console did not return its passphrase, so the official full-replacement PUT could not restate it; toggled through classic wlanconf, which changes `enabled` alone';
}

/**
 * The `Wifi broadcast create or update` body for the broadcast `details` (as `GET …/{id}` returned
 * it) with `enabled` set: every setting the document names is carried over unchanged; read-only
 * fields (`id`, `metadata`) and fields the document does not name for the variant are left out.
 */
export function officialWifiBody(
  details: Record<string, unknown>,
  enabled: boolean,
): Record<string, unknown> {
  const keys = details.type === 'IOT_OPTIMIZED' ? BASE_KEYS : [...BASE_KEYS, ...STANDARD_KEYS];
  const body: Record<string, unknown> = {};
  for (const key of keys) {
    if (details[key] !== undefined && details[key] !== null) body[key] = details[key];
  }
  body.enabled = enabled;
  return body;
}

/**
 * Placeholder for a secret a body restates: the registry's own mask (lib/redact.ts), so previews,
 * results and the journal show one word for it whichever layer masked it first.
 */
export const UNCHANGED_SECRET = REDACTED;

/** A copy of a body with its passphrases (the SSID's and each preshared key's) masked. */
export function maskWifiSecrets(body: Record<string, unknown>): Record<string, unknown> {
  const security = body.securityConfiguration;
  if (!isRecord(security) || (!('passphrase' in security) && !Array.isArray(security.presharedKeys)))
    return body;
  const masked: Record<string, unknown> = { ...security };
  if ('passphrase' in masked) masked.passphrase = UNCHANGED_SECRET;
  if (Array.isArray(masked.presharedKeys)) {
    masked.presharedKeys = masked.presharedKeys.map((k) =>
      isRecord(k) && 'passphrase' in k ? { ...k, passphrase: UNCHANGED_SECRET } : k,
    );
  }
  return { ...body, securityConfiguration: masked };
}
