/**
 * The change specs of the client actions: the image is the part of the client an action changes,
 * and each toggle is undone by its opposite.
 */

import { z } from 'zod';
import { isRecord } from '../../lib/is-record.js';
import type { ChangeSpec, ImageRead } from '../core/change-spec.js';
import { type Json, siteOf, str } from '../core/spec-helpers.js';

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

export const clientChanges: Record<string, ChangeSpec> = {
  block_client: blockToggle('unblock_client', true),
  unblock_client: blockToggle('block_client', false),
  authorize_guest: clientToggle('unauthorize_guest', { guest_authorization: 'authorized' }),
  unauthorize_guest: clientToggle('authorize_guest', { guest_authorization: 'not authorized' }, () => [
    "authorized again with the site's default guest time (the earlier limits are not known)",
  ]),
};
