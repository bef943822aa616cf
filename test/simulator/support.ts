import type { Simulator } from '../../src/simulator/index.js';

/** The demo site's Integration UUID, as tests address it. */
export const SITE_UUID = '88f7af54-98f8-306a-a1c7-c9349722b1f6';

/** A JSON answer: status, headers and the parsed body (undefined when empty). */
export interface JsonResponse {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

/** Options of one call. */
export interface CallOptions {
  body?: unknown;
  /** Sent as is (no JSON encoding). */
  rawBody?: string;
  headers?: Record<string, string>;
  /** Send the simulator's API key (default true). */
  key?: boolean;
}

/** The base of Network routes for the simulator's flavor. */
export function networkBase(sim: Simulator): string {
  return sim.flavor === 'unifi-os' ? `${sim.url}/proxy/network` : sim.url;
}

/** Calls `url` and parses a JSON body when there is one. */
export async function request(
  method: string,
  url: string,
  options: CallOptions = {},
  sim?: Simulator,
): Promise<JsonResponse> {
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  if (sim && options.key !== false) headers['X-API-KEY'] = sim.apiKey;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['Content-Type'] = 'application/json';
  }
  const response = await fetch(url, { method, headers, body, redirect: 'manual' });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/** Calls a Network route (`/api/s/default/…`, `/v2/…`, `/integration/v1/…`) with the API key. */
export function api(
  sim: Simulator,
  method: string,
  route: string,
  options: CallOptions = {},
): Promise<JsonResponse> {
  return request(method, `${networkBase(sim)}${route}`, options, sim);
}

/** The `data` array of a classic envelope (fails the test when the envelope is not ok). */
export function classicData(response: JsonResponse): Record<string, unknown>[] {
  const body = response.body as { meta?: { rc?: string }; data?: unknown };
  if (body?.meta?.rc !== 'ok' || !Array.isArray(body.data)) {
    throw new Error(`expected a classic ok envelope, got ${response.status} ${response.text}`);
  }
  return body.data as Record<string, unknown>[];
}

/** The `meta.msg` of a classic error envelope. */
export function classicError(response: JsonResponse): string | undefined {
  const body = response.body as { meta?: { rc?: string; msg?: string }; data?: unknown };
  return body?.meta?.rc === 'error' ? body.meta.msg : undefined;
}

/** A field of an object body. */
export function field(response: JsonResponse, name: string): unknown {
  return (response.body as Record<string, unknown> | undefined)?.[name];
}

/** The Integration path of the demo site. */
export const I = `/integration/v1/sites/${SITE_UUID}`;
