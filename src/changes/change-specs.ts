/**
 * For every write tool: how to read the object it changes fresh (through the registry's own read
 * tools), what it sends (to verify the after-image against), and how to undo it (issue 21).
 */

import { z } from 'zod';
import { isRecord } from '../lib/is-record.js';
import type { ToolContext } from '../tools/core/define-tool.js';
import { changesTo, field, type Json, notRevertible, same, siteOf, str } from '../tools/core/spec-helpers.js';
import { readStoredNetwork } from '../tools/networks/network-source.js';
import { readSsid } from '../tools/wifi/wifi-broadcasts.js';
import { FIREWALL_SPECS } from './firewall-specs.js';

/** One object to read: a read tool, its arguments, and which record of its answer is the object. */
export interface ImageRead {
  /** What the object is (`network`, `client`); an image names it `<kind> <its id>`. */
  kind: string;
  /** How the object is asked for (an id, a name, a MAC): its name in an image until it is read. */
  ref: string;
  tool: string;
  args: Json;
  /**
   * Reads the answer itself instead of a read tool (`tool` is then the source named in messages):
   * for state no read tool shows, such as a blocked client that is offline.
   */
  direct?: (context: ToolContext) => Promise<unknown>;
  /** The record in the read tool's answer (a list tool's answer is searched); undefined: it is gone. */
  select?: (answer: unknown) => Json | undefined;
  /** Keep only these fields (live counters and times would make every image differ). */
  pick?: readonly string[];
}

/** What the after-image must hold: fields and values, or `gone` (a delete). */
export type Expected = { kind: 'fields'; fields: Json } | { kind: 'gone' };

/** An inverse: the write that undoes a change, and what the preview should say about it. */
export interface InversePlan {
  tool: string;
  args: Json;
  notes: string[];
}

/** What an inverse is built from. */
export interface InverseInput {
  args: Json;
  preview: unknown;
  result: unknown;
  /** The object before the change (undefined when it could not be read). */
  before: Json | null | undefined;
  /** The object right after the change. */
  after: Json | null | undefined;
}

export interface ChangeSpec {
  kind: 'create' | 'update' | 'delete' | 'action';
  /** The object to read right before the write (none for a create: it does not exist yet). */
  beforeRead?(args: Json): ImageRead;
  /** The object to read right after the write; `before` is the before-image's object. */
  afterRead?(args: Json, result: unknown, before: Json | null | undefined): ImageRead | undefined;
  /** What the controller should hold afterwards. */
  expected?(args: Json, preview: unknown, result: unknown): Expected | undefined;
  /** The write that undoes the change, or why there is none. */
  inverse(input: InverseInput): InversePlan | { reason: string };
  /**
   * A create whose tool refuses a name already taken: where its object is found by the name it
   * was given, and the result that names it. A create cut off by a restart is read back there
   * (found, holding what was sent: applied; absent: not applied) instead of being left unknown.
   */
  createdByName?: { read(args: Json): ImageRead | undefined; result(object: Json): unknown };
}

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

const network: Record<string, ChangeSpec> = {
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
    expected: (_args, preview, result) => {
      const fields = changesTo(result, preview);
      return fields ? { kind: 'fields', fields } : undefined;
    },
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

// Clients: the image is the part of get_client an action changes.
const clientRead = (args: Json, ref?: string): ImageRead => ({
  kind: 'client',
  ref: ref ?? String(args.client),
  tool: 'get_client',
  args: { ...siteOf(args), client: ref ?? args.client },
  pick: ['mac', 'name', 'blocked', 'guest', 'guest_authorization'],
});

const knownClientSchema = z.looseObject({ mac: z.string() });
const macKey = (text: string) => text.toLowerCase().replace(/[^0-9a-f]/g, '');

/**
 * A client as the controller keeps it (`rest/user`: online and away): a blocked client is offline,
 * so no live read shows it, but this record carries `blocked`.
 */
const knownClientRead = (args: Json, ref?: string): ImageRead => {
  const wanted = ref ?? String(args.client);
  return {
    kind: 'client',
    ref: wanted,
    tool: 'rest/user',
    args: {},
    direct: async ({ gateway }) => {
      const site = typeof args.site_id === 'string' ? args.site_id : 'default';
      return (await gateway.classicRead(site, 'rest/user', knownClientSchema, { fresh: true })).items;
    },
    select: (answer) => {
      if (!Array.isArray(answer)) return undefined;
      const records = answer.filter(isRecord);
      const key = macKey(wanted);
      const found =
        (key.length === 12 ? records.find((c) => macKey(String(c.mac)) === key) : undefined) ??
        records.find((c) =>
          [c.name, c.hostname, c.ip].some(
            (v) => typeof v === 'string' && v.toLowerCase() === wanted.toLowerCase(),
          ),
        );
      return found
        ? { mac: found.mac, name: found.name ?? found.hostname ?? null, blocked: found.blocked === true }
        : undefined;
    },
  };
};

function blockToggle(inverseTool: string, blocked: boolean): ChangeSpec {
  return {
    kind: 'action',
    beforeRead: (args) => knownClientRead(args),
    afterRead: (args, _result, before) => knownClientRead(args, str(before?.mac)),
    expected: () => ({ kind: 'fields', fields: { blocked } }),
    inverse: ({ args, before }) => ({
      tool: inverseTool,
      args: { ...siteOf(args), client: str(before?.mac) ?? args.client },
      notes: [],
    }),
  };
}

function clientToggle(
  inverseTool: string,
  expected: Json,
  notes: (args: Json) => string[] = () => [],
): ChangeSpec {
  return {
    kind: 'action',
    beforeRead: (args) => clientRead(args),
    afterRead: (args, _result, before) => clientRead(args, str(before?.mac)),
    expected: () => ({ kind: 'fields', fields: expected }),
    inverse: ({ args, before }) => ({
      tool: inverseTool,
      args: { ...siteOf(args), client: str(before?.mac) ?? args.client },
      notes: notes(args),
    }),
  };
}

const clients: Record<string, ChangeSpec> = {
  block_client: blockToggle('unblock_client', true),
  unblock_client: blockToggle('block_client', false),
  authorize_guest: clientToggle('unauthorize_guest', { guest_authorization: 'authorized' }),
  unauthorize_guest: clientToggle('authorize_guest', { guest_authorization: 'not authorized' }, () => [
    "authorized again with the site's default guest time (the earlier limits are not known)",
  ]),
  reconnect_client: notRevertible(
    'a client kicked off Wi-Fi has reconnected by itself; there is nothing to undo',
  ),
};

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

const wifi: Record<string, ChangeSpec> = {
  set_wifi_broadcast_enabled: {
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
  },
};

const devices: Record<string, ChangeSpec> = {
  restart_device: notRevertible('a restart cannot be taken back: the device has rebooted'),
  power_cycle_port: notRevertible(
    'a power cycle cannot be taken back: the port was already switched off and on',
  ),
  locate_device: notRevertible(
    'locate only blinks the device; it stops by itself and changes nothing to undo',
  ),
};

const vouchers: Record<string, ChangeSpec> = {
  create_vouchers: notRevertible(
    'vouchers may have been handed out already; revoke the ones you want gone with revoke_voucher',
  ),
  revoke_voucher: notRevertible('a revoked voucher cannot be restored (a new one has a new code)'),
};

const keep: Record<string, ChangeSpec> = {
  keep_change: notRevertible(
    'Keep only cancels the automatic revert of another change; revert that change itself to undo it',
  ),
};

const SPECS: Record<string, ChangeSpec> = {
  ...keep,
  ...network,
  ...clients,
  ...wifi,
  ...devices,
  ...vouchers,
  ...FIREWALL_SPECS,
};

/** The spec of a write tool; undefined for a tool whose object the bot does not read back yet. */
export function changeSpec(tool: string): ChangeSpec | undefined {
  return SPECS[tool];
}

/** Write tools with a spec (the table's rows), for tests and docs. */
export function specifiedTools(): string[] {
  return Object.keys(SPECS);
}

/** Why a change of a tool without a spec offers no Revert. */
export function noSpecReason(tool: string): string {
  return `the bot does not yet read back or undo ${tool} changes; undo it with the matching tool by hand`;
}
