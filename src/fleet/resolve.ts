/**
 * From a checked consoles file to what a client needs: each console's address and key (read from
 * the environment or a file now, never from the consoles file), the cloud's key, and which
 * consoles and sites a Slack channel talks to.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import {
  type ChannelBinding,
  type ConsoleEntry,
  type ConsolesFile,
  ConsolesFileError,
  type ConsolesFileProblem,
} from './consoles-file.js';

/** How to reach one console, secrets included: keep it out of logs. */
export type ResolvedConnection =
  | {
      kind: 'local';
      url: string;
      apiKey: string;
      /** The PEM bundle read from ca_file, when given. */
      ca?: string;
      verifyTls: boolean;
    }
  | { kind: 'connector'; consoleId: string; cloudUrl: string; apiKey: string };

/** One console ready to connect to. */
export interface ResolvedConsole {
  name: string;
  labels: Readonly<Record<string, string>>;
  /** Classic site names to serve; undefined: every site. */
  sites: readonly string[] | undefined;
  connection: ResolvedConnection;
}

/** The environment a file's `*_env` names are looked up in. */
export type Env = Readonly<Record<string, string | undefined>>;

/** Reads a referenced file as text (tests pass their own). */
export type ReadText = (path: string) => string;

const readText: ReadText = (path) => readFileSync(path, 'utf8');

class SecretReader {
  readonly problems: ConsolesFileProblem[] = [];
  constructor(
    private readonly file: ConsolesFile,
    private readonly env: Env,
    private readonly read: ReadText,
  ) {}

  #pathOf(path: string): string {
    return isAbsolute(path) ? path : resolve(dirname(this.file.file), path);
  }

  /** The value of an env variable or the text of a file; on failure a problem naming only the reference. */
  key(ref: { env?: string; file?: string }, line: number | undefined, at: string): string | undefined {
    if (ref.env !== undefined) {
      const value = this.env[ref.env]?.trim();
      if (value === undefined || value === '') {
        this.problems.push({ line, path: `${at}.api_key_env`, rule: `${ref.env} is not set or empty` });
        return undefined;
      }
      return value;
    }
    if (ref.file !== undefined) return this.text(ref.file, line, `${at}.api_key_file`, true);
    return undefined;
  }

  text(path: string, line: number | undefined, at: string, trim: boolean): string | undefined {
    const full = this.#pathOf(path);
    let text: string;
    try {
      text = this.read(full);
    } catch {
      this.problems.push({ line, path: at, rule: `cannot read ${full}` });
      return undefined;
    }
    const value = trim ? text.trim() : text;
    if (value.trim() === '') {
      this.problems.push({ line, path: at, rule: `${full} is empty` });
      return undefined;
    }
    return value;
  }
}

function connectionOf(
  entry: ConsoleEntry,
  index: number,
  cloud: { url: string; apiKey: string | undefined } | undefined,
  secrets: SecretReader,
): ResolvedConnection | undefined {
  const at = `consoles[${index}] (${entry.name})`;
  const connection = entry.connection;
  if (connection === undefined) return undefined;
  if (connection.kind === 'connector') {
    if (cloud?.apiKey === undefined) return undefined;
    return { kind: 'connector', consoleId: connection.consoleId, cloudUrl: cloud.url, apiKey: cloud.apiKey };
  }
  const apiKey = secrets.key({ env: connection.apiKeyEnv, file: connection.apiKeyFile }, entry.line, at);
  const ca =
    connection.caFile === undefined
      ? undefined
      : secrets.text(connection.caFile, entry.line, `${at}.ca_file`, false);
  if (apiKey === undefined || (connection.caFile !== undefined && ca === undefined)) return undefined;
  return {
    kind: 'local',
    url: connection.url,
    apiKey,
    verifyTls: connection.verifyTls,
    ...(ca !== undefined ? { ca } : {}),
  };
}

/** The cloud's address and key, or undefined when the file names no cloud. Throws when the key cannot be read. */
export function resolveCloud(
  file: ConsolesFile,
  env: Env,
  read: ReadText = readText,
): { url: string; apiKey: string } | undefined {
  if (file.cloud === undefined) return undefined;
  const secrets = new SecretReader(file, env, read);
  const apiKey = secrets.key(
    { env: file.cloud.apiKeyEnv, file: file.cloud.apiKeyFile },
    file.cloud.line,
    'cloud',
  );
  if (apiKey === undefined) throw new ConsolesFileError(file.file, secrets.problems);
  return { url: file.cloud.url, apiKey };
}

/**
 * Every console with its secrets read. Throws ConsolesFileError naming each variable not set and
 * each file not readable (never a value). With discovery, pass the merged entries as `consoles`.
 */
export function resolveConsoles(
  file: ConsolesFile,
  env: Env,
  read: ReadText = readText,
  consoles: readonly ConsoleEntry[] = file.consoles,
): ResolvedConsole[] {
  const secrets = new SecretReader(file, env, read);
  const needsCloud = consoles.some((entry) => entry.connection?.kind === 'connector');
  let cloud: { url: string; apiKey: string | undefined } | undefined;
  if (file.cloud !== undefined && needsCloud) {
    const apiKey = secrets.key(
      { env: file.cloud.apiKeyEnv, file: file.cloud.apiKeyFile },
      file.cloud.line,
      'cloud',
    );
    cloud = { url: file.cloud.url, apiKey };
  }
  const resolved: ResolvedConsole[] = [];
  consoles.forEach((entry, index) => {
    const connection = connectionOf(entry, index, cloud, secrets);
    if (connection !== undefined)
      resolved.push({ name: entry.name, labels: entry.labels, sites: entry.sites, connection });
  });
  if (secrets.problems.length > 0) throw new ConsolesFileError(file.file, secrets.problems);
  return resolved;
}

/** What a channel is bound to, or undefined for a channel the file does not name. */
export function channelBinding(file: ConsolesFile, channelId: string): ChannelBinding | undefined {
  return file.channels.get(channelId);
}

/** One console, and one site of it or (site undefined) every site it serves. */
export interface ChannelTarget {
  console: string;
  site: string | undefined;
}

/** The consoles (and site) a binding reaches, in the order `consoles` lists them. */
export function bindingTargets(
  binding: ChannelBinding,
  consoles: readonly Pick<ConsoleEntry, 'name' | 'labels'>[],
): ChannelTarget[] {
  if (binding.kind === 'console') {
    const found = consoles.some((entry) => entry.name === binding.console);
    return found ? [{ console: binding.console, site: binding.site }] : [];
  }
  return consoles
    .filter((entry) => Object.entries(binding.labels).every(([key, value]) => entry.labels[key] === value))
    .map((entry) => ({ console: entry.name, site: undefined }));
}

/** A console Site Manager reported (`/v1/hosts`): its host id, its name, and (`/v1/sites`) its sites. */
export interface DiscoveredHost {
  id: string;
  name: string;
  /** Classic site names Site Manager lists for it; undefined when it listed none. */
  sites?: readonly string[];
}

/** The name a discovered host gets: its name as a slug (`Berlin HQ` → `berlin-hq`). */
export function hostSlug(name: string): string {
  const slug = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63);
  return slug === '' ? 'console' : slug;
}

/** One discovered console as served, with the host it is and the file entry that added to it. */
export interface DiscoveredMatch {
  console: ConsoleEntry;
  host: DiscoveredHost;
  /** The file's entry (by host id, else by name); undefined when the file says nothing of it. */
  overlay: ConsoleEntry | undefined;
}

/** `*` matches any run of characters; everything else is itself. */
function includePattern(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*');
  return new RegExp(`^${escaped}$`, 'i');
}

/** Whether the file's `include` (undefined: all) takes a console, by its name or host id. */
function included(file: ConsolesFile, name: string, id: string): boolean {
  if (file.include === undefined) return true;
  return file.include.some((each) => {
    const pattern = includePattern(each.pattern);
    return pattern.test(name) || pattern.test(id);
  });
}

/**
 * With `discover: site_manager`: one connector console per discovered host. An entry with a
 * `connector.console_id` picks its host by id and names it; any other host is named by hostSlug
 * (numbered when two share a name) and takes the labels and sites of the entry of that name.
 * `include` then keeps only the consoles it names. `unmatched` lists file entries no host answered
 * to (a typo, or a console removed); `unusedInclude` the include patterns that matched nothing.
 */
export function mergeDiscovered(
  file: ConsolesFile,
  hosts: readonly DiscoveredHost[],
): { consoles: ConsoleEntry[]; matches: DiscoveredMatch[]; unmatched: string[]; unusedInclude: string[] } {
  const byId = new Map<string, ConsoleEntry>();
  const byName = new Map<string, ConsoleEntry>();
  for (const entry of file.consoles) {
    if (entry.connection?.kind === 'connector') byId.set(entry.connection.consoleId, entry);
    else byName.set(entry.name, entry);
  }
  // Names an entry gives by id are taken first, so a host's slug never claims one.
  const used = new Set(hosts.flatMap((host) => byId.get(host.id)?.name ?? []));
  const overlays = new Set<ConsoleEntry>();
  const all = hosts.map((host): DiscoveredMatch => {
    let overlay = byId.get(host.id);
    let name = overlay?.name;
    if (name === undefined) {
      const base = hostSlug(host.name);
      name = base;
      for (let n = 2; used.has(name); n += 1) name = `${base}-${n}`;
      used.add(name);
      overlay = byName.get(name);
    }
    if (overlay) overlays.add(overlay);
    const console: ConsoleEntry = {
      name,
      line: overlay?.line,
      connection: { kind: 'connector', consoleId: host.id },
      labels: overlay?.labels ?? {},
      sites: overlay?.sites,
    };
    return { console, host, overlay };
  });
  const matches = all.filter((match) => included(file, match.console.name, match.host.id));
  const unmatched = file.consoles.filter((entry) => !overlays.has(entry)).map((entry) => entry.name);
  const unusedInclude = (file.include ?? [])
    .filter((each) => !all.some((m) => included({ ...file, include: [each] }, m.console.name, m.host.id)))
    .map((each) => each.pattern);
  return { consoles: matches.map((m) => m.console), matches, unmatched, unusedInclude };
}
