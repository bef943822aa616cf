import { z } from 'zod';
import { json } from '../envelopes.js';
import { setWlanEnabled, uuidFrom } from '../live-actions.js';
import { networkUuidOf } from '../retired-networks.js';
import type { Router } from '../router.js';
import type { NetworkConf, SiteState, WlanConf } from '../state.js';
import { type Handler, param, uuidSite } from './context.js';
import { badRequest, listPage, notFound, parseBody } from './integration-common.js';

/**
 * Integration Wi-Fi broadcasts (10.1): list (`Wifi broadcast overview`), one (`Wifi broadcast
 * details`) and the full-replacement PUT (`Wifi broadcast create or update`, 10.1.85), all over the
 * one classic store (`site.wlans`, what `rest/wlanconf` serves), so a toggle through either API is
 * seen by both (docs/decisions.md, "Wi-Fi broadcasts through the official API"). The classic fields
 * the official model names are mapped both ways; the official settings the simulator does not model
 * (mDNS proxy, multicast filter, blackout schedule…) are accepted and not stored.
 */

/** The official id of an SSID: its `external_id` where the record carries one, else derived from `_id`. */
export function integrationWifiId(wlan: WlanConf): string {
  return typeof wlan.external_id === 'string' ? wlan.external_id : uuidFrom(`wlan:${wlan._id}`);
}

const BAND_GHZ: Record<string, number> = { '2g': 2.4, '5g': 5, '6g': 6 };
const GHZ_BAND = new Map(Object.entries(BAND_GHZ).map(([band, ghz]) => [ghz, band]));

function frequenciesOf(wlan: WlanConf): number[] {
  const bands = Array.isArray(wlan.wlan_bands) ? (wlan.wlan_bands as string[]) : ['2g', '5g'];
  const ghz = bands.map((b) => BAND_GHZ[b]).filter((v): v is number => v !== undefined);
  return ghz.length > 0 ? ghz : [2.4, 5];
}

function isDefaultLan(network: NetworkConf | undefined): boolean {
  return network?.attr_hidden_id === 'LAN';
}

/** The network an SSID joins; a deleted one stays named by the UUID it had (the reference dangles). */
function networkRef(site: SiteState, wlan: WlanConf) {
  const network = site.networks.find((n) => n._id === wlan.networkconf_id);
  if (isDefaultLan(network)) return { type: 'NATIVE' };
  const uuid = networkUuidOf(site, wlan.networkconf_id);
  return uuid ? { type: 'SPECIFIC', networkId: uuid } : { type: 'NATIVE' };
}

/** The classic security fields as the official `securityConfiguration` type. */
function securityType(wlan: WlanConf): string {
  if (wlan.security === 'open') return 'OPEN';
  const enterprise = wlan.security === 'wpaeap';
  const mode = wlan.wpa_mode === 'wpa3' ? 'WPA3' : wlan.wpa3_transition === true ? 'WPA2_WPA3' : 'WPA2';
  return `${mode}_${enterprise ? 'ENTERPRISE' : 'PERSONAL'}`;
}

/** `Wifi security configuration detailObject`: the detail carries the passphrase (the document names it). */
function securityDetail(wlan: WlanConf): Record<string, unknown> {
  const type = securityType(wlan);
  if (type === 'OPEN') return { type };
  if (type.endsWith('ENTERPRISE')) {
    return {
      type,
      coaEnabled: false,
      radiusConfiguration: {
        profileId: uuidFrom(`radius:${String(wlan.radiusprofile_id ?? 'default')}`),
        nasId: { type: 'DERIVED', source: 'DEVICE_MAC_ADDRESS' },
      },
      ...(type === 'WPA3_ENTERPRISE' ? { securityMode: 'DEFAULT' } : {}),
      ...(type === 'WPA2_WPA3_ENTERPRISE' ? { pmfMode: 'OPTIONAL', wpa3FastRoamingEnabled: false } : {}),
    };
  }
  const sae = { anticloggingThresholdSeconds: 5, syncTimeSeconds: 5 };
  return {
    type,
    fastRoamingEnabled: wlan.fast_roaming_enabled === true,
    ...(typeof wlan.x_passphrase === 'string' ? { passphrase: wlan.x_passphrase } : {}),
    ...(type === 'WPA2_PERSONAL' ? {} : { saeConfiguration: sae }),
    ...(type === 'WPA2_WPA3_PERSONAL' ? { pmfMode: 'OPTIONAL', wpa3FastRoamingEnabled: false } : {}),
  };
}

/** An SSID as the official list shows it (`Wifi broadcast overview`, STANDARD). */
function overview(site: SiteState, wlan: WlanConf) {
  return {
    type: 'STANDARD',
    id: integrationWifiId(wlan),
    name: wlan.name,
    enabled: wlan.enabled !== false,
    metadata: { origin: 'USER_DEFINED' },
    network: networkRef(site, wlan),
    securityConfiguration: { type: securityType(wlan) },
    broadcastingFrequenciesGHz: frequenciesOf(wlan),
    ...(wlan.is_guest === true ? { hotspotConfiguration: { type: 'CAPTIVE_PORTAL' } } : {}),
  };
}

/** An SSID as `GET …/wifi/broadcasts/{id}` shows it (`Wifi broadcast details`, STANDARD). */
export function integrationWifiDetails(site: SiteState, wlan: WlanConf) {
  return {
    ...overview(site, wlan),
    securityConfiguration: securityDetail(wlan),
    multicastToUnicastConversionEnabled: wlan.mcastenhance_enabled === true,
    clientIsolationEnabled: wlan.l2_isolation === true,
    hideName: wlan.hide_ssid === true,
    uapsdEnabled: wlan.uapsd_enabled === true,
    bandSteeringEnabled: wlan.band_steering_enabled === true,
    arpProxyEnabled: wlan.proxy_arp === true,
    bssTransitionEnabled: wlan.bss_transition !== false,
    advertiseDeviceName: wlan.advertise_device_name === true,
  };
}

// The request body (`Wifi broadcast create or update`, 10.1.85), as the console checks it: the
// required fields of the base and of each variant, the security variants' required fields.
const passphrase = z.string().min(8).max(63);
const personal = {
  groupRekeyIntervalSeconds: z.number().int().min(1).max(86400).optional(),
  fastRoamingEnabled: z.boolean().optional(),
  pmfMode: z.enum(['REQUIRED', 'OPTIONAL']).optional(),
};
const sae = z.looseObject({
  anticloggingThresholdSeconds: z.number().int().min(1).max(60),
  syncTimeSeconds: z.number().int().min(1).max(60),
});
const radius = z.looseObject({ profileId: z.string().uuid(), nasId: z.looseObject({ type: z.string() }) });
const security = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('OPEN') }),
  z.looseObject({
    type: z.literal('WPA2_PERSONAL'),
    ...personal,
    passphrase: passphrase.optional(),
    presharedKeys: z
      .array(z.looseObject({ passphrase: z.string() }))
      .min(1)
      .optional(),
  }),
  z.looseObject({ type: z.literal('WPA3_PERSONAL'), ...personal, passphrase, saeConfiguration: sae }),
  z.looseObject({
    type: z.literal('WPA2_WPA3_PERSONAL'),
    ...personal,
    passphrase,
    pmfMode: z.enum(['REQUIRED', 'OPTIONAL']),
    saeConfiguration: sae,
    wpa3FastRoamingEnabled: z.boolean(),
  }),
  z.looseObject({ type: z.literal('WPA2_ENTERPRISE'), coaEnabled: z.boolean(), radiusConfiguration: radius }),
  z.looseObject({
    type: z.literal('WPA3_ENTERPRISE'),
    coaEnabled: z.boolean(),
    radiusConfiguration: radius,
    securityMode: z.enum(['DEFAULT', 'HIGH_SECURITY_192_BIT']),
  }),
  z.looseObject({
    type: z.literal('WPA2_WPA3_ENTERPRISE'),
    coaEnabled: z.boolean(),
    radiusConfiguration: radius,
    pmfMode: z.enum(['REQUIRED', 'OPTIONAL']),
    wpa3FastRoamingEnabled: z.boolean(),
  }),
]);
const network = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('NATIVE') }),
  z.strictObject({ type: z.literal('SPECIFIC'), networkId: z.string().uuid() }),
]);
const base = {
  name: z.string().min(1),
  network: network.optional(),
  enabled: z.boolean(),
  securityConfiguration: security,
  broadcastingDeviceFilter: z.looseObject({ type: z.enum(['DEVICES', 'DEVICE_TAGS']) }).optional(),
  mdnsProxyConfiguration: z.looseObject({ mode: z.enum(['AUTO', 'CUSTOM']) }).optional(),
  multicastFilteringPolicy: z.looseObject({ action: z.enum(['ALLOW', 'BLOCK']) }).optional(),
  multicastToUnicastConversionEnabled: z.boolean(),
  clientIsolationEnabled: z.boolean(),
  hideName: z.boolean(),
  uapsdEnabled: z.boolean(),
  basicDataRateKbpsByFrequencyGHz: z.looseObject({}).optional(),
  clientFilteringPolicy: z
    .strictObject({ action: z.enum(['ALLOW', 'BLOCK']), macAddressFilter: z.array(z.string()).max(512) })
    .optional(),
  blackoutScheduleConfiguration: z.looseObject({ days: z.array(z.unknown()).min(1) }).optional(),
};
const wifiBody = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('STANDARD'),
    ...base,
    broadcastingFrequenciesGHz: z
      .array(z.union([z.literal(2.4), z.literal(5), z.literal(6)]))
      .min(1)
      .refine((list) => new Set(list).size === list.length, { error: 'must not repeat a frequency' }),
    hotspotConfiguration: z.strictObject({ type: z.enum(['CAPTIVE_PORTAL', 'PASSPOINT']) }).optional(),
    mloEnabled: z.boolean().optional(),
    bandSteeringEnabled: z.boolean().optional(),
    arpProxyEnabled: z.boolean(),
    bssTransitionEnabled: z.boolean(),
    advertiseDeviceName: z.boolean(),
    dtimPeriodByFrequencyGHzOverride: z.looseObject({}).optional(),
  }),
  z.strictObject({ type: z.literal('IOT_OPTIMIZED'), ...base }),
]);
type WifiBody = z.output<typeof wifiBody>;

/** The network a body names, as the classic `networkconf_id`. */
function networkconfOf(site: SiteState, body: WifiBody, wlan: WlanConf): string {
  const ref = body.network;
  if (!ref || ref.type === 'NATIVE') {
    return site.networks.find((n) => isDefaultLan(n))?._id ?? wlan.networkconf_id;
  }
  const found = site.networks.find((n) => n.external_id === ref.networkId && n.purpose !== 'wan');
  if (!found) throw badRequest(`network.networkId ${ref.networkId} is not a network of this site`);
  return found._id;
}

/**
 * Writes a replacement body into the classic record: only what differs from the record's current
 * official view is written, so a PUT that restates the details leaves the record as it was.
 */
function store(site: SiteState, wlan: WlanConf, body: WifiBody, until: number): void {
  const before = integrationWifiDetails(site, wlan) as Record<string, unknown>;
  const changed = (key: string, value: unknown) => JSON.stringify(before[key]) !== JSON.stringify(value);
  const sec = body.securityConfiguration;
  const wasEnabled = wlan.enabled;
  const fields: Record<string, unknown> = {};
  if (changed('name', body.name)) fields.name = body.name;
  if (changed('enabled', body.enabled)) fields.enabled = body.enabled;
  if (changed('network', body.network ?? { type: 'NATIVE' })) {
    fields.networkconf_id = networkconfOf(site, body, wlan);
  }
  if (changed('hideName', body.hideName)) fields.hide_ssid = body.hideName;
  if (changed('clientIsolationEnabled', body.clientIsolationEnabled)) {
    fields.l2_isolation = body.clientIsolationEnabled;
  }
  if (changed('multicastToUnicastConversionEnabled', body.multicastToUnicastConversionEnabled)) {
    fields.mcastenhance_enabled = body.multicastToUnicastConversionEnabled;
  }
  if (changed('uapsdEnabled', body.uapsdEnabled)) fields.uapsd_enabled = body.uapsdEnabled;
  if (securityType(wlan) !== sec.type) {
    fields.security = sec.type === 'OPEN' ? 'open' : sec.type.endsWith('ENTERPRISE') ? 'wpaeap' : 'wpapsk';
    fields.wpa_mode = sec.type.startsWith('WPA3') ? 'wpa3' : 'wpa2';
    fields.wpa3_transition = sec.type.startsWith('WPA2_WPA3');
  }
  if ('passphrase' in sec && typeof sec.passphrase === 'string' && sec.passphrase !== wlan.x_passphrase) {
    fields.x_passphrase = sec.passphrase;
  }
  const hotspot = body.type === 'STANDARD' ? body.hotspotConfiguration : undefined;
  if (changed('hotspotConfiguration', hotspot)) fields.is_guest = hotspot !== undefined;
  if (body.type === 'STANDARD') {
    if (changed('broadcastingFrequenciesGHz', body.broadcastingFrequenciesGHz)) {
      fields.wlan_bands = body.broadcastingFrequenciesGHz.map((ghz) => GHZ_BAND.get(ghz) ?? '2g');
    }
    if (changed('arpProxyEnabled', body.arpProxyEnabled)) fields.proxy_arp = body.arpProxyEnabled;
    if (changed('bssTransitionEnabled', body.bssTransitionEnabled))
      fields.bss_transition = body.bssTransitionEnabled;
    if (changed('advertiseDeviceName', body.advertiseDeviceName)) {
      fields.advertise_device_name = body.advertiseDeviceName;
    }
    if (body.bandSteeringEnabled !== undefined && changed('bandSteeringEnabled', body.bandSteeringEnabled)) {
      fields.band_steering_enabled = body.bandSteeringEnabled;
    }
  } else if (changed('broadcastingFrequenciesGHz', [2.4])) {
    // IoT-optimized: 2.4 GHz only.
    fields.wlan_bands = ['2g'];
  }
  Object.assign(wlan, fields);
  if (wlan.enabled !== wasEnabled) setWlanEnabled(site, wlan.name, wlan.enabled, until);
}

function wlanById(site: SiteState, id: string): WlanConf {
  const wlan = site.wlans.find((w) => integrationWifiId(w) === id);
  if (!wlan) throw notFound('Wifi broadcast', id);
  return wlan;
}

/** Registers the official Wi-Fi broadcast list, details and replacement (10.1 only, by api-version.ts). */
export function registerIntegrationWifi(router: Router<Handler>): void {
  const base = '/integration/v1/sites/:siteId/wifi/broadcasts';
  // Deliberately alike: route registrations share the router's chain shape; each handler reads its own records.
  router
    .on(
      'GET',
      base,
      uuidSite((ctx, site) =>
        listPage(
          ctx,
          site.wlans.map((w) => overview(site, w)),
        ),
      ),
    )
    .on(
      'GET',
      `${base}/:wifiBroadcastId`,
      uuidSite((ctx, site) =>
        json(integrationWifiDetails(site, wlanById(site, param(ctx, 'wifiBroadcastId')))),
      ),
    )
    .on(
      'PUT',
      `${base}/:wifiBroadcastId`,
      uuidSite((ctx, site) => {
        const wlan = wlanById(site, param(ctx, 'wifiBroadcastId'));
        const body = parseBody(wifiBody, ctx);
        store(site, wlan, body, Date.now() + ctx.state.actionDelayMs);
        return json(integrationWifiDetails(site, wlan));
      }),
    );
}
