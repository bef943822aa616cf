import { z } from 'zod';
import { isIpv4OrCidr } from '../../lib/ip.js';
import { INTEGRATION_CODES, json } from '../envelopes.js';
import type { Router } from '../router.js';
import type { AclRule, SiteState } from '../state.js';
import { type Handler, type RequestContext, uuidSite } from './context.js';
// Deliberately alike: each Integration collection builds on the same integration-common.js helpers.
import {
  badRequest,
  type IntegrationResource,
  parseBody,
  removeFrom,
  replaceIn,
} from './integration-common.js';
import { integrationNetworks } from './integration-core.js';

/** ACL error codes (simulator choices; the real codes are not documented). */
export const ACL_CODES = {
  notUserDefined: 'api.acl-rule.not-user-defined',
  invalidOrdering: 'api.acl-rule.invalid-ordering',
} as const;

const port = z.int().min(1).max(65535);
const portFilter = z.array(port).min(1).nullable().optional();
const mac = z.string().regex(/^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$/);

const ipv4Endpoint = z
  .discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('IP_ADDRESSES_OR_SUBNETS'),
      ipAddressesOrSubnets: z
        .array(
          z
            .string()
            .refine((text) => isIpv4OrCidr(text, true), { message: 'must be an IPv4 address or subnet' }),
        )
        .min(1),
      portFilter,
    }),
    z.strictObject({ type: z.literal('NETWORKS'), networkIds: z.array(z.guid()).min(1), portFilter }),
    z.strictObject({ type: z.literal('PORTS'), portFilter: z.array(port).min(1) }),
  ])
  .nullable()
  .optional();

const macEndpoint = z
  .strictObject({
    type: z.literal('MAC_ADDRESSES'),
    macAddresses: z.array(mac).min(1),
    prefixLength: z.int().min(1).max(48).optional(),
  })
  .nullable()
  .optional();

const common = {
  enabled: z.boolean(),
  name: z.string().min(1).max(128),
  description: z.string().max(256).optional(),
  action: z.enum(['ALLOW', 'BLOCK']),
  enforcingDeviceFilter: z
    .strictObject({ type: z.literal('DEVICES'), deviceIds: z.array(z.guid()).min(1) })
    .nullable()
    .optional(),
  // Deprecated and without effect on write (the ordering endpoint decides); accepted and ignored.
  index: z.int().optional(),
};

const aclBody = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('IPV4'),
    ...common,
    sourceFilter: ipv4Endpoint,
    destinationFilter: ipv4Endpoint,
    // TCP and UDP only: there is no ICMP or ALL value; null means every protocol.
    protocolFilter: z
      .array(z.enum(['TCP', 'UDP']))
      .min(1)
      .refine((list) => new Set(list).size === list.length, { message: 'must not repeat a protocol' })
      .nullable()
      .optional(),
  }),
  z.strictObject({
    type: z.literal('MAC'),
    ...common,
    sourceFilter: macEndpoint,
    destinationFilter: macEndpoint,
    networkIdFilter: z.guid().nullable().optional(),
  }),
]);

type AclBody = z.infer<typeof aclBody>;

function checkNetworks(site: SiteState, ids: readonly string[]): void {
  const known = new Set(integrationNetworks(site).map((network) => network.external_id));
  const missing = ids.find((id) => !known.has(id));
  if (missing) throw badRequest(`Network ${missing} not found`, INTEGRATION_CODES.networkNotFound);
}

function referencedNetworks(body: AclBody): string[] {
  if (body.type === 'MAC') return body.networkIdFilter ? [body.networkIdFilter] : [];
  return [body.sourceFilter, body.destinationFilter].flatMap((filter) =>
    filter?.type === 'NETWORKS' ? filter.networkIds : [],
  );
}

function toRule(id: string, body: AclBody): AclRule {
  const base = {
    id,
    enabled: body.enabled,
    name: body.name,
    ...(body.description !== undefined ? { description: body.description } : {}),
    action: body.action,
    enforcingDeviceFilter: body.enforcingDeviceFilter ?? null,
    metadata: { origin: 'USER_DEFINED' as const },
  };
  // Deliberately alike: the MAC and IPV4 rule kinds carry different filters; each branch builds its own variant.
  if (body.type === 'MAC') {
    return {
      ...base,
      type: 'MAC',
      sourceFilter: body.sourceFilter ?? null,
      destinationFilter: body.destinationFilter ?? null,
      networkIdFilter: body.networkIdFilter ?? null,
    };
  }
  return {
    ...base,
    type: 'IPV4',
    sourceFilter: body.sourceFilter ?? null,
    destinationFilter: body.destinationFilter ?? null,
    protocolFilter: body.protocolFilter ?? null,
  };
}

function parseRule(ctx: RequestContext, site: SiteState): AclBody {
  const body = parseBody(aclBody, ctx);
  checkNetworks(site, referencedNetworks(body));
  return body;
}

/** The rule's `index`: its place in the ordering; rules outside it (not user-defined) come after. */
function indexOf(site: SiteState, rule: AclRule): number {
  const position = site.aclOrdering.indexOf(rule.id);
  if (position >= 0) return position;
  const unordered = site.aclRules.filter((candidate) => !site.aclOrdering.includes(candidate.id));
  return site.aclOrdering.length + unordered.indexOf(rule);
}

function assertUserDefined(rule: AclRule): void {
  if (rule.metadata.origin !== 'USER_DEFINED') {
    throw badRequest(
      `ACL rule ${rule.name} is not user-defined and cannot be changed`,
      ACL_CODES.notUserDefined,
    );
  }
}

/** Integration `acl-rules`: IPV4 and MAC rules; `index` on read is the position in the ordering. */
export const aclRules: IntegrationResource<AclRule> = {
  path: 'acl-rules',
  label: 'ACL rule',
  items: (site) => [...site.aclRules].sort((a, b) => indexOf(site, a) - indexOf(site, b)),
  view(site, rule) {
    const head = {
      type: rule.type,
      id: rule.id,
      enabled: rule.enabled,
      name: rule.name,
      ...(rule.description !== undefined ? { description: rule.description } : {}),
      action: rule.action,
      enforcingDeviceFilter: rule.enforcingDeviceFilter,
      index: indexOf(site, rule),
      sourceFilter: rule.sourceFilter,
      destinationFilter: rule.destinationFilter,
    };
    return rule.type === 'IPV4'
      ? { ...head, metadata: rule.metadata, protocolFilter: rule.protocolFilter }
      : { ...head, networkIdFilter: rule.networkIdFilter ?? null, metadata: rule.metadata };
  },
  create(ctx, site) {
    const rule = toRule(ctx.state.newUuid(), parseRule(ctx, site));
    site.aclRules.push(rule);
    site.aclOrdering.push(rule.id);
    return rule;
  },
  replace(ctx, site, existing) {
    assertUserDefined(existing);
    return replaceIn(site.aclRules, existing, toRule(existing.id, parseRule(ctx, site)));
  },
  remove(site, existing) {
    assertUserDefined(existing);
    removeFrom(site.aclRules, existing);
    site.aclOrdering = site.aclOrdering.filter((id) => id !== existing.id);
  },
};

const orderingBody = z.strictObject({ orderedAclRuleIds: z.array(z.guid()) });

/** Registers `acl-rules/ordering` GET and PUT; register it before the `acl-rules/{id}` routes. */
export function registerAclOrdering(router: Router<Handler>): void {
  const path = '/integration/v1/sites/:siteId/acl-rules/ordering';
  router
    .on(
      'GET',
      path,
      uuidSite((_ctx, site) => json({ orderedAclRuleIds: [...site.aclOrdering] })),
    )
    .on(
      'PUT',
      path,
      uuidSite((ctx, site) => {
        const { orderedAclRuleIds } = parseBody(orderingBody, ctx);
        const userDefined = site.aclRules
          .filter((rule) => rule.metadata.origin === 'USER_DEFINED')
          .map((rule) => rule.id);
        const wanted = new Set(orderedAclRuleIds);
        const isPermutation =
          wanted.size === orderedAclRuleIds.length &&
          orderedAclRuleIds.length === userDefined.length &&
          userDefined.every((id) => wanted.has(id));
        if (!isPermutation) {
          throw badRequest(
            'orderedAclRuleIds must list every user-defined ACL rule id exactly once',
            ACL_CODES.invalidOrdering,
          );
        }
        site.aclOrdering = [...orderedAclRuleIds];
        return json({ orderedAclRuleIds });
      }),
    );
}
