import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportEventOf } from '../../src/audit/export-event.js';
import {
  AuditExportError,
  SyslogSink,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  WebhookSink,
} from '../../src/audit/sinks.js';
import { startSyslogReceiver, startWebhookReceiver } from '../helpers/audit-receivers.js';
import { type SelfSigned, selfSignedCertificate } from '../helpers/self-signed.js';
import { journalLines } from './journal-lines.js';

const events = journalLines(3).map(exportEventOf);
const sdSeq = (message: string) => Number(/seq="(\d+)"/.exec(message)?.[1]);
const tcpSink = (port: number, settleMs: number) =>
  new SyslogSink({ host: '127.0.0.1', port, tls: false, format: 'json', version: '1', settleMs });

describe('the syslog sink', () => {
  let certificate: SelfSigned;
  beforeAll(() => {
    certificate = selfSignedCertificate('audit-syslog-');
  });
  afterAll(() => certificate.remove());

  it('writes one octet-counted RFC 5424 message per event over TCP', async () => {
    const receiver = await startSyslogReceiver();
    const sink = tcpSink(receiver.port, 50);
    try {
      await sink.send(events);
      await expect.poll(() => receiver.messages.length).toBe(3);
      expect(receiver.messages.map(sdSeq)).toEqual([1, 2, 3]);
      expect(receiver.messages[0]).toMatch(/^<110>1 /);
    } finally {
      await sink.close();
      await receiver.close();
    }
  });

  it('speaks TLS to a receiver whose certificate the CA file vouches for, and refuses one it does not', async () => {
    const receiver = await startSyslogReceiver({ key: certificate.key, cert: certificate.cert });
    const options = {
      host: '127.0.0.1',
      port: receiver.port,
      tls: true,
      format: 'cef' as const,
      version: '1',
      settleMs: 50,
    };
    const trusting = new SyslogSink({ ...options, caFile: certificate.certFile });
    const doubting = new SyslogSink(options);
    try {
      await trusting.send(events.slice(0, 1));
      await expect.poll(() => receiver.messages.length).toBe(1);
      expect(receiver.messages[0]).toContain('CEF:0|netops-bot|');
      await expect(doubting.send(events.slice(0, 1))).rejects.toBeInstanceOf(AuditExportError);
      expect(receiver.messages).toHaveLength(1);
    } finally {
      await trusting.close();
      await doubting.close();
      await receiver.close();
    }
  });

  it('does not count a batch as delivered when the receiver drops the connection, and reconnects for the next', async () => {
    const receiver = await startSyslogReceiver();
    const sink = tcpSink(receiver.port, 300);
    try {
      const sending = sink.send(events);
      await expect.poll(() => receiver.messages.length).toBe(3);
      await receiver.kill();
      await expect(sending).rejects.toThrow(/did not take the events/);
      await expect(sink.send(events)).rejects.toBeInstanceOf(AuditExportError);
      await receiver.revive();
      await sink.send(events);
      await expect.poll(() => receiver.messages.length).toBe(6);
    } finally {
      await sink.close();
      await receiver.close();
    }
  });
});

describe('the webhook sink', () => {
  it('POSTs the batch as JSON signed over the timestamp and the body', async () => {
    const receiver = await startWebhookReceiver();
    const secret = 'webhook-secret-0123456789';
    const sink = new WebhookSink({ url: receiver.url, secret, now: () => 1_765_000_000_000 });
    try {
      await sink.send(events);
      const [delivery] = receiver.deliveries;
      const timestamp = String(delivery?.headers[WEBHOOK_TIMESTAMP_HEADER]);
      const expected = createHmac('sha256', secret).update(`${timestamp}.${delivery?.body}`).digest('hex');
      expect(timestamp).toBe('1765000000');
      expect(delivery?.headers[WEBHOOK_SIGNATURE_HEADER]).toBe(`sha256=${expected}`);
      expect(JSON.parse(delivery?.body ?? '').events.map((e: { seq: number }) => e.seq)).toEqual([1, 2, 3]);
      expect(delivery?.body).not.toContain(secret);
    } finally {
      await receiver.close();
    }
  });

  it('rejects a batch the receiver answers with an error, naming the status and not the path', async () => {
    const receiver = await startWebhookReceiver();
    receiver.status = 503;
    const sink = new WebhookSink({ url: `${receiver.url}?token=abc`, secret: 'webhook-secret-0123456789' });
    try {
      const error = await sink.send(events).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AuditExportError);
      expect((error as Error).message).toMatch(/answered 503$/);
      expect((error as Error).message).not.toContain('token');
    } finally {
      await receiver.close();
    }
  });
});
