/**
 * The change specs of the network tools: a network is read through get_network_details (every
 * stored field, secrets masked); an update is undone field by field, a create by deleting it, a
 * delete by re-creating it from everything it stored.
 */

import { isRecord } from '../../lib/is-record.js';
import type { ChangeSpec, ImageRead, InverseInput, InversePlan } from '../core/change-spec.js';
import { field, type Json, same, siteOf, str, updatedFields } from '../core/spec-helpers.js';
import { readStoredNetwork } from './network-source.js';

// Networks: the image is get_network_details (every stored field, secrets masked).
const networkRead = (args: Json, id: string): ImageRead => ({
  kind: 'network',
  ref: id,
  tool: 'get_network_details',
  args: { ...siteOf(args), network_id: id },
});

/** update_network's argument for each stored networkconf field it can set. */
const NETWORK_ARGS: Record<string, string> = {
  name: 'name',
  purpose: 'purpose',
  vlan: 'vlan_id',
  ip_subnet: 'subnet',
  dhcpd_enabled: 'dhcp_enabled',
  dhcpd_start: 'dhcp_start',
  dhcpd_stop: 'dhcp_stop',
  dhcpd_dns_1: 'dhcp_dns_1',
  dhcpd_dns_2: 'dhcp_dns_2',
  dhcpd_dns_3: 'dhcp_dns_3',
  dhcpd_dns_4: 'dhcp_dns_4',
  domain_name: 'domain_name',
};
// Set by the tool from the fields above (a tag, DNS servers given), or by the controller.
const NETWORK_DERIVED = new Set(['vlan_enabled', 'vlan_id', 'dhcpd_dns_enabled', 'id']);
// Arguments that clear a field with an empty string.
const CLEARABLE = new Set(['dhcp_dns_1', 'dhcp_dns_2', 'dhcp_dns_3', 'dhcp_dns_4', 'domain_name']);

/** The value an argument takes to put a stored field back. */
function argValue(arg: string, stored: unknown): unknown {
  if ((stored === undefined || stored === null || stored === '') && CLEARABLE.has(arg)) return '';
  return stored;
}

function networkUpdateInverse(input: InverseInput): InversePlan | { reason: string } {
  const { before, after, args } = input;
  if (!before)
    return { reason: 'the network could not be read before the change, so what to put back is unknown' };
  const id = str(before.id) ?? str(args.network_id) ?? '';
  const changed = after
    ? [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => !same(before[k], after[k]))
    : Object.entries(NETWORK_ARGS)
        .filter(([, arg]) => arg in args)
        .map(([stored]) => stored);
  const back: Json = {};
  const notes: string[] = [];
  const unmapped: string[] = [];
  for (const key of changed) {
    const arg = NETWORK_ARGS[key];
    if (arg) back[arg] = argValue(arg, before[key]);
    else if (!NETWORK_DERIVED.has(key)) unmapped.push(key);
  }
  // vlan-only networks have no address plan to put back field by field.
  if (back.purpose !== undefined && before.purpose === 'vlan-only') {
    for (const key of [
      'subnet',
      'dhcp_enabled',
      'dhcp_start',
      'dhcp_stop',
      'domain_name',
      'dhcp_dns_1',
      'dhcp_dns_2',
      'dhcp_dns_3',
      'dhcp_dns_4',
    ])
      delete back[key];
  }
  if (back.vlan_id === null || back.vlan_id === undefined) delete back.vlan_id;
  if (unmapped.length > 0)
    notes.push(`not put back (update_network does not set them): ${unmapped.join(', ')}`);
  if (Object.keys(back).length === 0) return { reason: 'the change left no field of the network different' };
  return { tool: 'update_network', args: { ...siteOf(args), network_id: id, ...back }, notes };
}

function networkCreateArgs(before: Json, args: Json): Json {
  const create: Json = { ...siteOf(args), name: before.name, purpose: before.purpose ?? 'corporate' };
  const vlan = before.vlan ?? before.vlan_id;
  if (typeof vlan === 'number') create.vlan_id = vlan;
  if (before.purpose !== 'vlan-only') {
    if (typeof before.ip_subnet === 'string') create.subnet = before.ip_subnet;
    create.dhcp_enabled = before.dhcpd_enabled === true;
    if (before.dhcpd_enabled === true) {
      if (typeof before.dhcpd_start === 'string') create.dhcp_start = before.dhcpd_start;
      if (typeof before.dhcpd_stop === 'string') create.dhcp_stop = before.dhcpd_stop;
    }
    for (const n of [1, 2, 3, 4]) {
      const dns = before[`dhcpd_dns_${n}`];
      if (before.dhcpd_dns_enabled === true && typeof dns === 'string' && dns !== '')
        create[`dhcp_dns_${n}`] = dns;
    }
    if (typeof before.domain_name === 'string' && before.domain_name !== '')
      create.domain_name = before.domain_name;
  }
  const restore = storedSettingsOf(before);
  if (Object.keys(restore).length > 0) create.restore = restore;
  return create;
}

/** What get_network_details shows beside the record (its own names for stored fields). */
const NETWORK_VIEW_FIELDS = new Set(['id', 'name', 'purpose', 'vlan_id', 'ip_subnet', 'dhcpd_enabled']);
/** Fields the controller owns: never sent back (an official record's `metadata` too). */
const CONTROLLER_FIELDS = /^(_id|id|site_id|external_id|metadata|attr_.*)$/;

/**
 * Every other stored setting of a deleted network, as it was, for create_network's `restore`: a
 * re-created network gets what it had, not the tool's defaults. Masked secrets and nested objects
 * are left out; the revert's notes name them.
 */
function storedSettingsOf(before: Json): Json {
  const restore: Json = {};
  for (const [key, value] of Object.entries(before)) {
    if (NETWORK_VIEW_FIELDS.has(key) || CONTROLLER_FIELDS.test(key) || value === '[redacted]') continue;
    const plain =
      value === null ||
      ['string', 'number', 'boolean'].includes(typeof value) ||
      (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number'));
    if (plain) restore[key] = value;
  }
  return restore;
}

export const networkChanges: Record<string, ChangeSpec> = {
  create_network: {
    kind: 'create',
    // create_network refuses a name another network has, so one found by it is the one created.
    createdByName: {
      read: (args) => (typeof args.name === 'string' ? networkRead(args, args.name) : undefined),
      result: (object) => ({ network: object }),
    },
    afterRead: (args, result) => {
      const id = str(field(result, 'network', 'id')) ?? str(field(result, 'network', '_id'));
      return id ? networkRead(args, id) : undefined;
    },
    expected: (_args, preview) => {
      const payload = field(preview, 'would_create');
      return isRecord(payload) ? { kind: 'fields', fields: payload } : undefined;
    },
    inverse: ({ args, result }) => {
      const id = str(field(result, 'network', 'id')) ?? str(field(result, 'network', '_id'));
      if (!id) return { reason: 'the result does not name the network created' };
      return { tool: 'delete_network', args: { ...siteOf(args), network_id: id }, notes: [] };
    },
  },
  update_network: {
    kind: 'update',
    beforeRead: (args) => networkRead(args, String(args.network_id)),
    afterRead: (args, _result, before) => networkRead(args, str(before?.id) ?? String(args.network_id)),
    expected: updatedFields,
    inverse: networkUpdateInverse,
  },
  delete_network: {
    kind: 'delete',
    // Everything the network stores, which the official details of a 10.1 console do not hold
    // (readStoredNetwork): what a revert re-creates it from.
    beforeRead: (args) => ({
      ...networkRead(args, String(args.network_id)),
      tool: 'rest/networkconf',
      direct: ({ gateway }) =>
        readStoredNetwork(
          gateway,
          typeof args.site_id === 'string' ? args.site_id : 'default',
          String(args.network_id),
        ),
    }),
    afterRead: (args, result, before) =>
      networkRead(
        args,
        str(field(result, 'deleted_network_id')) ?? str(before?.id) ?? String(args.network_id),
      ),
    expected: () => ({ kind: 'gone' }),
    inverse: ({ before, args, preview }) => {
      if (!before)
        return { reason: 'the network could not be read before it was deleted, so it cannot be re-created' };
      const notes = ['re-created with a new id: objects that referred to the old id are not rewired'];
      const references = field(preview, 'references');
      if (Array.isArray(references)) {
        for (const ref of references) {
          if (isRecord(ref))
            notes.push(
              `referred to the old network: ${String(ref.kind ?? 'object')} "${String(ref.name ?? ref.id ?? '?')}"`,
            );
        }
      }
      const masked = Object.entries(before)
        .filter(([, v]) => v === '[redacted]')
        .map(([k]) => k);
      if (masked.length > 0)
        notes.push(`secrets are never kept, so these are not re-created: ${masked.join(', ')}`);
      const create = networkCreateArgs(before, args);
      const restored = isRecord(create.restore) ? create.restore : {};
      const nested = Object.keys(before).filter(
        (k) =>
          !(k in restored) &&
          !NETWORK_VIEW_FIELDS.has(k) &&
          !CONTROLLER_FIELDS.test(k) &&
          !masked.includes(k),
      );
      if (nested.length > 0)
        notes.push(`nested settings are not re-created (restore takes plain values): ${nested.join(', ')}`);
      return { tool: 'create_network', args: create, notes };
    },
  },
};
