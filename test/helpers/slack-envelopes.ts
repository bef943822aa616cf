import fc from 'fast-check';
import { slackHeaders } from './slack-requests.js';

/** How a fuzzed request is signed: right, not at all, with another secret, or from a bad clock. */
export type Signing = 'signed' | 'unsigned' | 'wrong-secret' | 'stale' | 'future' | 'slightly-ahead';

/** One fuzzed POST to /slack/events. */
export interface FuzzedRequest {
  /** What the body was built from (for the failure report). */
  label: string;
  body: string;
  contentType: string | undefined;
  signing: Signing;
}

/** Anything a JSON field can hold, weighted towards the values that broke Bolt: null and wrong containers. */
const junk: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(null) },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 2, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 2, arbitrary: fc.constant([]) },
  { weight: 1, arbitrary: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }) },
  { weight: 2, arbitrary: fc.constant({}) },
  {
    weight: 1,
    arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  },
);

/** Sets `path` (dotted, numeric parts index arrays) in a copy of `value`, or deletes it. */
function setPath(
  value: unknown,
  path: readonly string[],
  replacement: { value: unknown } | 'delete',
): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return replacement === 'delete' ? undefined : replacement.value;
  const copy: Record<string, unknown> | unknown[] = Array.isArray(value)
    ? [...value]
    : typeof value === 'object' && value !== null
      ? { ...(value as Record<string, unknown>) }
      : {};
  const key = Array.isArray(copy) ? Number(head) : head;
  const inner = (copy as Record<string | number, unknown>)[key];
  if (rest.length === 0 && replacement === 'delete') {
    if (Array.isArray(copy)) copy.splice(Number(head), 1);
    else delete copy[head];
  } else {
    (copy as Record<string | number, unknown>)[key] = setPath(inner, rest, replacement);
  }
  return copy;
}

/** A valid envelope of each kind Slack could send, with the fields Bolt and the listeners read. */
function templates(
  responseUrl: string,
): { name: string; form: 'fields' | 'payload'; envelope: Record<string, unknown> }[] {
  const user = { id: 'U2', username: 'u2', name: 'u2', team_id: 'T1' };
  const team = { id: 'T1', domain: 'example' };
  return [
    {
      name: 'slash command',
      form: 'fields',
      envelope: {
        token: 'unused',
        team_id: 'T1',
        channel_id: 'C1',
        user_id: 'U1',
        user_name: 'alice',
        command: '/net',
        text: 'help',
        response_url: responseUrl,
        trigger_id: 'trigger-1',
        is_enterprise_install: 'false',
      },
    },
    {
      name: 'block_actions',
      form: 'payload',
      envelope: {
        type: 'block_actions',
        team,
        enterprise: null,
        user,
        channel: { id: 'C1' },
        container: { type: 'message', channel_id: 'C1', message_ts: '1.0' },
        message: { ts: '1.0', text: 'preview' },
        response_url: responseUrl,
        is_enterprise_install: false,
        actions: [{ action_id: 'approve', block_id: 'decide', type: 'button', value: 'cr_unknown' }],
      },
    },
    {
      name: 'view_submission',
      form: 'payload',
      envelope: {
        type: 'view_submission',
        team,
        enterprise: null,
        user,
        response_urls: [],
        view: {
          id: 'V1',
          callback_id: 'tool_form',
          app_installed_team_id: 'T1',
          private_metadata: JSON.stringify({ tool: 'create_network', channel: 'C1' }),
          state: { values: { name: { value: { type: 'plain_text_input', value: 'Lab' } } } },
        },
      },
    },
    {
      name: 'event_callback',
      form: 'payload',
      envelope: {
        type: 'event_callback',
        team_id: 'T1',
        event: { type: 'app_mention', channel: 'C1', user: 'U1' },
      },
    },
    { name: 'url_verification', form: 'payload', envelope: { type: 'url_verification', challenge: 'c' } },
    { name: 'shortcut', form: 'payload', envelope: { type: 'shortcut', callback_id: 'x', user, team } },
  ];
}

/** Every field of a template, as dotted paths, containers and leaves alike. */
function pathsOf(value: unknown, prefix: string[] = []): string[][] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => [
    [...prefix, key],
    ...pathsOf(inner, [...prefix, key]),
  ]);
}

/** An envelope of a real kind with one to three fields replaced by junk or removed. */
function mutatedEnvelope(responseUrl: string): fc.Arbitrary<FuzzedRequest> {
  return fc.constantFrom(...templates(responseUrl)).chain((template) => {
    const paths = pathsOf(template.envelope);
    const mutation = fc.record({
      path: fc.constantFrom(...paths),
      change: fc.oneof(
        { weight: 4, arbitrary: junk.map((value) => ({ value })) },
        { weight: 1, arbitrary: fc.constant<'delete'>('delete') },
      ),
    });
    return fc
      .tuple(fc.array(mutation, { minLength: 1, maxLength: 3 }), fc.boolean())
      .map(([mutations, asJson]) => {
        let envelope: unknown = template.envelope;
        for (const { path, change } of mutations) envelope = setPath(envelope, path, change);
        const label = `${template.name} with ${mutations.map((m) => `${m.path.join('.')}=${m.change === 'delete' ? '(deleted)' : JSON.stringify(m.change.value)}`).join(', ')}`;
        if (asJson)
          return {
            label,
            body: JSON.stringify(envelope),
            contentType: 'application/json',
            signing: 'signed',
          };
        if (template.form === 'fields') {
          const fields = new URLSearchParams();
          for (const [key, value] of Object.entries((envelope ?? {}) as Record<string, unknown>)) {
            fields.append(key, typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));
          }
          return {
            label,
            body: fields.toString(),
            contentType: 'application/x-www-form-urlencoded',
            signing: 'signed',
          };
        }
        return {
          label,
          body: `payload=${encodeURIComponent(JSON.stringify(envelope) ?? 'undefined')}`,
          contentType: 'application/x-www-form-urlencoded',
          signing: 'signed',
        };
      });
  });
}

/** Deeply nested arrays or objects, up to 30,000 levels. */
const deepNesting: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 100, max: 30_000 }), fc.boolean())
  .map(([depth, arrays]) =>
    arrays ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
  );

/** Bodies that are not an object: null, arrays, numbers, strings, booleans, non-JSON, deep nesting, huge strings. */
const notAnObject: fc.Arbitrary<{ label: string; json: string }> = fc.oneof(
  fc.constant({ label: 'null', json: 'null' }),
  fc
    .jsonValue()
    .filter((v) => typeof v !== 'object' || v === null || Array.isArray(v))
    .map((v) => ({ label: 'JSON value', json: JSON.stringify(v) })),
  fc
    .array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 5 })
    .map((v) => ({ label: 'array', json: JSON.stringify(v) })),
  fc.string({ maxLength: 40 }).map((text) => ({ label: 'not JSON', json: text })),
  deepNesting.map((json) => ({ label: 'deep nesting', json })),
  fc
    .integer({ min: 1_000, max: 120_000 })
    .map((n) => ({ label: `a ${n}-character string`, json: JSON.stringify('x'.repeat(n)) })),
  fc.jsonValue({ maxDepth: 4 }).map((v) => ({ label: 'any JSON', json: JSON.stringify(v) })),
);

const encodedNonObject: fc.Arbitrary<FuzzedRequest> = fc
  .tuple(notAnObject, fc.constantFrom('form payload', 'json', 'form field', 'text/plain', 'no content type'))
  .map(([{ label, json }, how]) => {
    switch (how) {
      case 'form payload':
        return {
          label: `payload=${label}`,
          body: `payload=${encodeURIComponent(json)}`,
          contentType: 'application/x-www-form-urlencoded',
          signing: 'signed',
        };
      case 'form field':
        return {
          label: `command=${label}`,
          body: `command=${encodeURIComponent(json)}&text=x`,
          contentType: 'application/x-www-form-urlencoded',
          signing: 'signed',
        };
      case 'text/plain':
        return { label: `${label} as text/plain`, body: json, contentType: 'text/plain', signing: 'signed' };
      case 'no content type':
        return {
          label: `${label} without content type`,
          body: json,
          contentType: undefined,
          signing: 'signed',
        };
      default:
        return { label: `${label} as JSON`, body: json, contentType: 'application/json', signing: 'signed' };
    }
  });

/**
 * Random Slack envelopes as HTTP requests: real kinds with fields of the wrong type or missing,
 * bodies that are not an object at all, under every way of signing them.
 */
export function fuzzedRequests(responseUrl: string): fc.Arbitrary<FuzzedRequest> {
  const signing = fc.constantFrom<Signing>(
    'signed',
    'signed',
    'signed',
    'signed',
    'unsigned',
    'wrong-secret',
    'stale',
    'future',
    'slightly-ahead',
  );
  return fc
    .tuple(
      fc.oneof(
        { weight: 3, arbitrary: mutatedEnvelope(responseUrl) },
        { weight: 2, arbitrary: encodedNonObject },
      ),
      signing,
    )
    .map(([request, how]) => ({ ...request, signing: how }));
}

/** The headers of a fuzzed request, signed (or not) as it says. */
export function headersFor(request: FuzzedRequest, secret: string): Record<string, string> {
  const now = Math.floor(Date.now() / 1000);
  const timestamps: Record<Signing, number> = {
    signed: now,
    unsigned: now,
    'wrong-secret': now,
    stale: now - 6 * 60,
    future: now + 6 * 60,
    'slightly-ahead': now + 4 * 60,
  };
  const headers: Record<string, string> =
    request.signing === 'unsigned'
      ? {}
      : slackHeaders(
          request.signing === 'wrong-secret' ? `${secret}-not` : secret,
          request.body,
          timestamps[request.signing],
        );
  delete headers['content-type'];
  return request.contentType ? { ...headers, 'content-type': request.contentType } : headers;
}

/** Whether a request may pass the signature check: a good signature, or Slack's unsigned ssl_check. */
export function mayPassSignature(request: FuzzedRequest): boolean {
  if (request.signing === 'signed' || request.signing === 'slightly-ahead') return true;
  return (
    request.contentType === 'application/x-www-form-urlencoded' &&
    new URLSearchParams(request.body).get('ssl_check') === '1'
  );
}

/** The nasty cases that once killed the process or hung, sent as they are to the built program too. */
export const NASTY_BODIES: readonly { label: string; body: string; contentType: string }[] = [
  { label: 'payload=null', body: 'payload=null', contentType: 'application/x-www-form-urlencoded' },
  { label: 'JSON null', body: 'null', contentType: 'application/json' },
  { label: 'JSON array', body: '[null,{"type":"block_actions"}]', contentType: 'application/json' },
  { label: 'JSON number', body: '42', contentType: 'application/json' },
  { label: 'JSON string', body: '"block_actions"', contentType: 'application/json' },
  { label: 'payload=[]', body: 'payload=%5B%5D', contentType: 'application/x-www-form-urlencoded' },
  { label: 'not JSON', body: '{"type":', contentType: 'application/json' },
  {
    label: 'deep nesting',
    body: `${'['.repeat(30_000)}${']'.repeat(30_000)}`,
    contentType: 'application/json',
  },
  {
    // Deliberately alike: one hostile envelope per entry, so a failure names the malformed field.
    label: 'a 100 KB string',
    body: `payload=${'x'.repeat(100_000)}`,
    contentType: 'application/x-www-form-urlencoded',
  },
  {
    label: 'block_actions with user null',
    body: `payload=${encodeURIComponent('{"type":"block_actions","user":null,"actions":[{"action_id":"approve","value":"x"}]}')}`,
    contentType: 'application/x-www-form-urlencoded',
  },
  {
    label: 'block_actions with actions [null]',
    body: `payload=${encodeURIComponent('{"type":"block_actions","user":{"id":"U2"},"actions":[null]}')}`,
    contentType: 'application/x-www-form-urlencoded',
  },
  {
    label: 'view_submission with view null',
    body: `payload=${encodeURIComponent('{"type":"view_submission","user":{"id":"U2"},"view":null}')}`,
    contentType: 'application/x-www-form-urlencoded',
  },
  {
    label: 'view_submission with response_urls null',
    body: `payload=${encodeURIComponent('{"type":"view_submission","user":{"id":"U2"},"view":{"callback_id":"tool_form"},"response_urls":null}')}`,
    contentType: 'application/x-www-form-urlencoded',
  },
];
