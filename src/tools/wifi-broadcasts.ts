import { z } from 'zod';
import { ConflictError, ResourceNotFoundError, ValidationError } from '../errors.js';
import { boolish, stringish } from '../gateway/records/lenient.js';
import { networkRecordSchema } from '../gateway/records/network-record.js';
import { actionResultSchema, type ControllerCommand, sendCommand } from './action-model.js';
import { confirm, dryRun, siteId } from './arg-types.js';
import { defineTool } from './define-tool.js';
import { readLiveClients } from './live-targets.js';

/*
 * Wi-Fi broadcasts (SSIDs, issue 20) on classic `rest/wlanconf`. The Integration API lists them
 * too, but changes one only by a full PUT that must restate the whole SSID (security, passphrase,
 * bands…); the classic PUT merges `{enabled}` alone, so the toggle (and, for one id space, the
 * list) use it (docs/decisions.md, Issue 20: actions).
 */

const WLANCONF = 'rest/wlanconf';

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
  id: z.string().describe('wlanconf _id'),
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

/** The SSID named by `_id` or by name (case-insensitive), or a refusal that lists them. */
function findWlan(wlans: readonly Wlan[], wanted: string): Wlan {
  const byId = wlans.find((w) => w._id === wanted);
  if (byId) return byId;
  const byName = wlans.filter((w) => w.name.toLowerCase() === wanted.toLowerCase());
  const [only] = byName;
  if (byName.length === 1 && only) return only;
  const names = wlans.map((w) => `${w.name} (${w._id})`).join(', ');
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

const listWifiBroadcasts = defineTool({
  name: 'list_wifi_broadcasts',
  description: 'List the Wi-Fi networks (SSIDs): on or off, network, security, bands, clients now',
  access: 'read',
  example: '',
  args: z.object({ site_id: siteId }),
  output: z.array(broadcastSchema),
  async run({ site_id }, { gateway }) {
    const [wlans, networks, clients] = await Promise.all([
      gateway.classicRead(site_id, WLANCONF, wlanSchema),
      gateway.classicRead(site_id, 'rest/networkconf', networkRecordSchema),
      readLiveClients({ gateway, site: site_id }),
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
      clients: clients.filter((c) => c.is_wired !== true && c.essid === wlan.name).length,
    }));
  },
});

const setWifiBroadcastEnabled = defineTool({
  name: 'set_wifi_broadcast_enabled',
  description: 'Turn a Wi-Fi network (SSID) on or off; turning it off drops its clients',
  access: 'write',
  example: 'wifi_id="Guest WiFi" enabled=false',
  args: z.object({
    site_id: siteId,
    wifi_id: z
      .string({ error: 'must be an SSID name or wlanconf id' })
      .trim()
      .min(1, { error: 'must be an SSID name or wlanconf id' })
      .describe('The Wi-Fi network: its SSID name or wlanconf id'),
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
    const wlans = (await gateway.classicRead(site_id, WLANCONF, wlanSchema, { fresh: true })).items;
    const wlan = findWlan(wlans, wifi_id);
    if ((wlan.enabled !== false) === enabled) {
      throw new ConflictError(`${wlan.name} is already ${enabled ? 'on' : 'off'}; nothing to do`);
    }
    const command: ControllerCommand = {
      api: 'classic',
      method: 'PUT',
      path: `${WLANCONF}/${wlan._id}`,
      body: { enabled },
    };
    let warnings: string[];
    if (enabled) {
      warnings = [`${wlan.name} is broadcast again; its clients reconnect by themselves`];
    } else {
      const clients = await readLiveClients({ gateway, site: site_id }, { fresh: true });
      const on = clients.filter((c) => c.is_wired !== true && c.essid === wlan.name).length;
      warnings = [
        `${wlan.name}: ${on} client${on === 1 ? '' : 's'} lose${on === 1 ? 's' : ''} Wi-Fi until it is turned on again`,
      ];
    }
    const facts = { wifi: { id: wlan._id, name: wlan.name }, enabled };
    if (dry_run)
      return {
        dry_run: true,
        action: enabled ? 'enable wifi' : 'disable wifi',
        ...facts,
        would_send: command,
        warnings,
      };
    await sendCommand(gateway, site_id, command);
    return {
      success: true as const,
      action: enabled ? 'enable wifi' : 'disable wifi',
      ...facts,
      sent: command,
      warnings,
    };
  },
});

/** The Wi-Fi broadcast tools of issue 20. */
export const wifiBroadcastTools = [listWifiBroadcasts, setWifiBroadcastEnabled];
