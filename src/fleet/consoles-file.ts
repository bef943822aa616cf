/**
 * CONSOLES_FILE: the consoles one bot serves, how it reaches each (its own address, or the cloud
 * connector), their labels, and which Slack channel talks to which console, site or label. Secrets
 * are named, never written: an environment variable or a file holds each key. Parsing is pure:
 * text in, a checked file out, or one error naming the file, the line and the broken rule.
 */
import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import { z } from 'zod';
import { ConfigError } from '../errors.js';

/** One problem found in a consoles file: where (line, 1-based, when known; the path) and the rule. */
export interface ConsolesFileProblem {
  line: number | undefined;
  /** `consoles[2].url`; empty for the whole file. */
  path: string;
  rule: string;
}

/** A consoles file that does not parse, breaks a rule, or names a secret that cannot be read. */
export class ConsolesFileError extends ConfigError {
  constructor(
    readonly file: string,
    readonly problems: readonly ConsolesFileProblem[],
  ) {
    super(problems.map((p) => ({ field: `${file}${where(p)}`, rule: p.rule })));
    this.name = 'ConsolesFileError';
    this.message = `CONSOLES_FILE ${file} is invalid:\n${problems.map((p) => `  ${where(p).slice(1)}: ${p.rule}`).join('\n')}`;
  }
}

function where(problem: ConsolesFileProblem): string {
  const line = problem.line === undefined ? '' : `line ${problem.line}`;
  const path = problem.path === '' ? '' : problem.path;
  return `:${[line, path].filter((part) => part !== '').join(', ') || 'file'}`;
}

/** How the bot reaches a console. */
export type ConsoleConnection =
  | {
      kind: 'local';
      url: string;
      /** The environment variable holding the API key, or */
      apiKeyEnv?: string;
      /** the file holding it (relative paths are relative to the consoles file). */
      apiKeyFile?: string;
      /** A PEM bundle to trust for this console's certificate. */
      caFile?: string;
      verifyTls: boolean;
    }
  | { kind: 'connector'; consoleId: string };

/** One console as the file lists it. */
export interface ConsoleEntry {
  name: string;
  /** Line of the entry in the file, for later messages (a variable not set…). */
  line: number | undefined;
  /**
   * Undefined only with `discover: site_manager`, where entries add labels and sites to discovered
   * consoles; there a `connector` entry picks its host by id (and names it), others by name.
   */
  connection: ConsoleConnection | undefined;
  labels: Readonly<Record<string, string>>;
  /** Classic site names to serve; undefined: every site. */
  sites: readonly string[] | undefined;
}

/** What a Slack channel is bound to: a console, one of its sites, or every console with these labels. */
export type ChannelBinding =
  | { kind: 'console'; console: string; site?: string }
  | { kind: 'label'; labels: Readonly<Record<string, string>> };

/** The shared Site Manager key (connector consoles, discovery) and where the cloud is. */
export interface CloudSettings {
  url: string;
  apiKeyEnv?: string;
  apiKeyFile?: string;
  /** The bot's budget of requests through the cloud with this key, shared by every replica. */
  requestsPerMinute?: number;
  line: number | undefined;
}

/** A checked consoles file. */
export interface ConsolesFile {
  /** The path it was read from (messages name it; relative secret files resolve against it). */
  file: string;
  cloud: CloudSettings | undefined;
  discover: 'site_manager' | undefined;
  /**
   * With discovery: the discovered consoles to serve, by name or host id (`*` matches any run of
   * characters); undefined: every one. Each has the line it is on.
   */
  include: readonly { pattern: string; line: number | undefined }[] | undefined;
  consoles: readonly ConsoleEntry[];
  channels: ReadonlyMap<string, ChannelBinding>;
  /** Each console's circuit breaker, where the file changes its defaults (5 failures, 30 s). */
  breaker: { failures?: number; coolDownMs?: number };
}

/** Where Site Manager and the connector live unless the file says otherwise. */
export const DEFAULT_CLOUD_URL = 'https://api.ui.com';

/** Keys that would hold a secret inline; refused wherever they appear. */
const INLINE_SECRET_KEYS = new Set(['api_key', 'apikey', 'api-key', 'key', 'password', 'secret', 'token']);
const INLINE_RULE =
  'secrets are never written in the file: use api_key_env (an environment variable name) or api_key_file (a file path)';

const slug = z
  .string({ error: 'must be a string' })
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be a slug: lower-case letters, digits and dashes, up to 63');
const envName = z
  .string({ error: 'must be a string' })
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name (letters, digits, _)');
const path = z.string({ error: 'must be a string' }).min(1, 'must be a file path');
const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
const labels = z.record(
  z.string().regex(/^[a-z][a-z0-9_.-]{0,62}$/, 'label names are lower-case words'),
  z.string({ error: 'label values must be strings (quote numbers)' }),
  { error: 'must be a map of label names to strings' },
);
const siteName = z.string({ error: 'must be a string' }).min(1, 'must name a site');

const consoleSchema = z.strictObject(
  {
    name: slug,
    url: httpUrl.optional(),
    api_key_env: envName.optional(),
    api_key_file: path.optional(),
    ca_file: path.optional(),
    verify_tls: z.boolean({ error: 'must be true or false' }).optional(),
    connector: z
      .strictObject({ console_id: z.string().min(1, 'must be the Site Manager host id') })
      .optional(),
    labels: labels.optional(),
    sites: z
      .array(siteName, { error: 'must be a list of site names' })
      .min(1, 'lists at least one site')
      .optional(),
  },
  { error: 'each console must be a map' },
);

const bindingSchema = z.union(
  [
    z.strictObject({ console: slug, site: siteName.optional() }),
    z.strictObject({
      label: labels.refine((map) => Object.keys(map).length > 0, 'names at least one label'),
    }),
  ],
  { error: 'must be { console: name }, { console: name, site: name } or { label: { name: value } }' },
);

const fileSchema = z.strictObject(
  {
    cloud: z
      .strictObject({
        url: httpUrl.optional(),
        api_key_env: envName.optional(),
        api_key_file: path.optional(),
        requests_per_minute: z
          .number({ error: 'must be a number of requests' })
          .int('must be a whole number')
          .min(1, 'must be at least 1')
          .optional(),
      })
      .optional(),
    discover: z.literal('site_manager', { error: 'the only discovery is site_manager' }).optional(),
    include: z
      .array(z.string({ error: 'must be a console name or host id' }).min(1, 'must not be empty'), {
        error: 'must be a list of console names or host ids',
      })
      .min(1, 'lists at least one console')
      .optional(),
    consoles: z.array(consoleSchema, { error: 'must be a list of consoles' }).optional(),
    channels: z
      .record(
        z.string().regex(/^[CGD][A-Z0-9]{2,}$/, 'must be a Slack channel id (C…, G… or D…)'),
        bindingSchema,
      )
      .optional(),
    breaker: z
      .strictObject(
        {
          failures: z
            .number({ error: 'must be a number of failures' })
            .int('must be a whole number')
            .min(1, 'must be at least 1')
            .max(50, 'must be at most 50')
            .optional(),
          cool_down_seconds: z
            .number({ error: 'must be a number of seconds' })
            .int('must be a whole number')
            .min(5, 'must be at least 5')
            .max(3600, 'must be at most 3600')
            .optional(),
        },
        { error: 'must be a map with failures and cool_down_seconds' },
      )
      .optional(),
  },
  { error: 'must be a map with consoles (and cloud, discover, channels, breaker)' },
);

type RawFile = z.infer<typeof fileSchema>;
type RawConsole = z.infer<typeof consoleSchema>;
type Path = readonly (string | number)[];

function pathText(path: Path): string {
  let text = '';
  for (const part of path) text += typeof part === 'number' ? `[${part}]` : text === '' ? part : `.${part}`;
  return text;
}

/** The YAML node at `path`, or the nearest ancestor that exists. */
function nodeAt(root: Node | null, path: Path): Node | null {
  let node = root;
  for (const part of path) {
    let next: unknown;
    if (isMap(node)) next = node.items.find((pair) => isScalar(pair.key) && pair.key.value === part)?.value;
    else if (isSeq(node) && typeof part === 'number') next = node.items[part];
    if (next === undefined || next === null || typeof next !== 'object') return node;
    node = next as Node;
  }
  return node;
}

/** The key node of `key` in the map at `path` (for a key that should not be there). */
function keyAt(root: Node | null, path: Path, key: string): Node | null {
  const map = nodeAt(root, path);
  if (!isMap(map)) return map;
  const pair = map.items.find((each) => isScalar(each.key) && each.key.value === key);
  return isScalar(pair?.key) ? pair.key : map;
}

class Locator {
  constructor(
    private readonly root: Node | null,
    private readonly lines: LineCounter,
  ) {}

  lineOfOffset(offset: number): number {
    return this.lines.linePos(offset).line;
  }

  line(node: Node | null): number | undefined {
    const start = node?.range?.[0];
    return start === undefined ? undefined : this.lineOfOffset(start);
  }

  at(path: Path): number | undefined {
    return this.line(nodeAt(this.root, path));
  }

  key(path: Path, key: string): number | undefined {
    return this.line(keyAt(this.root, path, key));
  }

  /** Every key that would hold a secret inline, anywhere in the document. */
  inlineSecrets(): ConsolesFileProblem[] {
    const found: ConsolesFileProblem[] = [];
    const visit = (node: unknown, path: (string | number)[]) => {
      if (isMap(node)) {
        for (const pair of node.items) {
          const key = isScalar(pair.key) ? String(pair.key.value) : '';
          if (INLINE_SECRET_KEYS.has(key.toLowerCase()))
            found.push({
              line: this.line(pair.key as Node),
              path: pathText([...path, key]),
              rule: INLINE_RULE,
            });
          else visit(pair.value, [...path, key]);
        }
      } else if (isSeq(node)) {
        for (const [index, item] of node.items.entries()) visit(item, [...path, index]);
      }
    };
    visit(this.root, []);
    return found;
  }
}

function valueAt(data: unknown, path: Path): unknown {
  let value = data;
  for (const part of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string | number, unknown>)[part];
  }
  return value;
}

function zodProblems(error: z.ZodError, data: unknown, locate: Locator): ConsolesFileProblem[] {
  const problems: ConsolesFileProblem[] = [];
  for (const issue of error.issues) {
    const path = issue.path.filter((part): part is string | number => typeof part !== 'symbol');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        if (INLINE_SECRET_KEYS.has(key.toLowerCase())) continue;
        problems.push({
          line: locate.key(path, key),
          path: pathText([...path, key]),
          rule: 'is not a known key',
        });
      }
      continue;
    }
    const missing = issue.code === 'invalid_type' && valueAt(data, path) === undefined;
    // A record key's own rule is inside the issue; the outer message only says "invalid key".
    const rule = issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message;
    problems.push({
      line: locate.at(path),
      path: pathText(path),
      rule: missing ? 'is required' : rule,
    });
  }
  return problems;
}

/** The connection of one entry, or the rule it breaks (with the key to point at). */
function connectionOf(
  entry: RawConsole,
  discover: boolean,
): { connection: ConsoleConnection | undefined } | { key: string; rule: string } {
  const local = entry.url !== undefined;
  const viaCloud = entry.connector !== undefined;
  const keyRefs = [entry.api_key_env, entry.api_key_file].filter((ref) => ref !== undefined).length;
  const localOnly = ['api_key_env', 'api_key_file', 'ca_file', 'verify_tls'].find(
    (key) => entry[key as keyof RawConsole] !== undefined,
  );
  if (discover) {
    const key = local ? 'url' : localOnly;
    if (key !== undefined)
      return {
        key,
        rule: 'with discover: site_manager, entries only add labels and sites to discovered consoles (a connector console_id picks one by id)',
      };
    if (viaCloud) return { connection: { kind: 'connector', consoleId: entry.connector?.console_id ?? '' } };
    return { connection: undefined };
  }
  if (local && viaCloud) return { key: 'connector', rule: 'a console has a url or a connector, not both' };
  if (viaCloud) {
    if (localOnly !== undefined)
      return {
        key: localOnly,
        rule: 'a connector console uses the cloud key (cloud.api_key_env or cloud.api_key_file)',
      };
    return { connection: { kind: 'connector', consoleId: entry.connector?.console_id ?? '' } };
  }
  if (!local) return { key: 'name', rule: 'needs a url (with api_key_env or api_key_file) or a connector' };
  if (keyRefs !== 1) return { key: 'url', rule: 'needs exactly one of api_key_env and api_key_file' };
  if (entry.verify_tls === false && entry.ca_file !== undefined)
    return { key: 'ca_file', rule: 'ca_file means nothing with verify_tls: false' };
  return {
    connection: {
      kind: 'local',
      url: (entry.url ?? '').replace(/\/+$/, ''),
      ...(entry.api_key_env !== undefined ? { apiKeyEnv: entry.api_key_env } : {}),
      ...(entry.api_key_file !== undefined ? { apiKeyFile: entry.api_key_file } : {}),
      ...(entry.ca_file !== undefined ? { caFile: entry.ca_file } : {}),
      verifyTls: entry.verify_tls ?? true,
    },
  };
}

function bindingOf(raw: NonNullable<RawFile['channels']>[string]): ChannelBinding {
  if ('label' in raw) return { kind: 'label', labels: raw.label };
  return raw.site === undefined
    ? { kind: 'console', console: raw.console }
    : { kind: 'console', console: raw.console, site: raw.site };
}

function checkChannels(
  channels: ReadonlyMap<string, ChannelBinding>,
  consoles: readonly ConsoleEntry[],
  discover: boolean,
  locate: Locator,
): ConsolesFileProblem[] {
  const problems: ConsolesFileProblem[] = [];
  // The first entry of a name counts; a later one is already refused as a duplicate.
  const byName = new Map<string, ConsoleEntry>();
  for (const entry of consoles) if (!byName.has(entry.name)) byName.set(entry.name, entry);
  for (const [channel, binding] of channels) {
    const path = ['channels', channel];
    if (binding.kind === 'label') {
      const matches = consoles.some((entry) =>
        Object.entries(binding.labels).every(([key, value]) => entry.labels[key] === value),
      );
      if (!matches)
        problems.push({
          line: locate.at([...path, 'label']),
          path: `channels.${channel}.label`,
          rule: 'no console has these labels',
        });
      continue;
    }
    const entry = byName.get(binding.console);
    // With discovery, consoles the file does not list may still appear; the check waits for them.
    if (entry === undefined && !discover) {
      problems.push({
        line: locate.at([...path, 'console']),
        path: `channels.${channel}.console`,
        rule: `no console is named ${binding.console}`,
      });
    } else if (
      binding.site !== undefined &&
      entry?.sites !== undefined &&
      !entry.sites.includes(binding.site)
    ) {
      problems.push({
        line: locate.at([...path, 'site']),
        path: `channels.${channel}.site`,
        rule: `${binding.console} does not serve site ${binding.site} (its sites list leaves it out)`,
      });
    }
  }
  return problems;
}

function entriesOf(raw: RawFile, locate: Locator) {
  const problems: ConsolesFileProblem[] = [];
  const discover = raw.discover !== undefined;
  const consoles: ConsoleEntry[] = [];
  const seen = new Map<string, number>();
  (raw.consoles ?? []).forEach((entry, index) => {
    const path = ['consoles', index];
    const line = locate.at(path);
    if (seen.has(entry.name)) {
      problems.push({
        line: locate.at([...path, 'name']),
        path: pathText([...path, 'name']),
        rule: `${entry.name} is already the name of consoles[${seen.get(entry.name)}]`,
      });
    }
    seen.set(entry.name, index);
    const outcome = connectionOf(entry, discover);
    if ('rule' in outcome) {
      problems.push({
        line: locate.key(path, outcome.key),
        path: pathText([...path, outcome.key]),
        rule: outcome.rule,
      });
      return;
    }
    if (outcome.connection?.kind === 'connector' && raw.cloud === undefined)
      problems.push({
        line: locate.key(path, 'connector'),
        path: pathText([...path, 'connector']),
        rule: 'a connector console needs cloud: { api_key_env } at the top',
      });
    consoles.push({
      name: entry.name,
      line,
      connection: outcome.connection,
      labels: entry.labels ?? {},
      sites: entry.sites,
    });
  });
  return { consoles, problems };
}

function cloudOf(
  raw: RawFile,
  locate: Locator,
): { cloud: CloudSettings | undefined; problems: ConsolesFileProblem[] } {
  const problems: ConsolesFileProblem[] = [];
  if (raw.cloud === undefined) {
    if (raw.discover !== undefined)
      problems.push({
        line: locate.at(['discover']),
        path: 'discover',
        rule: 'discovery needs cloud: { api_key_env } at the top',
      });
    return { cloud: undefined, problems };
  }
  const {
    url,
    api_key_env: apiKeyEnv,
    api_key_file: apiKeyFile,
    requests_per_minute: requestsPerMinute,
  } = raw.cloud;
  if ((apiKeyEnv === undefined) === (apiKeyFile === undefined))
    problems.push({
      line: locate.at(['cloud']),
      path: 'cloud',
      rule: 'needs exactly one of api_key_env and api_key_file',
    });
  const cloud: CloudSettings = {
    url: (url ?? DEFAULT_CLOUD_URL).replace(/\/+$/, ''),
    line: locate.at(['cloud']),
    ...(apiKeyEnv !== undefined ? { apiKeyEnv } : {}),
    ...(apiKeyFile !== undefined ? { apiKeyFile } : {}),
    ...(requestsPerMinute !== undefined ? { requestsPerMinute } : {}),
  };
  return { cloud, problems };
}

/**
 * Parses and checks a consoles file. `file` names it in messages and anchors relative paths.
 * Throws ConsolesFileError listing every problem, each with its line.
 */
export function parseConsolesFile(text: string, file: string): ConsolesFile {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const locate = new Locator(doc.contents, lines);
  if (doc.errors.length > 0) {
    // The first line of the parser's message only: later lines quote the source, which may hold a secret.
    const problems = doc.errors.map((error) => ({
      line: locate.lineOfOffset(error.pos[0]),
      path: '',
      rule: `not YAML: ${error.message.split('\n')[0] ?? error.code}`,
    }));
    throw new ConsolesFileError(file, problems);
  }
  if (doc.contents === null)
    throw new ConsolesFileError(file, [{ line: 1, path: '', rule: 'the file is empty' }]);
  const inline = locate.inlineSecrets();
  const data: unknown = doc.toJS({ maxAliasCount: 100 });
  const parsed = fileSchema.safeParse(data);
  const problems = [...inline, ...(parsed.success ? [] : zodProblems(parsed.error, data, locate))];
  if (!parsed.success || problems.length > 0) throw new ConsolesFileError(file, sortProblems(problems));
  const raw = parsed.data;
  const { cloud, problems: cloudProblems } = cloudOf(raw, locate);
  const { consoles, problems: entryProblems } = entriesOf(raw, locate);
  const channels = new Map(
    Object.entries(raw.channels ?? {}).map(([id, binding]) => [id, bindingOf(binding)]),
  );
  const discover = raw.discover;
  if (raw.include !== undefined && discover === undefined)
    entryProblems.push({
      line: locate.at(['include']),
      path: 'include',
      rule: 'include picks among discovered consoles: it needs discover: site_manager',
    });
  const include = raw.include?.map((pattern, index) => ({ pattern, line: locate.at(['include', index]) }));
  if (consoles.length === 0 && discover === undefined && entryProblems.length === 0)
    entryProblems.push({
      line: locate.at(['consoles']),
      path: 'consoles',
      rule: 'lists no console (or set discover: site_manager)',
    });
  const all = [
    ...cloudProblems,
    ...entryProblems,
    ...checkChannels(channels, consoles, discover !== undefined, locate),
  ];
  if (all.length > 0) throw new ConsolesFileError(file, sortProblems(all));
  const breaker = {
    ...(raw.breaker?.failures !== undefined ? { failures: raw.breaker.failures } : {}),
    ...(raw.breaker?.cool_down_seconds !== undefined
      ? { coolDownMs: raw.breaker.cool_down_seconds * 1000 }
      : {}),
  };
  return { file, cloud, discover, include, consoles, channels, breaker };
}

function sortProblems(problems: ConsolesFileProblem[]): ConsolesFileProblem[] {
  return [...problems].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
}
