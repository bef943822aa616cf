/*
 * Secrets inside free text: token shapes, key material (PEM blocks, OpenVPN inline keys, WireGuard
 * keys) and the values of the bot's own configured secrets. One function, scrubSecrets, applied
 * to everything that leaves the bot as text (log lines, every face's messages, previews, the
 * journal); it sits here, below every layer, so Slack escaping and the log share it.
 */

/** What a scrubbed piece of key material becomes. */
export const SCRUBBED = '[redacted]';

/** Token shapes and key material that must never leave the bot, even inside free text. */
const SECRET_PATTERNS: [RegExp, string][] = [
  [/xox[abposr]-[A-Za-z0-9-]+/g, 'xox?-[redacted]'],
  [/xapp-[A-Za-z0-9-]+/g, 'xapp-[redacted]'],
  [/(TOKEN|unifises|csrf_token)=[^;\s"]+/gi, '$1=[redacted]'],
  // The password in a database URL (DATABASE_URL).
  [/(postgres(?:ql)?:\/\/[^:@/\s]*):[^@/\s]*@/gi, '$1:[redacted]@'],
  // PEM blocks: private keys, certificates, OpenVPN static keys ("-----BEGIN OpenVPN Static key V1-----").
  [/-----BEGIN ([A-Za-z0-9 ]{1,64})-----[\s\S]*?(?:-----END \1-----|$)/g, '-----BEGIN $1-----[redacted]'],
  // An .ovpn file's inline key material (<key>, <tls-auth>, <tls-crypt>, <secret>, <pkcs12>).
  [/<(key|tls-auth|tls-crypt|tls-crypt-v2|secret|pkcs12)>[\s\S]*?(?:<\/\1>|$)/gi, '<$1>[redacted]</$1>'],
  // A WireGuard configuration's keys (PrivateKey = …, PresharedKey = …).
  [/\b(PrivateKey|PresharedKey)([ \t]*=[ \t]*)[^\s"\\]+/gi, '$1$2[redacted]'],
];

const BASE64 = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/')
  BASE64[c.charCodeAt(0)] = 1;
const KEY_LAST = new Uint8Array(128);
for (const c of 'AEIMQUYcgkosw048') KEY_LAST[c.charCodeAt(0)] = 1;
const isBase64 = (code: number) => code < 128 && BASE64[code] === 1;
const EQUALS = 0x3d;

/**
 * A bare WireGuard key anywhere (a public key is shown as masked too: it cannot be told apart):
 * 32 bytes in base64 (43 characters, the last one's low bits zero, then one `=`), with no base64
 * character before it and none, nor `=`, after it. Found from each
 * `=` backwards rather than by a regular expression with a lookbehind, which tried every position:
 * the same matches (a test holds them equal to that expression's), but a 33 MB topology export, full
 * of `key="…"`, is scanned in milliseconds instead of a quarter of a second.
 */
function scrubWireguardKeys(text: string): string {
  let at = text.indexOf('=', 43);
  if (at < 0) return text;
  let out = '';
  let copied = 0;
  while (at >= 0) {
    const next = at + 1 < text.length ? text.charCodeAt(at + 1) : -1;
    const last = text.charCodeAt(at - 1);
    if (last < 128 && KEY_LAST[last] === 1 && next !== EQUALS && !isBase64(next)) {
      const start = at - 43;
      let run = at - 2;
      while (run >= start && isBase64(text.charCodeAt(run))) run--;
      if (run < start && (start === 0 || !isBase64(text.charCodeAt(start - 1)))) {
        out += text.slice(copied, start) + SCRUBBED;
        copied = at + 1;
      }
    }
    at = text.indexOf('=', at + 1);
  }
  return copied === 0 ? text : out + text.slice(copied);
}

// Cheap first look: a string with none of these cannot match a pattern above.
const MAYBE_SECRET =
  /xox|xapp-|token=|unifises=|postgres|-----BEGIN|<(?:key|tls|secret|pkcs12)|presharedkey|privatekey|=/i;

/**
 * Values shorter than this are not scrubbed from free text: they would match ordinary words
 * ("admin" in every sentence). They are still never logged or shown by name (docs/decisions.md).
 */
export const MIN_SCRUBBED_VALUE = 6;

let configured: string[] = [];

/**
 * The values of the bot's configured secrets (API key, password, tokens, signing secret, MCP
 * token secrets, journal key, database password), replaced wherever they appear in text that
 * leaves the bot, whatever its source: a controller error echoing the API key is scrubbed like a
 * token the bot knows the shape of. Also their URL-encoded and JSON-escaped forms. Set once at
 * start (main.ts); a later call replaces the list.
 */
export function setConfiguredSecrets(values: readonly (string | undefined)[]): void {
  const forms = new Set<string>();
  for (const value of values) {
    if (value === undefined || value.length < MIN_SCRUBBED_VALUE) continue;
    forms.add(value);
    forms.add(encodeURIComponent(value));
    forms.add(JSON.stringify(value).slice(1, -1));
  }
  // Longest first, so a secret containing another is replaced whole.
  configured = [...forms].sort((a, b) => b.length - a.length);
  shortestConfigured = configured.at(-1)?.length ?? Number.POSITIVE_INFINITY;
}

let shortestConfigured = Number.POSITIVE_INFINITY;

/** Replaces token-shaped substrings, key material and configured secret values. */
export function scrubSecrets(text: string): string {
  let out = text;
  // Most strings of a large result (MACs, IPs, short names) are shorter than any configured secret.
  if (out.length >= shortestConfigured) {
    for (const value of configured) if (out.includes(value)) out = out.split(value).join(SCRUBBED);
  }
  if (!MAYBE_SECRET.test(out)) return out;
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  out = scrubWireguardKeys(out);
  return out;
}
