import { z } from 'zod';
import { compareIpv4OrIpv6, isIpv4OrCidr, isIpv6OrCidr } from '../../lib/ip.js';
import { TRAFFIC_MATCHING_LIST_TYPES, type TrafficMatchingList } from '../state.js';
import { describeZodError } from '../validation.js';
import type { RequestContext } from './context.js';
import {
  badRequest,
  type IntegrationResource,
  parseBody,
  removeFrom,
  replaceIn,
} from './integration-common.js';

type ListType = TrafficMatchingList['type'];

// `type`, `name` and `items` are all required, on POST and on PUT (a full replace).
const listBody = z.strictObject({
  type: z.enum(TRAFFIC_MATCHING_LIST_TYPES),
  name: z.string().min(1).max(128),
  items: z.array(z.unknown()).min(1),
});

const port = z.int().min(1).max(65535);

function addressItems(version: 4 | 6) {
  const isAddress = (text: string) => (version === 4 ? isIpv4OrCidr(text, false) : isIpv6OrCidr(text, false));
  const isSubnet = (text: string) =>
    text.includes('/') && (version === 4 ? isIpv4OrCidr(text, true) : isIpv6OrCidr(text, true));
  const address = z.string().refine(isAddress, { message: `must be an IPv${version} address` });
  return z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('IP_ADDRESS'), value: address }),
    z.strictObject({
      type: z.literal('SUBNET'),
      value: z.string().refine(isSubnet, { message: `must be an IPv${version} subnet` }),
    }),
    z
      .strictObject({ type: z.literal('IP_ADDRESS_RANGE'), start: address, stop: address })
      .refine((range) => compareIpv4OrIpv6(range.start, range.stop) <= 0, {
        message: 'start must not exceed stop',
      }),
  ]);
}

// Item shapes are checked against the list type: a SUBNET in a PORTS list is refused.
const ITEM_SCHEMAS: Record<ListType, z.ZodType<TrafficMatchingList['items'][number]>> = {
  PORTS: z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('PORT_NUMBER'), value: port }),
    z
      .strictObject({ type: z.literal('PORT_NUMBER_RANGE'), start: port, stop: port })
      .refine((range) => range.start <= range.stop, { message: 'start must not exceed stop' }),
  ]),
  IPV4_ADDRESSES: addressItems(4),
  IPV6_ADDRESSES: addressItems(6),
};

function parseList(ctx: RequestContext) {
  const body = parseBody(listBody, ctx);
  const items = z.array(ITEM_SCHEMAS[body.type]).safeParse(body.items);
  if (!items.success) throw badRequest(`items.${describeZodError(items.error)} (list type ${body.type})`);
  return { type: body.type, name: body.name, items: items.data };
}

/** Integration `traffic-matching-lists`: PORTS, IPV4_ADDRESSES and IPV6_ADDRESSES with typed items. */
export const trafficMatchingLists: IntegrationResource<TrafficMatchingList> = {
  path: 'traffic-matching-lists',
  label: 'Traffic matching list',
  items: (site) => site.trafficMatchingLists,
  view: (_site, list) => ({
    type: list.type,
    id: list.id,
    name: list.name,
    items: list.items.map((item) => ({ ...item })),
  }),
  create(ctx, site) {
    const list: TrafficMatchingList = { ...parseList(ctx), id: ctx.state.newUuid() };
    site.trafficMatchingLists.push(list);
    return list;
  },
  replace(ctx, site, existing) {
    return replaceIn(site.trafficMatchingLists, existing, { ...parseList(ctx), id: existing.id });
  },
  remove(site, existing) {
    removeFrom(site.trafficMatchingLists, existing);
  },
};
