import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect as connectTcp, isIP, type Socket } from 'node:net';
import { hostname } from 'node:os';
import { connect as connectTls } from 'node:tls';
import got from 'got';
import { BotError } from '../errors.js';
import type { ExportEvent } from './export-event.js';
import { octetFrame, type SyslogFormat, syslogMessage } from './formats.js';

/** A receiver did not take a batch of events; the exporter keeps its place and tries again later. */
export class AuditExportError extends BotError {
  readonly code = 'export_failed';
}

/** Where exported events go: each sink keeps its own place in the journal. */
export interface ExportSink {
  /** `syslog` or `webhook`: the name its place is kept under. */
  readonly name: string;
  /** Resolves once the receiver has the whole batch; rejects with AuditExportError otherwise. */
  send(events: readonly ExportEvent[]): Promise<void>;
  close(): Promise<void>;
}

export interface SyslogSinkOptions {
  host: string;
  port: number;
  tls: boolean;
  format: SyslogFormat;
  caFile?: string;
  version: string;
  /**
   * TCP says nothing about what the receiver read: a batch counts as delivered once it is written
   * and the connection is still up this long after. A receiver that drops the connection sooner
   * gets the batch again on the next one (at least once; the chain link lets it drop repeats).
   */
  settleMs?: number;
  connectTimeoutMs?: number;
}

/** RFC 5424 messages over one TCP or TLS connection, opened on demand and again after a failure. */
export class SyslogSink implements ExportSink {
  readonly name = 'syslog';
  private socket: Socket | undefined;
  private broken: Error | undefined;
  private readonly header = {
    hostname: hostname(),
    appName: 'netops-bot',
    procId: String(process.pid),
    version: '',
  };

  constructor(private readonly options: SyslogSinkOptions) {
    this.header.version = options.version;
  }

  async send(events: readonly ExportEvent[]): Promise<void> {
    const socket = await this.connection();
    const text = events.map((e) => octetFrame(syslogMessage(e, this.options.format, this.header))).join('');
    await new Promise<void>((resolve, reject) => {
      socket.write(text, 'utf8', (error) => (error ? reject(this.failed(error)) : resolve()));
    });
    await new Promise((resolve) => setTimeout(resolve, this.options.settleMs ?? 1000));
    if (this.broken || socket.destroyed) {
      throw this.failed(this.broken ?? new Error('the connection closed'));
    }
  }

  async close(): Promise<void> {
    const socket = this.socket;
    this.socket = undefined;
    if (!socket || socket.destroyed) return;
    await new Promise<void>((resolve) => {
      socket.end(() => resolve());
      setTimeout(() => {
        socket.destroy();
        resolve();
      }, 1000).unref();
    });
  }

  private failed(error: Error): AuditExportError {
    this.socket?.destroy();
    this.socket = undefined;
    const where = `${this.options.tls ? 'tls' : 'tcp'}://${this.options.host}:${this.options.port}`;
    return new AuditExportError(`the syslog receiver at ${where} did not take the events: ${error.message}`);
  }

  private async connection(): Promise<Socket> {
    if (this.socket && !this.socket.destroyed && !this.broken) return this.socket;
    this.socket?.destroy();
    this.broken = undefined;
    const { host, port } = this.options;
    const socket = this.options.tls
      ? connectTls({
          host,
          port,
          ...(isIP(host) === 0 ? { servername: host } : {}),
          ...(this.options.caFile ? { ca: readFileSync(this.options.caFile) } : {}),
        })
      : connectTcp({ host, port });
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 10_000);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('no connection within the timeout')),
        this.options.connectTimeoutMs ?? 5000,
      );
      socket.once(this.options.tls ? 'secureConnect' : 'connect', () => {
        clearTimeout(timer);
        resolve();
      });
      socket.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    }).catch((error: Error) => {
      socket.destroy();
      throw this.failed(error);
    });
    // Whatever the receiver says back is not part of the protocol; a close or an error marks the
    // connection broken, so the batch in flight is not counted as delivered.
    socket.on('data', () => {});
    socket.on('error', (error) => {
      this.broken = error;
    });
    socket.on('close', () => {
      this.broken ??= new Error('the receiver closed the connection');
    });
    this.socket = socket;
    return socket;
  }
}

export interface WebhookSinkOptions {
  url: string;
  secret: string;
  timeoutMs?: number;
  now?: () => number;
}

/** The header names a receiver checks: the time the body was signed, and the signature. */
export const WEBHOOK_TIMESTAMP_HEADER = 'x-netops-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'x-netops-signature';

/** `sha256=` and the HMAC-SHA256 of `<timestamp>.<body>` under the secret, hex. */
export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** JSON batches POSTed to an HTTPS endpoint, each signed; a 2xx answer takes the batch. */
export class WebhookSink implements ExportSink {
  readonly name = 'webhook';

  constructor(private readonly options: WebhookSinkOptions) {}

  async send(events: readonly ExportEvent[]): Promise<void> {
    const body = JSON.stringify({ events });
    const timestamp = String(Math.floor((this.options.now ?? Date.now)() / 1000));
    const where = new URL(this.options.url);
    try {
      const response = await got.post(this.options.url, {
        body,
        headers: {
          'content-type': 'application/json',
          [WEBHOOK_TIMESTAMP_HEADER]: timestamp,
          [WEBHOOK_SIGNATURE_HEADER]: webhookSignature(this.options.secret, timestamp, body),
        },
        // The exporter decides when to try again, from its own place in the journal.
        retry: { limit: 0 },
        throwHttpErrors: false,
        followRedirect: false,
        timeout: { request: this.options.timeoutMs ?? 10_000 },
      });
      if (response.statusCode < 200 || response.statusCode > 299) {
        throw new AuditExportError(`the webhook at ${where.origin} answered ${response.statusCode}`);
      }
    } catch (error) {
      if (error instanceof AuditExportError) throw error;
      throw new AuditExportError(
        `the webhook at ${where.origin} did not answer: ${(error as Error).message}`,
      );
    }
  }

  async close(): Promise<void> {}
}
