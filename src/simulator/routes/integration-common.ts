import type { z } from 'zod';
import { INTEGRATION_CODES, integrationPage, json, type Reply, SimError } from '../envelopes.js';
import { FilterSyntaxError, matchesFilter, parseFilter } from '../integration-filter.js';
import type { Router } from '../router.js';
import type { SiteState } from '../state.js';
import { parseOrThrow } from '../validation.js';
import { type Handler, param, type RequestContext, uuidSite } from './context.js';

/** A 400 in the Integration error schema. */
export function badRequest(message: string, code: string = INTEGRATION_CODES.validation): SimError {
  return new SimError(400, code, message);
}

/** A 404 `api.resource-not-found`. */
export function notFound(label: string, id: string): SimError {
  return new SimError(404, INTEGRATION_CODES.notFound, `${label} ${id} not found`);
}

function intQuery(query: URLSearchParams, name: string, fallback: number, max: number): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) > max)
    throw badRequest(`${name} must be an integer from 0 to ${max}`);
  return Number(raw);
}

/** A page of `items` honouring `offset`, `limit` (default 25, at most 200) and `filter`. */
export function listPage(ctx: RequestContext, items: readonly unknown[]): Reply {
  const offset = intQuery(ctx.query, 'offset', 0, Number.MAX_SAFE_INTEGER);
  const limit = intQuery(ctx.query, 'limit', 25, 200);
  const filterText = ctx.query.get('filter');
  let selected = items;
  if (filterText !== null) {
    try {
      const filter = parseFilter(filterText);
      selected = items.filter((item) => matchesFilter(filter, item));
    } catch (error) {
      if (error instanceof FilterSyntaxError) throw badRequest(`Invalid filter: ${error.message}`);
      throw error;
    }
  }
  return integrationPage(selected, offset, limit);
}

/** The body parsed with a (strict) schema; unknown properties and type errors are a 400. */
export function parseBody<T>(schema: z.ZodType<T>, ctx: RequestContext): T {
  if (ctx.body === undefined) throw badRequest('Request body is required');
  return parseOrThrow(schema, ctx.body, (_error, message) => badRequest(message));
}

/** One Integration collection under a site. The resource owns validation and storage. */
export interface IntegrationResource<T extends { id: string }> {
  /** Path under the site: `firewall/zones`. */
  path: string;
  /** For messages: `Firewall zone`. */
  label: string;
  /** Items in list order. */
  items(site: SiteState): T[];
  /** The object as the API returns it. */
  view(site: SiteState, item: T): unknown;
  /** Validates the body and stores a new item. */
  create(ctx: RequestContext, site: SiteState): T;
  /** Validates the body and replaces `existing` (a full replace). */
  replace(ctx: RequestContext, site: SiteState, existing: T): T;
  /** Checks the delete is allowed and removes `existing`. */
  remove(site: SiteState, existing: T): void;
  /** Refuses every route of the resource on a site that lacks the feature (zones on a legacy firewall). */
  guard?(site: SiteState): void;
}

/** Registers list, get, create (201), replace (200) and delete (200, empty body) for a resource. */
export function registerIntegrationCrud<T extends { id: string }>(
  router: Router<Handler>,
  resource: IntegrationResource<T>,
): void {
  const base = `/integration/v1/sites/:siteId/${resource.path}`;
  const guarded = (handler: Parameters<typeof uuidSite>[0]) =>
    uuidSite((ctx, site) => {
      resource.guard?.(site);
      return handler(ctx, site);
    });
  const find = (ctx: RequestContext, site: SiteState): T => {
    const id = param(ctx, 'id');
    const item = resource.items(site).find((candidate) => candidate.id === id);
    if (!item) throw notFound(resource.label, id);
    return item;
  };
  router
    .on(
      'GET',
      base,
      guarded((ctx, site) =>
        listPage(
          ctx,
          resource.items(site).map((item) => resource.view(site, item)),
        ),
      ),
    )
    .on(
      'POST',
      base,
      guarded((ctx, site) => json(resource.view(site, resource.create(ctx, site)), 201)),
    )
    .on(
      'GET',
      `${base}/:id`,
      guarded((ctx, site) => json(resource.view(site, find(ctx, site)))),
    )
    .on(
      'PUT',
      `${base}/:id`,
      guarded((ctx, site) => json(resource.view(site, resource.replace(ctx, site, find(ctx, site))))),
    )
    .on(
      'DELETE',
      `${base}/:id`,
      guarded((ctx, site) => {
        resource.remove(site, find(ctx, site));
        return { status: 200 };
      }),
    );
}

/** Replaces `existing` with `replacement` in place (keeps list order). */
export function replaceIn<T>(items: T[], existing: T, replacement: T): T {
  items.splice(items.indexOf(existing), 1, replacement);
  return replacement;
}

/** Removes `existing` from `items`. */
export function removeFrom<T>(items: T[], existing: T): void {
  items.splice(items.indexOf(existing), 1);
}
