import { z } from 'zod';
import { blankToUndefined, httpUrl, LOOPBACK_HOSTS, readableFile } from './fields.js';

/** How an exported event is written inside its syslog message. */
export const AUDIT_SYSLOG_FORMATS = ['json', 'cef'] as const;

// The audit export's variables (src/audit/): a syslog receiver, a signed webhook, or both.
export const auditShape = {
  AUDIT_SYSLOG_URL: z.preprocess(
    blankToUndefined,
    z
      .string()
      .trim()
      .regex(/^(tcp|tls):\/\/[^/:\s]+:\d{1,5}$/, {
        message: 'must be tcp://host:port or tls://host:port (RFC 5424 over TCP or TLS)',
      })
      .optional(),
  ),
  AUDIT_SYSLOG_FORMAT: z.preprocess(
    (v) => (typeof v === 'string' ? blankToUndefined(v.trim().toLowerCase()) : v),
    z.enum(AUDIT_SYSLOG_FORMATS, { message: 'must be json or cef' }).default('json'),
  ),
  AUDIT_SYSLOG_CA_FILE: readableFile,
  AUDIT_WEBHOOK_URL: httpUrl,
  AUDIT_WEBHOOK_SECRET: z.preprocess(
    blankToUndefined,
    z.string().min(16, { message: 'must be at least 16 characters' }).optional(),
  ),
  AUDIT_EXPORT_REPLAY_FROM: z.preprocess(
    blankToUndefined,
    z
      .string()
      .trim()
      .regex(/^[1-9]\d{0,14}$/, { message: 'must be a journal event number (1 or more)' })
      .transform(Number)
      .optional(),
  ),
};

type AuditEnv = z.output<z.ZodObject<typeof auditShape>>;

export function auditRules(env: AuditEnv, issue: (path: string, message: string) => void): void {
  if (env.AUDIT_WEBHOOK_URL && !env.AUDIT_WEBHOOK_SECRET) {
    issue(
      'AUDIT_WEBHOOK_SECRET',
      'is required with AUDIT_WEBHOOK_URL (the receiver checks the signature with it)',
    );
  }
  if (env.AUDIT_WEBHOOK_SECRET && !env.AUDIT_WEBHOOK_URL) {
    issue('AUDIT_WEBHOOK_URL', 'is required with AUDIT_WEBHOOK_SECRET');
  }
  if (env.AUDIT_WEBHOOK_URL) {
    const url = new URL(env.AUDIT_WEBHOOK_URL);
    if (url.protocol !== 'https:' && !LOOPBACK_HOSTS.has(url.hostname)) {
      issue('AUDIT_WEBHOOK_URL', 'must be https:// (plain http only to this machine)');
    }
  }
  if (env.AUDIT_SYSLOG_CA_FILE && !env.AUDIT_SYSLOG_URL?.startsWith('tls://')) {
    issue('AUDIT_SYSLOG_CA_FILE', 'is used only with a tls:// AUDIT_SYSLOG_URL');
  }
  if (env.AUDIT_EXPORT_REPLAY_FROM !== undefined && !env.AUDIT_SYSLOG_URL && !env.AUDIT_WEBHOOK_URL) {
    issue('AUDIT_EXPORT_REPLAY_FROM', 'is used only with AUDIT_SYSLOG_URL or AUDIT_WEBHOOK_URL');
  }
}

/** Where journal events are exported; absent when neither receiver is configured. */
export function auditConfig(e: AuditEnv) {
  const syslog = e.AUDIT_SYSLOG_URL ? syslogTarget(e.AUDIT_SYSLOG_URL) : undefined;
  const webhook =
    e.AUDIT_WEBHOOK_URL && e.AUDIT_WEBHOOK_SECRET
      ? /** The secret signs each body (HMAC-SHA256); never log it. */
        { url: e.AUDIT_WEBHOOK_URL, secret: e.AUDIT_WEBHOOK_SECRET }
      : undefined;
  if (!syslog && !webhook) return undefined;
  return {
    ...(syslog
      ? {
          syslog: {
            ...syslog,
            format: e.AUDIT_SYSLOG_FORMAT,
            ...(e.AUDIT_SYSLOG_CA_FILE ? { caFile: e.AUDIT_SYSLOG_CA_FILE } : {}),
          },
        }
      : {}),
    ...(webhook ? { webhook } : {}),
    /** Export again from this journal event on (applied once: the store remembers it was). */
    ...(e.AUDIT_EXPORT_REPLAY_FROM !== undefined ? { replayFrom: e.AUDIT_EXPORT_REPLAY_FROM } : {}),
  };
}

function syslogTarget(url: string): { tls: boolean; host: string; port: number } {
  const found = /^(tcp|tls):\/\/([^/:\s]+):(\d{1,5})$/.exec(url);
  return { tls: found?.[1] === 'tls', host: found?.[2] ?? '', port: Number(found?.[3]) };
}

export type AuditConfig = NonNullable<ReturnType<typeof auditConfig>>;
