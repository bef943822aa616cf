import { inspect } from 'node:util';
import { type DestinationStream, type Logger, pino } from 'pino';
import type { Config, LogLevel } from './config.js';
import { scrubSecrets, setConfiguredSecrets } from './lib/secret-text.js';

export type { Logger } from 'pino';

/**
 * Secret-bearing keys, at any of the depths we log objects at. pino's redact paths take one
 * wildcard per segment, so each key is listed at the top level and up to three levels down.
 */
const SECRET_KEYS = [
  'token',
  'botToken',
  'appToken',
  'signingSecret',
  'apiKey',
  'password',
  'cookie',
  'authorization',
  'x-api-key',
  'x-csrf-token',
  'x-updated-csrf-token',
  'set-cookie',
  'csrfToken',
];

// Hyphenated keys need pino's bracket notation, or they are silently never matched.
const segment = (key: string) => (/^[A-Za-z_]\w*$/.test(key) ? `.${key}` : `["${key}"]`);
const REDACT_PATHS = SECRET_KEYS.flatMap((key) =>
  ['', '*', '*.*', '*.*.*'].map((prefix) =>
    prefix ? `${prefix}${segment(key)}` : segment(key).replace(/^\./, ''),
  ),
);

// The one scrubbing of free text (token shapes, key material, configured secret values).
export { scrubSecrets } from './lib/secret-text.js';

/**
 * The values of every configured secret (API key, password, Slack tokens and signing secret, MCP
 * token secrets, journal key, database password): main.ts hands them to setConfiguredSecrets, so
 * they are scrubbed from any text that leaves the bot, whatever its source.
 */
export function configuredSecretValues(config: Config): string[] {
  const values = [
    config.gateway.apiKey,
    config.gateway.password,
    config.slack.botToken,
    config.slack.appToken,
    config.slack.signingSecret,
    config.store.journalKey,
    ...config.mcp.tokens.map((t) => t.secret),
    config.watch?.webhookSecret,
    config.audit?.webhook?.secret,
    config.onCall?.token,
    config.identity?.clientSecret,
  ];
  const url = config.store.database?.url;
  if (url) {
    try {
      const password = decodeURIComponent(new URL(url).password);
      values.push(password);
    } catch {
      // A URL the store could not use either: the URL shape above still hides its password.
    }
  }
  return values.filter((v): v is string => typeof v === 'string' && v !== '');
}

/** From now on, scrubSecrets (every log line, every face's text) removes this configuration's secrets. */
export function scrubConfiguredSecrets(config: Config): void {
  setConfiguredSecrets(configuredSecretValues(config));
}

/** Builds the process logger: JSON lines, secrets redacted by key and by shape. */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      hooks: {
        logMethod(args, method) {
          const scrubbed = args.map((a) => (typeof a === 'string' ? scrubSecrets(a) : a)) as typeof args;
          method.apply(this, scrubbed);
        },
        // The whole line, last: a configured secret or key material in any field is scrubbed too.
        streamWrite: scrubSecrets,
      },
      serializers: {
        err: (err: unknown) => {
          // A thrown string, object or null must not make the log call itself throw.
          if (!(err instanceof Error)) {
            return {
              message: scrubSecrets(
                inspect(err, { depth: 2, breakLength: Number.POSITIVE_INFINITY }).slice(0, 2000),
              ),
            };
          }
          const s = pino.stdSerializers.err(err);
          return {
            ...s,
            message: scrubSecrets(s.message),
            stack: s.stack ? scrubSecrets(s.stack) : undefined,
          };
        },
      },
    },
    destination ?? pino.destination(2),
  );
}

const LEVEL_NAMES: Record<number, string> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warning',
  50: 'error',
  60: 'fatal',
};

// Fields a person at a terminal does not need on every line.
const UNSHOWN = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'component', 'err']);

function fieldText(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

/**
 * One pino JSON line as a person reads it: `warning: <message> (key=value …)`, with a logged
 * error's stack indented below. Anything that is not a pino line is passed through unchanged.
 */
export function readableLogLine(json: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const level = typeof record.level === 'number' ? (LEVEL_NAMES[record.level] ?? 'log') : 'log';
  const message = typeof record.msg === 'string' ? record.msg : '';
  const fields = Object.entries(record)
    .filter(([key, value]) => !UNSHOWN.has(key) && value !== undefined)
    .map(([key, value]) => `${key}=${fieldText(value)}`);
  const lines = [`${level}: ${message}${fields.length > 0 ? ` (${fields.join(', ')})` : ''}`];
  const err = record.err as { type?: unknown; message?: unknown; stack?: unknown } | undefined;
  if (err !== undefined && err !== null) {
    const detail = typeof err.stack === 'string' ? err.stack : `${String(err.type)}: ${String(err.message)}`;
    lines.push(...detail.split('\n').map((line) => `    ${line.trim()}`));
  }
  return `${scrubSecrets(lines.join('\n'))}\n`;
}

/**
 * A pino destination for the console: readable lines on `stream` rather than JSON. pino has
 * redacted secret keys and scrubbed messages before a line reaches it; the text is scrubbed again.
 */
export function readableLogDestination(stream: NodeJS.WritableStream): DestinationStream {
  return { write: (line: string) => stream.write(readableLogLine(line)) };
}

/** A logger that drops everything; for tests and tools run outside the bot. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
