import { z } from 'zod';
import { type FieldIssue, NotSupportedError, ValidationError } from '../../errors.js';
import type { Gateway } from '../../gateway/types.js';
import { defaultDhcpRange, parseCidr, parseIpv4 } from '../../lib/ip.js';
import { type ClientRecord, clientRecordSchema } from '../../records/client-record.js';
import { type NetworkRecord, networkRecordSchema } from '../../records/network-record.js';
import {
  cidr,
  confirm,
  dryRun,
  idOrName,
  ipv4,
  limit,
  offset,
  refusingValues,
  siteId,
  text,
  vlanId,
} from '../core/arg-types.js';
import {
  type Changes,
  fieldChanges,
  nothingToChange,
  parseEach,
  replacementBody,
} from '../core/crud-model.js';
import { defineTool } from '../core/define-tool.js';
import { networkChanges } from './changes.js';
import { createNetworkImpact, networkImpact } from './impact.js';
import {
  assertNoClash,
  buildCreatePayload,
  clientsByNetwork,
  DNS_FIELDS,
  dhcpRangeIssues,
  dnsUpdate,
  findNetwork,
  gatewayOf,
  networkStatistics,
  sortNetworks,
  subnetIssues,
  toNetwork,
  toNetworkDetails,
  toSubnetInfo,
  vlanOf,
  vlanWarnings,
  vpnPoolWarnings,
  WAN_REFUSAL,
} from './network-model.js';
import { AFTER_DELETE_TEXT, referencesOfNetwork } from './network-references.js';
import { findInSet, loadNetworks, readVpnPools, usesOfficialNetworks } from './network-source.js';
import { officialBody, parseOfficial } from './official-network-model.js';

const NETWORKS = 'rest/networkconf';
const PURPOSES = ['corporate', 'guest', 'vlan-only', 'wan'] as const;

const networkRef = idOrName('network');
// `wan` stays in the enum (the spec names it) so that it is refused with the reason, not as unknown.
const purpose = refusingValues(z.enum(PURPOSES, { error: `must be one of ${PURPOSES.join(', ')}` }), {
  wan: { rule: WAN_REFUSAL, note: 'refused: a WAN is added in the controller’s UI, under Internet' },
});

async function readNetworks(gateway: Gateway, site: string, fresh = false): Promise<NetworkRecord[]> {
  return (await loadNetworks(gateway, site, { fresh })).records;
}

/** One network by id or name, from the API the console serves networks through. */
async function readNetwork(gateway: Gateway, site: string, ref: string): Promise<NetworkRecord> {
  return findInSet(gateway, site, await loadNetworks(gateway, site, { ref }), ref);
}

/** Stored records as the controller sent them, for a PUT that must carry unchanged fields unchanged. */
const storedRecordSchema = z.looseObject({ _id: z.string() });

async function readClients(gateway: Gateway, site: string, fresh = false): Promise<ClientRecord[]> {
  return (await gateway.classicRead(site, 'stat/sta', clientRecordSchema, { fresh })).items;
}

/** Optional settings shared by create_network and update_network, with the spec's names. */
const domainName = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/, {
    error: 'must be a domain name such as lan.example.com',
  })
  .max(253);

const settingsShape = {
  purpose: purpose
    .optional()
    .describe(
      'What the network is for: corporate (a LAN), guest (isolated) or vlan-only (a tag, no subnet or DHCP)',
    ),
  dhcp_enabled: z
    .boolean({ error: 'must be true or false' })
    .optional()
    .describe('Whether the gateway hands out addresses on the network'),
  dhcp_start: ipv4.optional().describe('First address of the lease range'),
  dhcp_stop: ipv4.optional().describe('Last address of the lease range'),
  dhcp_dns_1: ipv4.optional().describe('Primary DNS server for clients'),
  dhcp_dns_2: ipv4.optional().describe('Second DNS server for clients'),
  dhcp_dns_3: ipv4.optional().describe('Third DNS server for clients'),
  dhcp_dns_4: ipv4.optional().describe('Fourth DNS server for clients'),
  domain_name: domainName.optional().describe('Domain name clients get by DHCP, e.g. lan.example.com'),
};

/** Whether `key` is a field anywhere in `value` (an official body nests what classic keeps flat). */
function hasKey(value: unknown, key: string): boolean {
  if (Array.isArray(value)) return value.some((v) => hasKey(v, key));
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([k, v]) => k === key || hasKey(v, key));
}

// Fields the controller computes or owns; the UI never sends them back on a PUT.
const READ_ONLY_FIELDS = /^(_id|id|site_id|external_id|attr_.*)$/;

/**
 * Stored settings of a deleted network, set again as they were (what a revert of delete_network
 * sends): plain values only, never a field the controller owns nor a masked secret.
 */
const storedSettings = z
  .record(
    z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/, { error: 'must be a stored field name' }),
    z.union([
      z.string().max(1000),
      z.number(),
      z.boolean(),
      z.null(),
      z.array(z.union([z.string().max(1000), z.number()])).max(100),
    ]),
    { error: 'must be stored field names and their values' },
  )
  .superRefine((fields, ctx) => {
    for (const [key, value] of Object.entries(fields)) {
      if (READ_ONLY_FIELDS.test(key))
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: 'is the controller’s own field; it is not sent',
        });
      if (value === '[redacted]')
        ctx.addIssue({ code: 'custom', path: [key], message: 'is a masked secret; it cannot be restored' });
    }
  })
  .optional()
  .describe('Stored settings of a deleted network to set again as they were (a revert sends them)');

/** An update value that may also be empty, which clears the stored setting. */
function orEmpty(schema: z.ZodType<string>, rule: string) {
  return z
    .string({ error: rule })
    .trim()
    .refine((v) => v === '' || schema.safeParse(v).success, { error: rule })
    .optional();
}

const dnsOrEmpty = orEmpty(ipv4, 'must be an IPv4 address such as 10.0.0.1, or empty to clear it');

// Deliberately alike: the tools below are defineTool declarations, whose shape the framework fixes; each differs in args and run.
const listVlans = defineTool({
  name: 'list_vlans',
  description: 'List every network of the site with its VLAN, subnet and DHCP state',
  access: 'read',
  example: 'limit=3',
  args: z.object({ site_id: siteId, limit: limit(100), offset }),
  async run({ site_id, limit, offset }, { gateway }) {
    const networks = sortNetworks((await readNetworks(gateway, site_id)).map(toNetwork));
    return networks.slice(offset, offset + limit);
  },
});

// Deliberately alike: one-object get tools: defineTool fixes the declaration's shape; the read and the view are each tool's own.
const getNetworkDetails = defineTool({
  name: 'get_network_details',
  description: 'One network with all its stored settings (secrets masked)',
  access: 'read',
  example: 'network_id=IoT',
  args: z.object({ site_id: siteId, network_id: networkRef }),
  async run({ site_id, network_id }, { gateway }) {
    return toNetworkDetails(await readNetwork(gateway, site_id, network_id));
  },
});

const getSubnetInfo = defineTool({
  name: 'get_subnet_info',
  description: "A network's address plan: subnet, gateway, DHCP range, lease time, DNS",
  access: 'read',
  example: 'network_id=Guest',
  args: z.object({ site_id: siteId, network_id: networkRef }),
  async run({ site_id, network_id }, { gateway }) {
    return toSubnetInfo(await readNetwork(gateway, site_id, network_id));
  },
});

const getNetworkStatistics = defineTool({
  name: 'get_network_statistics',
  description: 'Active clients and bytes per network',
  access: 'read',
  example: '',
  args: z.object({ site_id: siteId }),
  async run({ site_id }, { gateway }) {
    const [set, clients] = await Promise.all([loadNetworks(gateway, site_id), readClients(gateway, site_id)]);
    const rows = networkStatistics(set.records, clients, set.official);
    const counted = rows.reduce((sum, r) => sum + r.client_count, 0);
    return {
      site_id,
      networks: rows,
      // Counters are the controller's per-client totals since each client connected.
      unassigned_clients: clients.length - counted,
    };
  },
});

const createNetwork = defineTool({
  name: 'create_network',
  change: networkChanges.create_network,
  impact: createNetworkImpact,
  description: 'Create a VLAN network (subnet, DHCP, DNS)',
  access: 'write',
  example: 'name=Lab vlan_id=40 subnet=10.70.0.0/24',
  args: z.object({
    site_id: siteId,
    name: text(128).describe('Network name'),
    vlan_id: vlanId.describe('VLAN tag, 1–4094'),
    subnet: cidr.optional().describe('Subnet, e.g. 10.30.0.0/24 (not for vlan-only)'),
    ...settingsShape,
    purpose: purpose
      .default('corporate')
      .describe(
        'What the network is for: corporate (a LAN), guest (isolated) or vlan-only (a tag, no subnet or DHCP)',
      ),
    dhcp_enabled: z
      .boolean({ error: 'must be true or false' })
      .default(true)
      .describe('Whether the gateway hands out addresses on the network'),
    restore: storedSettings,
    confirm,
    dry_run: dryRun,
  }),
  async run(args, { gateway }) {
    const restore = args.restore ?? {};
    const fromArgs = buildCreatePayload(args);
    const set = await loadNetworks(gateway, args.site_id, { fresh: true });
    // A revert re-creates a deleted network with every stored setting it had, not this tool's
    // defaults (a lease time, flags left off). Those are networkconf's fields (the record read
    // before the delete), and the official model has no place for many of them (IGMP snooping,
    // NTP, WPAD, DHCP guarding…): on any console they go back through networkconf, which 10.1
    // consoles still serve and their own UI writes. Only a restore taken from the official details
    // (`management`: an image that networkconf could not give) goes through the official API,
    // which names what it cannot place.
    const official = set.official && (Object.keys(restore).length === 0 || 'management' in restore);
    const payload = official ? fromArgs : { ...fromArgs, ...restore };
    const networks = set.records;
    const cidrOf = typeof payload.ip_subnet === 'string' ? parseCidr(payload.ip_subnet) : undefined;
    assertNoClash(networks, { name: args.name, vlan: args.vlan_id, cidr: cidrOf });
    const vpn = await readVpnPools(gateway, args.site_id);
    const warnings = [
      ...vlanWarnings(args.vlan_id),
      ...vpnPoolWarnings(vpn.pools, cidrOf, (pool) => vpn.clientsIn(pool).length),
    ];
    if (args.purpose === 'vlan-only' && (args.subnet || args.dhcp_start || args.dhcp_stop)) {
      warnings.push('vlan-only networks have no subnet or DHCP on the gateway; those arguments are ignored');
    }
    // On a console whose official API serves networks, the body is the official one (shown as sent).
    // There the settings the official model has (its flags) come from the record being restored.
    const restoring = Object.keys(restore).length > 0;
    const body = official ? officialBody(restoring ? restore : undefined, payload) : payload;
    const lost = official
      ? Object.keys(restore).filter((key) => !(key in fromArgs) && !hasKey(body, key))
      : [];
    if (lost.length > 0)
      warnings.push(
        `not restored: ${lost.join(', ')} (this console takes networks through its official API, which has no place for them)`,
      );
    if (args.dry_run) {
      return {
        dry_run: true,
        would_create: payload,
        ...(official ? { would_send: body } : {}),
        warnings,
      };
    }
    if (official) {
      const created = await gateway.integrationWrite(args.site_id, 'POST', 'networks', body);
      const record = parseOfficial(created);
      return { success: true, network: record ? toNetwork(record) : created, warnings };
    }
    const [created] = await gateway.classicWrite(args.site_id, 'POST', NETWORKS, payload);
    const record = networkRecordSchema.safeParse(created);
    if (!record.success) return { success: true, network: created, warnings };
    // Where the official API serves networks, a network is named by its official id.
    const id = set.official ? (record.data.external_id ?? record.data._id) : record.data._id;
    return { success: true, network: toNetwork({ ...record.data, _id: id }), warnings };
  },
});

// The address plan and DHCP service of a gateway network; a vlan-only network has neither.
// `dhcpd_enabled` is sent as false instead (a PUT merges keys, so leaving it out would keep DHCP on).
const ADDRESS_PLAN_FIELD = /^(ip_subnet|domain_name|dhcpd_(?!enabled$).*)$/;

const VLAN_ONLY_RULE = 'a vlan-only network has no subnet or DHCP range';
const NO_DHCP_RULE = 'a vlan-only network has no DHCP server to hand it out';

/** What an update does: the fields it sets, the stored fields it leaves out, and what to tell the approver. */
interface UpdatePlan {
  set: Record<string, unknown>;
  drop: string[];
  warnings: string[];
}

/** Refuses DHCP settings on a network that will have no subnet (vlan-only). */
function vlanOnlyIssues(args: z.output<typeof updateArgs>): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const field of ['subnet', 'dhcp_start', 'dhcp_stop'] as const) {
    if (args[field]) issues.push({ field, rule: VLAN_ONLY_RULE });
  }
  if (args.dhcp_enabled === true) {
    issues.push({
      field: 'dhcp_enabled',
      rule: 'a vlan-only network has no subnet, so it cannot serve DHCP',
    });
  }
  for (const field of [...DNS_FIELDS, 'domain_name'] as const) {
    if (args[field]) issues.push({ field, rule: NO_DHCP_RULE });
  }
  return issues;
}

/** The new values of the fields an update touches, in networkconf terms. */
function planUpdate(current: NetworkRecord, args: z.output<typeof updateArgs>): UpdatePlan {
  const set: Record<string, unknown> = {};
  const plan: UpdatePlan = { set, drop: [], warnings: [] };
  if (args.name !== undefined) set.name = args.name;
  if (args.purpose !== undefined) set.purpose = args.purpose;
  if (args.vlan_id !== undefined) Object.assign(set, { vlan_enabled: true, vlan: args.vlan_id });
  if (args.dhcp_enabled !== undefined) set.dhcpd_enabled = args.dhcp_enabled;

  const purposeNow = args.purpose ?? current.purpose;
  if (purposeNow === 'vlan-only') {
    const issues = vlanOnlyIssues(args);
    if (issues.length > 0) throw new ValidationError(issues);
    if (current.purpose !== 'vlan-only') {
      plan.drop = Object.keys(current).filter(
        (key) => ADDRESS_PLAN_FIELD.test(key) && current[key] !== undefined,
      );
      if (current.dhcpd_enabled === true) set.dhcpd_enabled = false;
      if (plan.drop.length > 0 || current.dhcpd_enabled === true) {
        plan.warnings.push(
          `switching to vlan-only drops the address plan of ${current.name} (a vlan-only network has no ` +
            `subnet or DHCP on the gateway): ${plan.drop.join(', ')} are no longer sent, and DHCP is turned off`,
        );
      }
    }
    return plan;
  }
  Object.assign(set, dnsUpdate(current, args));
  if (args.domain_name !== undefined && (args.domain_name !== '' || current.domain_name)) {
    set.domain_name = args.domain_name;
  }

  const subnetText = args.subnet ?? current.ip_subnet;
  if (!subnetText) {
    const issues: FieldIssue[] = [];
    if (args.purpose !== undefined) {
      issues.push({ field: 'subnet', rule: 'is required unless purpose is vlan-only' });
    }
    if (args.dhcp_enabled === true) {
      issues.push({
        field: 'dhcp_enabled',
        rule: `${current.name} has no subnet to serve DHCP in; give subnet`,
      });
    }
    for (const field of ['dhcp_start', 'dhcp_stop'] as const) {
      if (args[field]) issues.push({ field, rule: `${current.name} has no subnet; give subnet` });
    }
    if (issues.length > 0) throw new ValidationError(issues);
    return plan;
  }
  const cidrNow = parseCidr(subnetText);
  if (!cidrNow)
    throw new ValidationError([{ field: 'subnet', rule: `stored subnet ${subnetText} is not a CIDR` }]);
  const issues = subnetIssues(cidrNow);
  if (issues.length > 0) throw new ValidationError(issues);
  const gateway = gatewayOf(cidrNow);
  const subnetChanged = args.subnet !== undefined;
  if (subnetChanged) set.ip_subnet = gateway.text;
  const dhcpOn = args.dhcp_enabled ?? current.dhcpd_enabled === true;
  if (dhcpOn && (subnetChanged || args.dhcp_start || args.dhcp_stop || args.dhcp_enabled)) {
    let start = args.dhcp_start ?? current.dhcpd_start;
    let stop = args.dhcp_stop ?? current.dhcpd_stop;
    const fits = (ip: string | undefined) => {
      const n = ip ? parseIpv4(ip) : undefined;
      return n !== undefined && n > cidrNow.network && n < cidrNow.broadcast;
    };
    // A moved subnet takes the default range unless the caller gave one.
    if (!args.dhcp_start && !fits(start)) start = defaultDhcpRange(cidrNow, gateway.address).start;
    if (!args.dhcp_stop && !fits(stop)) stop = defaultDhcpRange(cidrNow, gateway.address).stop;
    const rangeIssues = dhcpRangeIssues(cidrNow, gateway.address, start ?? '', stop ?? '');
    if (rangeIssues.length > 0) throw new ValidationError(rangeIssues);
    if (start !== current.dhcpd_start) set.dhcpd_start = start;
    if (stop !== current.dhcpd_stop) set.dhcpd_stop = stop;
  }
  return plan;
}

const dnsOrEmptyFields = {
  dhcp_dns_1: dnsOrEmpty.describe('Primary DNS server for clients; empty clears it'),
  dhcp_dns_2: dnsOrEmpty.describe('Second DNS server for clients; empty clears it'),
  dhcp_dns_3: dnsOrEmpty.describe('Third DNS server for clients; empty clears it'),
  dhcp_dns_4: dnsOrEmpty.describe('Fourth DNS server for clients; empty clears it'),
};

const updateArgs = z.object({
  site_id: siteId,
  network_id: networkRef,
  name: text(128).optional().describe('New network name'),
  vlan_id: vlanId.optional().describe('New VLAN tag, 1–4094 (its clients reconnect)'),
  subnet: cidr.optional().describe('New subnet, e.g. 10.30.0.0/24 (the lease range follows it)'),
  ...settingsShape,
  ...dnsOrEmptyFields,
  domain_name: orEmpty(
    domainName,
    'must be a domain name such as lan.example.com, or empty to clear it',
  ).describe('Domain name clients get by DHCP; empty clears it'),
  confirm,
  dry_run: dryRun,
});

function changeWarnings(current: NetworkRecord, changes: Changes, clients: number) {
  const warnings: string[] = [];
  if ('vlan' in changes) {
    warnings.push(
      clients > 0
        ? `re-tags all traffic on ${current.name}; ${clients} active ${clients === 1 ? 'client' : 'clients'} will reconnect`
        : `re-tags all traffic on ${current.name} (no client is on it now)`,
    );
    warnings.push(...vlanWarnings(changes.vlan?.to as number));
  }
  if ('ip_subnet' in changes)
    warnings.push(`clients of ${current.name} lose their addresses until they renew`);
  if (changes.dhcpd_enabled?.to === false) warnings.push('clients will not get new leases from the gateway');
  if (changes.dhcpd_dns_enabled?.to === false)
    warnings.push('no custom DNS server is left: clients get the gateway as their DNS server');
  if ('purpose' in changes)
    warnings.push(`purpose changes from ${current.purpose} to ${String(changes.purpose?.to)}`);
  return warnings;
}

const updateNetwork = defineTool({
  name: 'update_network',
  change: networkChanges.update_network,
  impact: networkImpact,
  description: 'Change some settings of a network; omitted settings stay as they are',
  access: 'write',
  example: 'network_id=Guest dhcp_dns_1=1.1.1.1',
  args: updateArgs,
  async run(args, { gateway }) {
    // One read gives both forms: parsed for the checks, and raw for the PUT body, because the
    // parsed record has normalised types (a "3600" lease time becomes 3600) and an update must
    // not rewrite fields it was not asked to.
    const official = await usesOfficialNetworks(gateway);
    const set = official
      ? await loadNetworks(gateway, args.site_id, { fresh: true, ref: args.network_id })
      : undefined;
    const pairs = set
      ? set.records.map((record) => ({ record, raw: record as Record<string, unknown> }))
      : parseEach(
          (await gateway.classicRead(args.site_id, NETWORKS, storedRecordSchema, { fresh: true })).items,
          networkRecordSchema,
        );
    const networks = pairs.map((p) => p.record);
    const current = set
      ? await findInSet(gateway, args.site_id, set, args.network_id)
      : findNetwork(networks, args.network_id);
    if (current.purpose === 'wan') throw new NotSupportedError('WAN networks are not edited by this tool');
    const plan = planUpdate(current, args);
    const changes = fieldChanges(current, plan.set);
    for (const key of plan.drop) changes[key] = { from: current[key] ?? null, to: null };
    const others = networks.filter((n) => n._id !== current._id);
    const finalSubnet = (plan.set.ip_subnet as string | undefined) ?? current.ip_subnet;
    assertNoClash(others, {
      name: plan.set.name as string | undefined,
      vlan: 'vlan' in changes ? (plan.set.vlan as number) : null,
      cidr: 'ip_subnet' in changes && plan.set.ip_subnet && finalSubnet ? parseCidr(finalSubnet) : undefined,
    });
    const stored = pairs.find((p) => p.record === current)?.raw ?? current;
    const changed = Object.fromEntries(Object.keys(changes).map((key) => [key, plan.set[key]]));
    let body: Record<string, unknown>;
    if (set) {
      // The official PUT replaces the whole network: the current official record with the changes.
      const after: Record<string, unknown> = { ...current, ...changed };
      for (const key of plan.drop) delete after[key];
      body = officialBody(set.stored.get(current._id), after);
    } else {
      body = replacementBody(stored, READ_ONLY_FIELDS, changed);
      for (const key of plan.drop) delete body[key];
    }
    const clients =
      clientsByNetwork([current], await readClients(gateway, args.site_id), official).get(current._id) ?? [];
    const warnings = [...plan.warnings, ...changeWarnings(current, changes, clients.length)];
    if ('ip_subnet' in changes && finalSubnet) {
      const vpn = await readVpnPools(gateway, args.site_id);
      warnings.push(
        ...vpnPoolWarnings(vpn.pools, parseCidr(finalSubnet), (pool) => vpn.clientsIn(pool).length),
      );
    }
    if (set && changes.dhcpd_enabled?.to === false) {
      // The official model keeps no DHCP settings for a network whose server is off.
      warnings.push(
        'the official API keeps no DHCP settings while DHCP is off: turning it on again later starts from the default lease time (86400 s)',
      );
    }
    const summary = { network_id: current._id, name: current.name, changes, warnings };
    // Nothing would change: there is nothing to send, approve or journal.
    if (args.dry_run && Object.keys(changes).length === 0) {
      return nothingToChange(summary);
    }
    if (args.dry_run) return { dry_run: true, ...summary, would_send: body };
    if (Object.keys(changes).length === 0) return { success: true, ...summary, network: toNetwork(current) };
    if (set) {
      const updated = await gateway.integrationWrite(args.site_id, 'PUT', `networks/${current._id}`, body);
      const record = parseOfficial(updated);
      return { success: true, ...summary, network: record ? toNetwork(record) : updated };
    }
    const [updated] = await gateway.classicWrite(args.site_id, 'PUT', `${NETWORKS}/${current._id}`, body);
    const record = networkRecordSchema.safeParse(updated);
    return { success: true, ...summary, network: record.success ? toNetwork(record.data) : updated };
  },
});

const deleteNetwork = defineTool({
  name: 'delete_network',
  change: networkChanges.delete_network,
  impact: networkImpact,
  description: 'Delete a network (irreversible; its clients lose connectivity)',
  access: 'write',
  example: 'network_id=Servers',
  args: z.object({ site_id: siteId, network_id: networkRef, confirm, dry_run: dryRun }),
  async run({ site_id, network_id, dry_run }, { gateway }) {
    const set = await loadNetworks(gateway, site_id, { fresh: true, ref: network_id });
    const target = await findInSet(gateway, site_id, set, network_id);
    if (target.attr_no_delete === true || target.purpose === 'wan') {
      throw new NotSupportedError(`${target.name} is a system network and cannot be deleted`);
    }
    if (!dry_run) {
      // Without `force`: a console that refuses to delete a referenced network says so, and the
      // admin decides; the bot never forces a delete the preview did not show.
      if (set.official) await gateway.integrationWrite(site_id, 'DELETE', `networks/${target._id}`);
      else await gateway.classicWrite(site_id, 'DELETE', `${NETWORKS}/${target._id}`);
      return { success: true, deleted_network_id: target._id };
    }
    const [clients, found] = await Promise.all([
      readClients(gateway, site_id, true),
      referencesOfNetwork(gateway, site_id, target, set.official),
    ]);
    const members = clientsByNetwork([target], clients, set.official).get(target._id) ?? [];
    const vlan = vlanOf(target);
    const n = members.length;
    const warnings = [
      'deletion is irreversible',
      // Nothing to warn about when nobody is on it: a "0 clients lose connectivity" line is noise.
      ...(n > 0
        ? [
            `${n} active ${n === 1 ? 'client' : 'clients'} on ${target.name}${vlan ? ` (VLAN ${vlan})` : ''} lose connectivity immediately`,
          ]
        : []),
    ];
    const dangling = found.references.filter((r) => r.after_delete === AFTER_DELETE_TEXT.dangles);
    if (dangling.length > 0) {
      warnings.push(
        `${dangling.length} object(s) listed under references still point at ${target.name}; ` +
          'they are not changed and will point at a network that no longer exists',
      );
    }
    for (const r of found.references.filter((ref) => !dangling.includes(ref))) {
      warnings.push(`${target.name} leaves ${r.kind} "${r.name}" (the controller takes it out)`);
    }
    warnings.push(...found.unchecked);
    return { dry_run: true, would_delete: toNetwork(target), references: found.references, warnings };
  },
});

/** Spec 4.1 and 4.2: network queries and network configuration. */
export const networkTools = [
  listVlans,
  getNetworkDetails,
  getSubnetInfo,
  getNetworkStatistics,
  createNetwork,
  updateNetwork,
  deleteNetwork,
];
