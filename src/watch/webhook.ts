import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { Logger } from '../log.js';

/** The largest Alarm Manager body read; a longer one gets 413 (a real alarm is well under 4 KB). */
export const MAX_WEBHOOK_BYTES = 64 * 1024;

/** An alarm as the bot shows it, from whatever shape the controller sent. */
export interface Alarm {
  /** What kind of alarm (its trigger id, or its text): equal keys within the flap window are one. */
  key: string;
  /** The alarm's name (its trigger or title), when the body gives one: what a flood's summary counts by. */
  name?: string;
  subject: string;
  detail?: string;
  mac?: string;
}

const text = z.string().trim().min(1).max(500).optional().catch(undefined);
const MAC = /^[0-9a-f]{2}([:-]?[0-9a-f]{2}){5}$/i;

/**
 * Alarm Manager's Custom Webhook body is not documented and can be customised (`custom_content`), so
 * it is read leniently: a JSON object, with the usual field names looked for at the top and one level down.
 */
const alarmBody = z.looseObject({});

/** The alarm in a body, or undefined with the reason when it is not one. */
export function parseAlarm(body: unknown): { alarm: Alarm } | { error: string } {
  const parsed = alarmBody.safeParse(body);
  if (!parsed.success || Array.isArray(body)) return { error: 'the body must be a JSON object' };
  const top = parsed.data as Record<string, unknown>;
  const nested = [top, ...Object.values(top).filter((v): v is Record<string, unknown> => isObject(v))];
  const pick = (...names: string[]) => {
    for (const record of nested)
      for (const name of names) {
        const value = text.parse(record[name]);
        if (value) return value;
      }
    return undefined;
  };
  const message = pick('message', 'msg', 'text', 'summary', 'description');
  const name = pick('alarm', 'title', 'name', 'event', 'trigger', 'key', 'type');
  const device = pick('device_name', 'deviceName', 'hostname', 'ap_name', 'sw_name', 'gw_name');
  const mac = pick('device_mac', 'mac', 'deviceMac', 'ap', 'sw', 'gw');
  if (!message && !name)
    return { error: 'the body names no alarm (no message, text, title, name or event field)' };
  return {
    alarm: {
      key: (name ?? message ?? 'alarm').toLowerCase().slice(0, 120) + (mac ? `@${mac.toLowerCase()}` : ''),
      ...(name ? { name } : {}),
      subject: device ?? name ?? 'UniFi alarm',
      ...(message ? { detail: message } : name && device ? { detail: name } : {}),
      ...(mac && MAC.test(mac) ? { mac: normaliseMac(mac) } : {}),
    },
  };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function normaliseMac(mac: string): string {
  const hex = mac.replace(/[^0-9a-f]/gi, '').toLowerCase();
  return hex.match(/../g)?.join(':') ?? mac.toLowerCase();
}

/**
 * The secret a request carries: `Authorization: Bearer <secret>` (Alarm Manager's bearer auth),
 * `Authorization: Basic` with the secret as password (its basic auth), or `X-Webhook-Secret`
 * (its custom headers).
 */
export function presentedSecret(req: IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  if (auth) {
    const [scheme, value] = auth.trim().split(/\s+/, 2);
    if (scheme?.toLowerCase() === 'bearer' && value) return value;
    if (scheme?.toLowerCase() === 'basic' && value) {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      return colon >= 0 ? decoded.slice(colon + 1) : decoded;
    }
  }
  const header = req.headers['x-webhook-secret'];
  return typeof header === 'string' ? header : undefined;
}

/** Constant-time comparison (no early exit on the first differing byte, nor on the length). */
export function secretMatches(presented: string | undefined, secret: string): boolean {
  if (presented === undefined) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(secret);
  const same = a.length === b.length;
  return timingSafeEqual(same ? a : b, b) && same;
}

/**
 * POST /webhooks/unifi: 401 before the body is read without the secret, 413 past
 * MAX_WEBHOOK_BYTES, 400 (logged) for a body that is not an alarm, 202 once taken.
 */
export function webhookHandler(options: {
  secret: string;
  logger: Logger;
  receive: (alarm: Alarm) => Promise<string>;
}): (req: IncomingMessage, res: ServerResponse) => void {
  const { secret, logger } = options;
  const answer = (res: ServerResponse, status: number, body: Record<string, unknown>, close = false) => {
    if (res.headersSent) return;
    res.writeHead(status, {
      'content-type': 'application/json',
      ...(close ? { connection: 'close' } : {}),
    });
    res.end(JSON.stringify(body));
  };
  return (req, res) => {
    if (!secretMatches(presentedSecret(req), secret)) {
      logger.warn({ remote: req.socket.remoteAddress }, 'webhook: refused a request without the secret');
      // Not read: the connection is closed after the answer.
      answer(res, 401, { error: 'unauthorized' }, true);
      req.destroy();
      return;
    }
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > MAX_WEBHOOK_BYTES) {
      answer(res, 413, { error: `the body is larger than ${MAX_WEBHOOK_BYTES} bytes` }, true);
      req.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > MAX_WEBHOOK_BYTES) {
        refused = true;
        answer(res, 413, { error: `the body is larger than ${MAX_WEBHOOK_BYTES} bytes` }, true);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', () => undefined);
    req.on('end', () => {
      if (refused) return;
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        logger.warn({ bytes: size }, 'webhook: the body is not JSON; refused with 400');
        return answer(res, 400, { error: 'the body must be JSON' });
      }
      const parsed = parseAlarm(body);
      if ('error' in parsed) {
        logger.warn({ reason: parsed.error }, 'webhook: the body is not an alarm; refused with 400');
        return answer(res, 400, { error: parsed.error });
      }
      options.receive(parsed.alarm).then(
        (outcome) => answer(res, 202, { outcome }),
        (error: unknown) => {
          logger.error({ err: error }, 'webhook: the alarm could not be handled');
          answer(res, 500, { error: 'the alarm could not be handled' });
        },
      );
    });
  };
}
