import { z } from 'zod';
import { parseCidr } from '../../lib/ip.js';
import { json, SimError } from '../envelopes.js';
import { retireNetwork } from '../retired-networks.js';
import type { Router } from '../router.js';
import type { NetworkConf, SiteState } from '../state.js';
import { isTagged, validateNetworkConf, vlanNumber } from '../validation.js';
import { assignDefaultZone, removeNetworkFromZones, zoneOfNetwork } from '../zone-membership.js';
import { type Handler, param, uuidSite } from './context.js';
import { badRequest, listPage, notFound, parseBody } from './integration-common.js';
import { integrationIdOf } from './integration-live.js';
import { integrationWifiId } from './integration-wifi.js';

/**
 * Integration `networks` (10.1): list (overviews), get (details), create, full-replacement PUT, delete and references,
 * all over the one classic store (`site.networks`), so a network reads the same whichever API
 * wrote it. The official model has no `purpose`: the simulator shows a guest network as an isolated
 * gateway network and stores an isolated one as `guest` (docs/decisions.md, "Networks through the official API").
 */

type StoredNetwork = NetworkConf & { external_id: string };

/** Networks the Integration API lists: everything but WANs (which it does not return). */
export function integrationNetworks(site: SiteState): StoredNetwork[] {
  return site.networks.filter(
    (network): network is StoredNetwork =>
      network.purpose !== 'wan' && typeof network.external_id === 'string',
  );
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The IPv4 block of a gateway network, as `Gateway Managed IPv4 Configuration`. */
function ipv4Of(network: NetworkConf): Record<string, unknown> | undefined {
  const subnet = parseCidr(String(network.ip_subnet ?? ''));
  if (!subnet) return undefined;
  const ipv4: Record<string, unknown> = {
    autoScaleEnabled: network.auto_scale_enabled === true,
    hostIpAddress: String(network.ip_subnet).split('/')[0],
    prefixLength: subnet.prefix,
  };
  if (network.dhcpd_enabled === true && text(network.dhcpd_start) && text(network.dhcpd_stop)) {
    const dns = ['dhcpd_dns_1', 'dhcpd_dns_2', 'dhcpd_dns_3', 'dhcpd_dns_4']
      .map((key) => text(network[key]))
      .filter((v): v is string => v !== undefined);
    ipv4.dhcpConfiguration = {
      mode: 'SERVER',
      ipAddressRange: { start: network.dhcpd_start, stop: network.dhcpd_stop },
      leaseTimeSeconds: Number(network.dhcpd_leasetime ?? 86400),
      pingConflictDetectionEnabled: network.dhcp_conflict_checking === true,
      ...(network.dhcpd_dns_enabled === true && dns.length > 0 ? { dnsServerIpAddressesOverride: dns } : {}),
      ...(text(network.domain_name) ? { domainName: network.domain_name } : {}),
      ...(network.dhcpd_gateway_enabled === true && text(network.dhcpd_gateway)
        ? { gatewayIpAddressOverride: network.dhcpd_gateway }
        : {}),
    };
  }
  return ipv4;
}

/** A networkconf record as Integration `/networks` shows it (`Network details`). */
export function integrationNetwork(network: StoredNetwork, site?: SiteState) {
  const common = {
    management: network.purpose === 'vlan-only' ? 'UNMANAGED' : 'GATEWAY',
    id: network.external_id,
    name: network.name,
    enabled: network.enabled !== false,
    // vlanId is 1 for the untagged default network and the tag otherwise.
    vlanId: isTagged(network) ? (vlanNumber(network.vlan) ?? 1) : 1,
    metadata: network.attr_no_delete
      ? { origin: 'SYSTEM_DEFINED', configurable: true }
      : { origin: 'USER_DEFINED' },
    default: network.attr_hidden_id === 'LAN',
  };
  if (common.management === 'UNMANAGED') return common;
  const zone = site ? zoneOfNetwork(site, network.external_id) : undefined;
  const ipv4 = ipv4Of(network);
  return {
    ...common,
    isolationEnabled: network.purpose === 'guest',
    cellularBackupEnabled: network.lte_lan_enabled === true,
    ...(zone ? { zoneId: zone.id } : {}),
    internetAccessEnabled: network.internet_access_enabled !== false,
    mdnsForwardingEnabled: network.mdns_enabled === true,
    ...(ipv4 ? { ipv4Configuration: ipv4 } : {}),
  };
}

/**
 * A network as the official list shows it (`Network overview`, 10.1.85): identity, VLAN, state and
 * the zone of a gateway network; its address plan, DHCP and isolation are only in the details.
 */
export function integrationNetworkOverview(network: StoredNetwork, site?: SiteState) {
  const details = integrationNetwork(network, site);
  const { management, id, name, enabled, vlanId, metadata } = details;
  const zoneId = 'zoneId' in details ? details.zoneId : undefined;
  return {
    management,
    id,
    name,
    enabled,
    vlanId,
    metadata,
    default: details.default,
    ...(zoneId ? { zoneId } : {}),
  };
}

// The request body (`Create or update Network`, 10.1.85), as far as the simulator stores it.
// Loose on the parts it does not model (IPv6, NAT, PXE…), which are accepted and not stored.
const dhcpServer = z.looseObject({
  mode: z.literal('SERVER'),
  ipAddressRange: z.object({ start: z.string(), stop: z.string() }),
  leaseTimeSeconds: z.number().int().min(0).max(31_536_000),
  pingConflictDetectionEnabled: z.boolean(),
  dnsServerIpAddressesOverride: z.array(z.string()).min(1).max(4).optional(),
  domainName: z.string().optional(),
  gatewayIpAddressOverride: z.string().optional(),
});
const networkBody = z.looseObject({
  management: z.enum(['UNMANAGED', 'GATEWAY', 'SWITCH']),
  name: z.string().min(1),
  enabled: z.boolean(),
  vlanId: z.number().int().min(1).max(4009),
  isolationEnabled: z.boolean().optional(),
  internetAccessEnabled: z.boolean().optional(),
  mdnsForwardingEnabled: z.boolean().optional(),
  cellularBackupEnabled: z.boolean().optional(),
  ipv4Configuration: z
    .looseObject({
      autoScaleEnabled: z.boolean(),
      hostIpAddress: z.string(),
      prefixLength: z.number().int().min(8).max(30),
      dhcpConfiguration: z.union([dhcpServer, z.looseObject({ mode: z.literal('RELAY') })]).optional(),
    })
    .optional(),
});

// A gateway network's address plan and DHCP service (a vlan-only network has none, as classic drops them).
const ADDRESS_PLAN = /^(ip_subnet|domain_name|dhcpd_(?!enabled$).*)$/;

// How the details read a flag the stored record lacks: a write that restates it adds nothing.
const FLAGS_WHEN_ABSENT: Record<string, boolean> = {
  internet_access_enabled: true,
  mdns_enabled: false,
  lte_lan_enabled: false,
  auto_scale_enabled: false,
  dhcp_conflict_checking: false,
};

/**
 * The stored record after an official full replacement: what the body says, in classic fields,
 * over the stored record. What the official model does not carry (classic-only keys, a disabled
 * DHCP server's range) stays, and so does a flag left unstored while it reads as its default;
 * what the body leaves out but the model covers is cleared the way the console's own UI clears it
 * (`""`, `false`); a value equal to the stored one keeps its stored form (a lease time stored as
 * "3600" stays a string).
 */
function replaced(existing: NetworkConf, fields: Record<string, unknown>): NetworkConf {
  const next: Record<string, unknown> = { ...existing };
  if (fields.purpose === 'vlan-only') {
    for (const key of Object.keys(next)) if (ADDRESS_PLAN.test(key)) delete next[key];
    if (existing.dhcpd_enabled === true) next.dhcpd_enabled = false;
    if (existing.vlan_enabled !== true) next.vlan_enabled = true;
  } else if (fields.dhcpd_enabled === true) {
    for (const key of [
      'dhcpd_dns_1',
      'dhcpd_dns_2',
      'dhcpd_dns_3',
      'dhcpd_dns_4',
      'domain_name',
      'dhcpd_gateway',
    ]) {
      if (!(key in fields) && text(existing[key])) next[key] = '';
    }
  }
  for (const [key, value] of Object.entries(fields)) {
    const stored = existing[key];
    if (stored !== undefined && stored !== null && String(stored) === String(value)) continue;
    if (stored === undefined && FLAGS_WHEN_ABSENT[key] === value) continue;
    next[key] = value;
  }
  return next as NetworkConf;
}

function classicFieldsOf(body: z.output<typeof networkBody>): Record<string, unknown> {
  if (body.management === 'SWITCH') throw badRequest('Switch-managed networks are not simulated');
  const fields: Record<string, unknown> = {
    name: body.name,
    enabled: body.enabled,
    purpose: body.management === 'UNMANAGED' ? 'vlan-only' : body.isolationEnabled ? 'guest' : 'corporate',
    vlan_enabled: body.vlanId !== 1,
    ...(body.vlanId !== 1 ? { vlan: body.vlanId } : {}),
  };
  if (body.management === 'UNMANAGED') return fields;
  // The flags the details show, stored under the networkconf names they are read from.
  for (const [official, classic] of [
    ['internetAccessEnabled', 'internet_access_enabled'],
    ['mdnsForwardingEnabled', 'mdns_enabled'],
    ['cellularBackupEnabled', 'lte_lan_enabled'],
  ] as const) {
    if (body[official] !== undefined) fields[classic] = body[official];
  }
  const ipv4 = body.ipv4Configuration;
  if (!ipv4) throw badRequest('ipv4Configuration is required for a gateway-managed network');
  fields.ip_subnet = `${ipv4.hostIpAddress}/${ipv4.prefixLength}`;
  fields.auto_scale_enabled = ipv4.autoScaleEnabled;
  const dhcp = ipv4.dhcpConfiguration;
  fields.dhcpd_enabled = dhcp?.mode === 'SERVER';
  if (dhcp?.mode === 'SERVER') {
    const server = dhcp as z.output<typeof dhcpServer>;
    Object.assign(fields, {
      dhcpd_start: server.ipAddressRange.start,
      dhcpd_stop: server.ipAddressRange.stop,
      dhcpd_leasetime: server.leaseTimeSeconds,
      dhcp_conflict_checking: server.pingConflictDetectionEnabled,
    });
    const dns = server.dnsServerIpAddressesOverride ?? [];
    fields.dhcpd_dns_enabled = dns.length > 0;
    dns.forEach((value, i) => {
      fields[`dhcpd_dns_${i + 1}`] = value;
    });
    if (server.domainName) fields.domain_name = server.domainName;
    fields.dhcpd_gateway_enabled = server.gatewayIpAddressOverride !== undefined;
    if (server.gatewayIpAddressOverride) fields.dhcpd_gateway = server.gatewayIpAddressOverride;
  }
  return fields;
}

/** Classic validation errors (`api.err.VlanUsed`…) answered in the Integration error schema. */
function validated(candidate: NetworkConf, others: readonly NetworkConf[]): NetworkConf {
  try {
    validateNetworkConf(candidate, others);
  } catch (error) {
    if (error instanceof SimError) throw badRequest(error.message, error.code);
    throw error;
  }
  return candidate;
}

/** Network references (`referenceResources`): the clients and SSIDs on a network. */
function referencesOf(site: SiteState, network: StoredNetwork) {
  const clients = site.clients.filter((client) => client.network_id === network._id);
  const wlans = site.wlans.filter((wlan) => wlan.networkconf_id === network._id);
  const resources = [];
  if (clients.length > 0) {
    resources.push({
      resourceType: 'CLIENT',
      referenceCount: clients.length,
      references: clients.map((client) => ({ referenceId: integrationIdOf(client.mac) })),
    });
  }
  if (wlans.length > 0) {
    resources.push({
      resourceType: 'WIFI',
      referenceCount: wlans.length,
      references: wlans.map((wlan) => ({ referenceId: integrationWifiId(wlan) })),
    });
  }
  return { referenceResources: resources };
}

/** Registers the `networks` routes. */
export function registerIntegrationNetworks(router: Router<Handler>): void {
  const base = '/integration/v1/sites/:siteId/networks';
  const find = (site: SiteState, id: string): StoredNetwork => {
    const network = integrationNetworks(site).find((candidate) => candidate.external_id === id);
    if (!network) throw notFound('Network', id);
    return network;
  };
  router
    .on(
      'GET',
      base,
      uuidSite((ctx, site) =>
        listPage(
          ctx,
          integrationNetworks(site).map((n) => integrationNetworkOverview(n, site)),
        ),
      ),
    )
    .on(
      'GET',
      `${base}/:id`,
      uuidSite((ctx, site) => json(integrationNetwork(find(site, param(ctx, 'id')), site))),
    )
    .on(
      'GET',
      `${base}/:id/references`,
      uuidSite((ctx, site) => json(referencesOf(site, find(site, param(ctx, 'id'))))),
    )
    .on(
      'POST',
      base,
      uuidSite((ctx, site) => {
        const fields = classicFieldsOf(parseBody(networkBody, ctx));
        const network = validated(
          {
            networkgroup: 'LAN',
            ...fields,
            name: String(fields.name),
            purpose: String(fields.purpose),
            _id: ctx.state.newObjectId(),
            site_id: site._id,
            external_id: ctx.state.newUuid(),
          },
          site.networks,
        ) as StoredNetwork;
        assignDefaultZone(site, network);
        site.networks.push(network);
        return json(integrationNetwork(network, site), 201);
      }),
    )
    .on(
      'PUT',
      `${base}/:id`,
      uuidSite((ctx, site) => {
        const existing = find(site, param(ctx, 'id'));
        const fields = classicFieldsOf(parseBody(networkBody, ctx));
        const replacement = validated(
          replaced(existing, fields),
          site.networks.filter((network) => network !== existing),
        ) as StoredNetwork;
        site.networks.splice(site.networks.indexOf(existing), 1, replacement);
        return json(integrationNetwork(replacement, site));
      }),
    )
    .on(
      'DELETE',
      `${base}/:id`,
      uuidSite((ctx, site) => {
        const existing = find(site, param(ctx, 'id'));
        if (existing.attr_no_delete === true) {
          throw new SimError(400, 'api.network.system-defined', `${existing.name} cannot be deleted`);
        }
        removeNetworkFromZones(site, existing.external_id);
        // Policies keep naming it: their official view must still show the UUID it had.
        retireNetwork(site, existing);
        site.networks.splice(site.networks.indexOf(existing), 1);
        return { status: 200 };
      }),
    );
}
