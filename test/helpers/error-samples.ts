import {
  ConfigError,
  ConfirmationRequiredError,
  ConflictError,
  NotAuthorizedError,
  NotSupportedError,
  ResourceNotFoundError,
  ValidationError,
} from '../../src/errors.js';
import {
  type FailureContext,
  fromControllerCode,
  mapHttpFailure,
  noControllerAnswer,
} from '../../src/gateway/error-mapping.js';
import { createTransport, type RawResponse } from '../../src/gateway/transport.js';
import { silentLogger } from '../../src/log.js';

const CTX: FailureContext = {
  api: 'classic',
  method: 'GET',
  site: 'default',
  path: 'rest/networkconf',
  host: '192.168.1.1',
  credential: 'api-key',
  cloud: false,
  baseUrl: 'https://192.168.1.1',
  requestPath: '/proxy/network/api/s/default/rest/networkconf',
};

function response(status: number, json: unknown, headers: Record<string, string> = {}): RawResponse {
  const text = json === undefined ? '' : JSON.stringify(json);
  return { status, headers, contentType: 'application/json', text, json };
}

function html(status: number): RawResponse {
  return {
    status,
    headers: {},
    contentType: 'text/html',
    text: '<html>404 Not Found</html>',
    json: undefined,
  };
}

/** One error of each kind the bot raises, made by the code that makes it in the running bot. */
export interface ErrorSample {
  name: string;
  error: Error;
}

/**
 * Realistic errors: the gateway's own mapping of controller answers (and of a refused TCP
 * connection, through the real transport), plus the tool- and registry-side classes with
 * messages as the tools word them.
 */
export async function errorSamples(): Promise<ErrorSample[]> {
  const transport = createTransport({ timeoutMs: 1000, verifyTls: true, logger: silentLogger() });
  // Port 9 (discard) is closed on loopback: the connection is refused at once.
  const refused = await transport.send({ method: 'GET', url: 'http://127.0.0.1:9/', headers: {} }).then(
    () => {
      throw new Error('expected port 9 to refuse the connection');
    },
    (error: unknown) => error as Error,
  );
  transport.close();
  const noController = noControllerAnswer(html(404), CTX);
  if (noController === undefined) throw new Error('expected an HTML 404 to read as no controller');
  return [
    {
      name: 'ValidationError',
      error: new ValidationError([{ field: 'vlan_id', rule: 'must be a whole number from 1 to 4094' }]),
    },
    {
      name: 'ResourceNotFoundError (controller IdInvalid)',
      error: mapHttpFailure(response(400, { meta: { rc: 'error', msg: 'api.err.IdInvalid' }, data: [] }), {
        ...CTX,
        path: 'rest/networkconf/64ab0c9e8f1a2b3c4d5e0000',
      }),
    },
    { name: 'ResourceNotFoundError (lookup by name)', error: new ResourceNotFoundError('network', 'Lab') },
    { name: 'ConfirmationRequiredError', error: new ConfirmationRequiredError('delete_network') },
    {
      name: 'NotSupportedError',
      error: new NotSupportedError('zone "Internal" is system-defined and cannot be deleted'),
    },
    { name: 'NotAuthorizedError', error: new NotAuthorizedError('<@U2> is not in APPROVERS') },
    {
      name: 'ConflictError',
      error: new ConflictError('VLAN 30 is already used by Guest (64ab0c9e8f1a2b3c4d5e0001)'),
    },
    { name: 'GatewayAuthError (401 API key)', error: mapHttpFailure(response(401, undefined), CTX) },
    {
      name: 'GatewayAuthError (403 with a code)',
      error: mapHttpFailure(
        response(403, { meta: { rc: 'error', msg: 'api.err.NoPermission' }, data: [] }),
        CTX,
      ),
    },
    { name: 'GatewayUnavailableError (refused)', error: refused },
    { name: 'GatewayUnavailableError (HTTP 502)', error: mapHttpFailure(response(502, undefined), CTX) },
    { name: 'GatewayUnavailableError (no controller)', error: noController },
    {
      name: 'GatewayRejectedError (NoSiteContext)',
      error: fromControllerCode('api.err.NoSiteContext', 200, { ...CTX, site: 'lab' }),
    },
    {
      name: 'GatewayRejectedError (VlanUsed)',
      error: fromControllerCode('api.err.VlanUsed', 400, { ...CTX, method: 'POST', body: { vlan: 30 } }),
    },
    {
      name: 'GatewayRejectedError (unknown code)',
      error: fromControllerCode('api.err.Mystery', 400, { ...CTX, method: 'POST' }, 'the moon is full'),
    },
    {
      name: 'GatewayRejectedError (bare HTTP status)',
      error: mapHttpFailure(response(400, { detail: 'name must not be blank' }), { ...CTX, method: 'POST' }),
    },
    {
      name: 'RateLimitedError',
      error: mapHttpFailure(response(429, undefined, { 'retry-after': '30' }), CTX),
    },
    {
      name: 'ConfigError',
      error: new ConfigError([{ field: 'GATEWAY_URL', rule: 'must be an http:// or https:// URL' }]),
    },
  ];
}

/**
 * Fragments a user-facing text says twice: its leading `kind:` label, a `(…)` group, an
 * `HTTP nnn` status, or any run of three words. Empty when nothing is repeated.
 */
export function repeatedFragments(text: string): string[] {
  // "30 s" and "30s" are the same wait; an emoji prefix is not a word.
  const lower = text
    .toLowerCase()
    .replace(/^:[a-z_]+:\s*/, '')
    .replace(/(\d) s\b/g, '$1s');
  const found = new Set<string>();
  const label = /^([a-z][a-z ]*?):/.exec(lower)?.[1];
  if (label !== undefined && lower.indexOf(label, label.length) !== -1) found.add(label);
  const counts = (items: string[]) => {
    const seen = new Map<string, number>();
    for (const item of items) seen.set(item, (seen.get(item) ?? 0) + 1);
    for (const [item, n] of seen) if (n > 1) found.add(item);
  };
  counts([...lower.matchAll(/\([^()]+\)/g)].map((m) => m[0].replace(/`/g, '')));
  counts([...lower.matchAll(/http \d{3}/g)].map((m) => m[0]));
  const words = lower
    .split(/\s+/)
    .map((w) => w.replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, ''))
    .filter((w) => w !== '');
  counts(words.slice(2).map((w, i) => `${words[i]} ${words[i + 1]} ${w}`));
  return [...found];
}
