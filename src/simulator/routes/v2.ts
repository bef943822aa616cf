import { z } from 'zod';
import { isIpv4OrCidr, isIpv6OrCidr } from '../../lib/ip.js';
import { json, SimError } from '../envelopes.js';
import type { Router } from '../router.js';
import type { SiteState, TrafficRule } from '../state.js';
import { parseOrThrow } from '../validation.js';
import { type Handler, namedSite, param, type RequestContext } from './context.js';

const kbps = z.int().min(0).max(10_000_000);

const bandwidthLimit = z
  .strictObject({ download_limit_kbps: kbps, upload_limit_kbps: kbps, enabled: z.boolean() })
  .refine((limit) => !limit.enabled || (limit.download_limit_kbps > 0 && limit.upload_limit_kbps > 0), {
    message: 'an enabled bandwidth limit needs positive download_limit_kbps and upload_limit_kbps',
  });

const targetDevice = z
  .looseObject({
    type: z.enum(['ALL_CLIENTS', 'CLIENT', 'NETWORK']),
    client_mac: z.string().optional(),
    network_id: z.string().optional(),
  })
  .refine((target) => target.type !== 'CLIENT' || Boolean(target.client_mac), {
    message: 'a CLIENT target needs client_mac',
  })
  .refine((target) => target.type !== 'NETWORK' || Boolean(target.network_id), {
    message: 'a NETWORK target needs network_id',
  });

const port = z.int().min(1).max(65535);

// DPI catalogue ids. Stored rules carry them as strings (aiounifi types app_ids `list[str]`); a
// number is accepted too and stored as a string, as the controller stores what it is given.
const catalogueIds = z
  .array(z.union([z.int().nonnegative(), z.string().regex(/^\d+$/)]))
  .default([])
  .transform((ids) => ids.map(String));

// An `IP` destination as aiounifi types it: an address or subnet of its version, with ports.
const ipAddress = z
  .looseObject({
    ip_or_subnet: z.string().min(1),
    ip_version: z.enum(['v4', 'v6']),
    port_ranges: z
      .array(
        z
          .looseObject({ port_start: port, port_stop: port })
          .refine((range) => range.port_start <= range.port_stop, {
            message: 'port_start must not exceed port_stop',
          }),
      )
      .default([]),
    ports: z.array(port).default([]),
  })
  .refine(
    (entry) =>
      entry.ip_version === 'v4'
        ? isIpv4OrCidr(entry.ip_or_subnet, true)
        : isIpv6OrCidr(entry.ip_or_subnet, true),
    { message: 'ip_or_subnet must be an address or subnet of its ip_version' },
  );

// Loose: the controller keeps keys it does not validate here (schedule details, future fields).
const trafficRuleBody = z.looseObject({
  _id: z.string().optional(),
  action: z.enum(['ALLOW', 'BLOCK']),
  description: z.string().max(128).default(''),
  enabled: z.boolean(),
  matching_target: z.enum(['INTERNET', 'IP', 'DOMAIN', 'REGION', 'APP', 'APP_CATEGORY', 'LOCAL_NETWORK']),
  bandwidth_limit: bandwidthLimit.default({
    download_limit_kbps: 1024,
    enabled: false,
    upload_limit_kbps: 1024,
  }),
  app_category_ids: catalogueIds,
  app_ids: catalogueIds,
  domains: z.array(z.unknown()).default([]),
  ip_addresses: z.array(ipAddress).default([]),
  ip_ranges: z.array(z.unknown()).default([]),
  network_ids: z.array(z.string()).default([]),
  regions: z.array(z.string()).default([]),
  schedule: z
    .looseObject({ mode: z.string() })
    .default({ mode: 'ALWAYS', repeat_on_days: [], time_all_day: false }),
  target_devices: z.array(targetDevice).default([]),
});

function parseRule(ctx: RequestContext): z.infer<typeof trafficRuleBody> {
  return parseOrThrow(
    trafficRuleBody,
    ctx.body,
    (_error, message) => new SimError(400, 'api.err.InvalidPayload', `Validation failed: ${message}`),
  );
}

function findRule(site: SiteState, id: string): TrafficRule {
  const rule = site.trafficRules.find((candidate) => candidate._id === id);
  if (!rule) throw new SimError(404, 'api.err.NotFound', `Traffic rule ${id} not found`);
  return rule;
}

/** Registers v2 `trafficrules` (CRUD; PUT is a full replace) and `trafficroutes` (read). */
export function registerV2(router: Router<Handler>): void {
  const base = '/v2/api/site/:site';
  // Deliberately alike: route registrations share the router's chain shape; each handler reads its own records.
  router
    .on(
      'GET',
      `${base}/trafficrules`,
      namedSite((_ctx, site) => json(site.trafficRules)),
    )
    .on(
      'POST',
      `${base}/trafficrules`,
      namedSite((ctx, site) => {
        const rule: TrafficRule = { ...parseRule(ctx), _id: ctx.state.newObjectId() };
        site.trafficRules.push(rule);
        return json(rule);
      }),
    )
    // Deliberately alike: traffic rules' create, replace and delete routes each parse or find one rule the same way.
    .on(
      'PUT',
      `${base}/trafficrules/:id`,
      namedSite((ctx, site) => {
        const existing = findRule(site, param(ctx, 'id'));
        const replacement: TrafficRule = { ...parseRule(ctx), _id: existing._id };
        site.trafficRules.splice(site.trafficRules.indexOf(existing), 1, replacement);
        return json(replacement);
      }),
    )
    .on(
      'DELETE',
      `${base}/trafficrules/:id`,
      namedSite((ctx, site) => {
        const existing = findRule(site, param(ctx, 'id'));
        site.trafficRules.splice(site.trafficRules.indexOf(existing), 1);
        // No capture of a v2 DELETE answer exists; an empty 200 is the most common shape.
        return { status: 200 };
      }),
    )
    .on(
      'GET',
      `${base}/trafficroutes`,
      namedSite((_ctx, site) => json(site.trafficRoutes)),
    );
}
