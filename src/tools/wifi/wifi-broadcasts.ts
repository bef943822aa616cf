import { z } from 'zod';
import { ConflictError, ResourceNotFoundError, ValidationError } from '../../errors.js';
import type { Gateway } from '../../gateway/types.js';
import type { ImpactFacts } from '../../policy/types.js';
import { boolish, stringish } from '../../records/lenient.js';
import { networkRecordSchema } from '../../records/network-record.js';
import {
  actionResultSchema,
  type ControllerCommand,
  integrationAvailable,
  sendCommand,
} from '../core/action-model.js';
import { confirm, dryRun, nonEmpty, siteId } from '../core/arg-types.js';
import type { ChangeSpec, ImageRead } from '../core/change-spec.js';
import { defineTool } from '../core/define-tool.js';
import { addressIs, affected, type ImpactInput } from '../core/guardrails.js';
import { clientLabel, type LiveClient, readLiveClients } from '../core/live-targets.js';
import { type Json, siteOf, str } from '../core/spec-helpers.js';
import { loadNetworks } from '../networks/network-source.js';
import {
  bandsOfOfficial,
  maskWifiSecrets,
  type OfficialWifi,
  officialToggleBlocker,
  officialWifiBody,
  officialWifiSchema,
  securityText,
} from './official-wifi-model.js';

/*
 * Wi-Fi broadcasts (SSIDs). On a console whose official API offers `wifi.broadcasts`
 * (Network 10.1, with an API key) they are read from `GET …/wifi/broadcasts` and toggled by the
 * official full-replacement PUT, its body the fresh details with only `enabled` changed;
 * the tools show and take the official UUID, and still take the classic `_id` and the SSID name.
 * Elsewhere classic `rest/wlanconf`, whose PUT merges `{enabled}` alone (docs/decisions.md,
 * "On-call actions" and "Wi-Fi broadcasts through the official API").
 */

const WLANCONF = 'rest/wlanconf';
const OFFICIAL = 'wifi/broadcasts';
/** A classic wlanconf `_id`: 24 hex digits. */
const CLASSIC_ID = /^[0-9a-f]{24}$/i;

const wlanSchema = z.looseObject({
  _id: z.string().min(1),
  name: stringish.transform((v) => v ?? ''),
  enabled: boolish,
  networkconf_id: stringish,
  security: stringish,
  wpa_mode: stringish,
  is_guest: boolish,
  hide_ssid: boolish,
  wlan_bands: z.array(z.string()).optional().catch(undefined),
  wlan_band: stringish,
});

const broadcastSchema = z.object({
  id: z.string().describe('The official broadcast id on Network 10.1 with an API key, else the wlanconf _id'),
  name: z.string().describe('The SSID'),
  enabled: z.boolean().describe('Broadcasting now'),
  network: z.string().nullable().describe('The network its clients join'),
  security: z.string().nullable().describe('open, wpapsk (with the WPA mode), wpaeap…'),
  guest: z.boolean().describe('A guest (hotspot) SSID'),
  hidden: z.boolean().describe('Not advertised'),
  bands: z.array(z.string()).describe('Radio bands (2g, 5g, 6g)'),
  clients: z.number().describe('Clients connected to it now'),
});

type Wlan = z.output<typeof wlanSchema>;

function bandsOf(wlan: Wlan): string[] {
  if (wlan.wlan_bands && wlan.wlan_bands.length > 0) return wlan.wlan_bands;
  return wlan.wlan_band === 'both' ? ['2g', '5g'] : wlan.wlan_band ? [wlan.wlan_band] : [];
}

/** The SSID named by id or by name (case-insensitive), or a refusal that lists them. */
function findSsid<T extends { name: string }>(list: readonly T[], wanted: string, idOf: (w: T) => string): T {
  const byId = list.find((w) => idOf(w) === wanted);
  if (byId) return byId;
  const byName = list.filter((w) => w.name.toLowerCase() === wanted.toLowerCase());
  const [only] = byName;
  if (byName.length === 1 && only) return only;
  const names = list.map((w) => `${w.name} (${idOf(w)})`).join(', ');
  if (byName.length > 1) {
    throw new ValidationError([
      { field: 'wifi_id', rule: `"${wanted}" names ${byName.length} SSIDs; use the id: ${names}` },
    ]);
  }
  throw new ResourceNotFoundError(
    'wifi broadcast',
    wanted,
    `wifi broadcast ${wanted} not found (wifi_id); the site has ${names || 'no SSIDs'}`,
  );
}

/** Whether the Wi-Fi tools go through the official API (10.1 with an API key). */
function usesOfficialWifi(gateway: Gateway, site: string): Promise<boolean> {
  return integrationAvailable(gateway, site, 'wifi.broadcasts');
}

const wirelessOn = (clients: readonly LiveClient[], ssid: string) =>
  clients.filter((c) => c.is_wired !== true && c.essid === ssid).length;

type Broadcast = z.output<typeof broadcastSchema>;

async function classicBroadcasts(gateway: Gateway, site: string): Promise<Broadcast[]> {
  const [wlans, networks, clients] = await Promise.all([
    gateway.classicRead(site, WLANCONF, wlanSchema),
    gateway.classicRead(site, 'rest/networkconf', networkRecordSchema),
    readLiveClients({ gateway, site }),
  ]);
  const networkName = new Map(networks.items.map((n) => [n._id, n.name]));
  return wlans.items.map((wlan) => ({
    id: wlan._id,
    name: wlan.name,
    enabled: wlan.enabled !== false,
    network: (wlan.networkconf_id && networkName.get(wlan.networkconf_id)) ?? null,
    security: wlan.security ? `${wlan.security}${wlan.wpa_mode ? ` (${wlan.wpa_mode})` : ''}` : null,
    guest: wlan.is_guest === true,
    hidden: wlan.hide_ssid === true,
    bands: bandsOf(wlan),
    clients: wirelessOn(clients, wlan.name),
  }));
}

/**
 * The official list, each broadcast's details (only they say whether the SSID is hidden), the
 * official networks (the network shown by its name, as the network tools name it on 10.1; a
 * NATIVE broadcast joins the default network) and the live clients, asked side by side.
 */
async function officialBroadcasts(gateway: Gateway, site: string): Promise<Broadcast[]> {
  const listed = gateway.integrationList(site, OFFICIAL, officialWifiSchema);
  // Each broadcast's details are asked as soon as the list is in, not after the other reads.
  const detailed = listed.then((list) =>
    Promise.all(
      list.items.map((b) => gateway.integrationGet(site, `${OFFICIAL}/${b.id}`, officialWifiSchema)),
    ),
  );
  detailed.catch(() => undefined);
  const [list, networks, clients, details] = await Promise.all([
    listed,
    // Names and the default network only: the official overview has them.
    loadNetworks(gateway, site, { details: false }),
    readLiveClients({ gateway, site }),
    detailed,
  ]);
  const networkName = new Map(networks.records.map((n) => [n._id, n.name]));
  const defaultNetwork = networks.records.find((n) => (n as Record<string, unknown>).default === true);
  return list.items.map((item, index) => {
    const record: OfficialWifi = { ...item, ...details[index] };
    const ref = record.network;
    const network =
      ref?.type === 'SPECIFIC' && ref.networkId
        ? (networkName.get(ref.networkId) ?? null)
        : (defaultNetwork?.name ?? null);
    return {
      id: record.id,
      name: record.name,
      enabled: record.enabled !== false,
      network,
      security: securityText(record.securityConfiguration?.type),
      guest: record.hotspotConfiguration !== undefined,
      hidden: record.hideName === true,
      bands: bandsOfOfficial(record),
      clients: wirelessOn(clients, record.name),
    };
  });
}

// Deliberately alike: the tools below are defineTool declarations, whose shape the framework fixes; each differs in args and run.
const listWifiBroadcasts = defineTool({
  name: 'list_wifi_broadcasts',
  description: 'List the Wi-Fi networks (SSIDs): on or off, network, security, bands, clients now',
  access: 'read',
  example: '',
  args: z.object({ site_id: siteId }),
  output: z.array(broadcastSchema),
  async run({ site_id }, { gateway }) {
    return (await usesOfficialWifi(gateway, site_id))
      ? officialBroadcasts(gateway, site_id)
      : classicBroadcasts(gateway, site_id);
  },
});

/**
 * The official broadcast named by `ref`: its UUID, its SSID name, or a classic wlanconf `_id`
 * (what older results, journals and baselines carry), which costs one classic read, only then.
 */
async function findOfficial(
  gateway: Gateway,
  site: string,
  list: readonly OfficialWifi[],
  ref: string,
): Promise<OfficialWifi> {
  try {
    return findSsid(list, ref, (b) => b.id);
  } catch (error) {
    if (!(error instanceof ResourceNotFoundError) || !CLASSIC_ID.test(ref)) throw error;
    const classic = (await gateway.classicRead(site, WLANCONF, wlanSchema, { fresh: true })).items.find(
      (w) => w._id === ref,
    );
    if (!classic) throw error;
    const external = typeof classic.external_id === 'string' ? classic.external_id : undefined;
    const byExternal = external ? list.find((b) => b.id === external) : undefined;
    return byExternal ?? findSsid(list, classic.name, (b) => b.id);
  }
}

/**
 * The SSID `ref` names (id, classic `_id` or name), read as the Wi-Fi tools read it: the official
 * list on 10.1 (no secret in it), else classic wlanconf. Its name, and the record policy rules see
 * as `target` (on the official path with the classic `_id` and `is_guest` names beside the official ones).
 */
export async function readSsid(
  gateway: Gateway,
  site: string,
  ref: string,
): Promise<{ name: string; record: Record<string, unknown> }> {
  if (await usesOfficialWifi(gateway, site)) {
    const list = (await gateway.integrationList(site, OFFICIAL, officialWifiSchema, { fresh: true })).items;
    const found = await findOfficial(gateway, site, list, ref);
    return {
      name: found.name,
      record: { ...found, _id: found.id, is_guest: found.hotspotConfiguration !== undefined },
    };
  }
  const wlans = (await gateway.classicRead(site, WLANCONF, wlanSchema, { fresh: true })).items;
  const wlan = findSsid(wlans, ref, (w) => w._id);
  return { name: wlan.name, record: wlan };
}

/** What the toggle sends, and what its preview and result show (secrets masked). */
interface Toggle {
  wifi: { id: string; name: string };
  enabled: boolean;
  command: ControllerCommand;
  shown: ControllerCommand;
  notes: string[];
}

async function classicToggle(gateway: Gateway, site: string, ref: string, enabled: boolean): Promise<Toggle> {
  const wlans = (await gateway.classicRead(site, WLANCONF, wlanSchema, { fresh: true })).items;
  const wlan = findSsid(wlans, ref, (w) => w._id);
  const command: ControllerCommand = {
    api: 'classic',
    method: 'PUT',
    path: `${WLANCONF}/${wlan._id}`,
    body: { enabled },
  };
  return {
    wifi: { id: wlan._id, name: wlan.name },
    enabled: wlan.enabled !== false,
    command,
    shown: command,
    notes: [],
  };
}

/**
 * The official toggle: the fresh details, and a full-replacement PUT of them with `enabled` set.
 * When the details cannot be restated (a PSK SSID whose passphrase the console did not return),
 * the classic `{enabled}` merge on the same SSID instead, with the reason in the warnings.
 */
async function officialToggle(
  gateway: Gateway,
  site: string,
  ref: string,
  enabled: boolean,
): Promise<Toggle> {
  const list = (await gateway.integrationList(site, OFFICIAL, officialWifiSchema, { fresh: true })).items;
  const found = await findOfficial(gateway, site, list, ref);
  const details = await gateway.integrationGet(site, `${OFFICIAL}/${found.id}`, officialWifiSchema, {
    fresh: true,
  });
  const wifi = { id: details.id, name: details.name };
  const blocker = officialToggleBlocker(details);
  if (blocker) {
    const classic = await classicToggle(gateway, site, found.name, enabled);
    return { ...classic, wifi, enabled: details.enabled !== false, notes: [`${details.name}: ${blocker}`] };
  }
  const body = officialWifiBody(details, enabled);
  const path = `${OFFICIAL}/${details.id}`;
  const shown = maskWifiSecrets(body);
  return {
    wifi,
    enabled: details.enabled !== false,
    command: { api: 'integration', method: 'PUT', path, body },
    shown: { api: 'integration', method: 'PUT', path, body: shown },
    // The official PUT replaces the whole SSID: its key is sent again as the console holds it.
    notes: shown === body ? [] : [`${details.name}: its passphrase is sent back unchanged (not shown)`],
  };
}

// Read as the toggle resolves it (official id, classic `_id` or name): a classic `_id` given on a
// console whose Wi-Fi tools show official ids is still found, so such a toggle has a before-image.
const wifiRead = (args: Json, ref: string): ImageRead => ({
  kind: 'wifi',
  ref,
  tool: 'list_wifi_broadcasts',
  args: siteOf(args),
  direct: async ({ gateway }) => {
    const { name, record } = await readSsid(gateway, String(args.site_id ?? 'default'), ref);
    return { id: String(record.id ?? record._id), name, enabled: record.enabled !== false };
  },
  pick: ['id', 'name', 'enabled'],
});

/** set_wifi_broadcast_enabled is undone by itself with the state the SSID had. */
const toggleChange: ChangeSpec = {
  kind: 'update',
  beforeRead: (args) => wifiRead(args, String(args.wifi_id)),
  afterRead: (args, _result, before) => wifiRead(args, str(before?.id) ?? String(args.wifi_id)),
  expected: (args) => ({ kind: 'fields', fields: { enabled: args.enabled } }),
  inverse: ({ args, before }) => {
    if (!before) return { reason: 'the Wi-Fi network could not be read before the change' };
    return {
      tool: 'set_wifi_broadcast_enabled',
      args: { ...siteOf(args), wifi_id: str(before.id) ?? args.wifi_id, enabled: before.enabled === true },
      notes: [],
    };
  },
};

/** The blast radius of an SSID toggle: turning it off drops its wireless clients. */
export async function wifiImpact({ context, site, args, position }: ImpactInput): Promise<ImpactFacts> {
  const { gateway } = context;
  const wanted = String(args.wifi_id ?? '');
  // Turning an SSID off drops its clients: they are read alongside the SSID, not after it.
  const clients = args.enabled === false ? readLiveClients({ gateway, site }, { fresh: true }) : undefined;
  clients?.catch(() => undefined);
  // As the Wi-Fi tools read it: the official list on 10.1, else classic wlanconf.
  const { name, record } = await readSsid(gateway, site, wanted);
  const wlan = { ...record, name };
  const label = `Wi-Fi ${wlan.name}`;
  if (!clients) return { target: label, targetRecord: wlan as Record<string, unknown> };
  const on = (await clients).filter((c) => c.is_wired !== true && c.essid === wlan.name);
  const self = on.find((c) => addressIs(position, c.ip ?? undefined));
  return {
    target: label,
    targetRecord: wlan as Record<string, unknown>,
    clients: affected(on.map((c) => clientLabel(c))),
    ...(self
      ? { selfLockout: `${addressIs(position, self.ip ?? undefined)} ${self.ip} is on ${label}` }
      : {}),
  };
}

const setWifiBroadcastEnabled = defineTool({
  name: 'set_wifi_broadcast_enabled',
  change: toggleChange,
  impact: wifiImpact,
  description: 'Turn a Wi-Fi network (SSID) on or off; turning it off drops its clients',
  access: 'write',
  example: 'wifi_id="Guest WiFi" enabled=false',
  args: z.object({
    site_id: siteId,
    wifi_id: nonEmpty('must be an SSID name or id').describe(
      'The Wi-Fi network: its SSID name or id (official broadcast id or wlanconf id)',
    ),
    enabled: z
      .boolean({ error: 'must be true or false' })
      .describe('true broadcasts the SSID, false stops it'),
    confirm,
    dry_run: dryRun,
  }),
  output: actionResultSchema.extend({
    wifi: z.object({ id: z.string(), name: z.string() }).describe('The SSID changed'),
    enabled: z.boolean().describe('Its new state'),
  }),
  async run({ site_id, wifi_id, enabled, dry_run }, { gateway }) {
    const toggle = (await usesOfficialWifi(gateway, site_id))
      ? await officialToggle(gateway, site_id, wifi_id, enabled)
      : await classicToggle(gateway, site_id, wifi_id, enabled);
    const name = toggle.wifi.name;
    if (toggle.enabled === enabled) {
      throw new ConflictError(`${name} is already ${enabled ? 'on' : 'off'}; nothing to do`);
    }
    let warnings: string[];
    if (enabled) {
      warnings = [`${name} is broadcast again; its clients reconnect by themselves`];
    } else {
      const on = wirelessOn(await readLiveClients({ gateway, site: site_id }, { fresh: true }), name);
      warnings = [
        `${name}: ${on} client${on === 1 ? '' : 's'} lose${on === 1 ? 's' : ''} Wi-Fi until it is turned on again`,
      ];
    }
    warnings.push(...toggle.notes);
    const facts = { wifi: toggle.wifi, enabled };
    const action = enabled ? 'enable wifi' : 'disable wifi';
    if (dry_run) return { dry_run: true, action, ...facts, would_send: toggle.shown, warnings };
    await sendCommand(gateway, site_id, toggle.command);
    return { success: true as const, action, ...facts, sent: toggle.shown, warnings };
  },
});

/** The Wi-Fi broadcast tools (official first on 10.1). */
export const wifiBroadcastTools = [listWifiBroadcasts, setWifiBroadcastEnabled];
