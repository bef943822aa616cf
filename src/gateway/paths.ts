import type { ApiKind } from './types.js';

/** How a local controller is deployed: a UniFi OS console, or a legacy self-hosted Network application. */
export type Deployment = 'unifi-os' | 'self-hosted';

/** UniFi OS serves the Network application under this prefix; self-hosted controllers serve it at the root. */
export const UNIFI_OS_PREFIX = '/proxy/network';

/** Site Manager base used when cloud mode names no GATEWAY_URL. */
export const SITE_MANAGER_URL = 'https://api.ui.com';

/** The Network application prefix of a deployment. */
export function deploymentPrefix(deployment: Deployment): string {
  return deployment === 'unifi-os' ? UNIFI_OS_PREFIX : '';
}

/** The connector base that reaches a console's Network application through the cloud. */
export function connectorBase(siteManagerUrl: string, consoleId: string): string {
  return `${trimSlashes(siteManagerUrl)}/v1/connector/consoles/${encodeSegment(consoleId)}${UNIFI_OS_PREFIX}`;
}

/**
 * Encodes one path segment. Console ids look like `70A7…:1261206302`; the colon is legal in a
 * path segment and is kept so the id reads the same in logs and on the connector.
 */
export function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/%3A/gi, ':');
}

/** A relative path split from any query string it carries. */
export interface SplitPath {
  path: string;
  query: Record<string, string>;
}

/** Splits `stat/x?a=1` into a clean relative path (no leading or trailing slash) and its query. */
export function splitPath(path: string): SplitPath {
  const [rawPath = '', rawQuery] = path.split('?', 2);
  const query: Record<string, string> = {};
  if (rawQuery !== undefined) {
    for (const [key, value] of new URLSearchParams(rawQuery)) query[key] = value;
  }
  return { path: rawPath.replace(/^\/+|\/+$/g, ''), query };
}

/** The route under the Network application root for an API, e.g. `/api/s/default/rest/networkconf`. */
export function apiRoute(api: ApiKind, siteSegment: string | undefined, path: string): string {
  const tail = path === '' ? '' : `/${path}`;
  switch (api) {
    case 'classic':
      return `/api/s/${encodeSegment(siteSegment ?? 'default')}${tail}`;
    case 'v2':
      return `/v2/api/site/${encodeSegment(siteSegment ?? 'default')}${tail}`;
    case 'integration':
      return siteSegment === undefined
        ? `/integration/v1${tail}`
        : `/integration/v1/sites/${encodeSegment(siteSegment)}${tail}`;
  }
}

/** Joins a base URL and an absolute route without doubling slashes. */
export function joinUrl(base: string, route: string): string {
  return `${trimSlashes(base)}${route.startsWith('/') ? route : `/${route}`}`;
}

/** The host (and port) of a URL, for messages; never the userinfo part. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the controller';
  }
}

/** A base URL as shown to people: scheme, host, port and path, never a user or password in it. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`.replace(/\/+$/, '');
  } catch {
    return 'the configured GATEWAY_URL';
  }
}

function trimSlashes(url: string): string {
  return url.replace(/\/+$/, '');
}

/** What a path names, for ResourceNotFoundError: `rest/networkconf/{id}` → networkconf + id. */
export interface PathTarget {
  resource: string;
  id: string;
}

const ID_PATTERNS = [
  /^[0-9a-f]{24}$/i,
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i,
  /^\d+$/,
];

/**
 * Names the resource and id a relative path points at. Classic `rest/<collection>/<id>` and
 * `stat/<collection>/<id>` name the id by position (a caller may have typed a name instead of an
 * id); elsewhere the last id-shaped segment is the id and the segment before it the resource.
 */
export function describePath(path: string): PathTarget {
  const segments = splitPath(path)
    .path.split('/')
    .filter((s) => s !== '')
    .map((s) => safeDecode(s));
  const [first, collection, id] = segments;
  if ((first === 'rest' || first === 'stat') && collection !== undefined && id !== undefined) {
    return { resource: singular(collection), id };
  }
  for (let i = segments.length - 1; i >= 0; i--) {
    const segment = segments[i];
    if (segment !== undefined && ID_PATTERNS.some((p) => p.test(segment))) {
      return { resource: singular(segments[i - 1] ?? 'object'), id: segment };
    }
  }
  return { resource: singular(segments[segments.length - 1] ?? 'object'), id: '' };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function singular(word: string): string {
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us')) return word.slice(0, -1);
  return word;
}
