import { type Reply, SimError } from '../envelopes.js';
import type { Params } from '../router.js';
import type { SimulatorState, SiteState } from '../state.js';

/** What a route handler sees of a request. */
export interface RequestContext {
  readonly method: string;
  /** The route with the deployment prefix removed (`/integration/v1/sites/…`). */
  readonly route: string;
  readonly query: URLSearchParams;
  /** The parsed JSON body; undefined when the request had none. */
  readonly body: unknown;
  readonly state: SimulatorState;
  readonly params: Params;
}

/** A route handler. Errors are thrown as SimError and rendered by the dispatcher. */
export type Handler = (ctx: RequestContext) => Reply;

/** A handler bound to the site its path names. */
export type SiteHandler = (ctx: RequestContext, site: SiteState) => Reply;

/** A path parameter the route pattern guarantees. */
export function param(ctx: RequestContext, name: string): string {
  const value = ctx.params[name];
  if (value === undefined) throw new Error(`route has no :${name} parameter`);
  return value;
}

/** Classic and v2 routes: `{site}` is the short name; an unknown one is `api.err.NoSiteContext`. */
export function namedSite(handler: SiteHandler): Handler {
  return (ctx) => {
    const site = ctx.state.site(param(ctx, 'site'));
    if (!site) throw new SimError(400, 'api.err.NoSiteContext', `Unknown site ${param(ctx, 'site')}`);
    return handler(ctx, site);
  };
}

/** Integration routes: `{siteId}` is the site UUID; an unknown one is a 404. */
export function uuidSite(handler: SiteHandler): Handler {
  return (ctx) => {
    const site = ctx.state.siteByUuid(param(ctx, 'siteId'));
    if (!site) throw new SimError(404, 'api.resource-not-found', `Site ${param(ctx, 'siteId')} not found`);
    return handler(ctx, site);
  };
}

/** The body as a JSON object, or `fail()` when it is missing or not an object. */
export function bodyObject(ctx: RequestContext, fail: () => SimError): Record<string, unknown> {
  const { body } = ctx;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw fail();
  return body as Record<string, unknown>;
}
