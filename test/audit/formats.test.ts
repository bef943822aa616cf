import { describe, expect, it } from 'vitest';
import { exportEventOf } from '../../src/audit/export-event.js';
import { cefLine, octetFrame, syslogMessage } from '../../src/audit/formats.js';
import { sha256Hex } from '../../src/store/journal-format.js';
import type { JournalLine } from '../../src/store/types.js';
import { journalLines } from './journal-lines.js';

const HEADER = { hostname: 'bot 1', appName: 'netops-bot', procId: '42', version: '0.1.0' };
// RFC 5424: <PRI>VERSION SP TIMESTAMP SP HOSTNAME SP APP-NAME SP PROCID SP MSGID SP SD SP MSG
const RFC5424 = /^<(\d{1,3})>1 (\S+) (\S+) (\S+) (\S+) (\S+) (\[[^\]]*\]) (.*)$/s;

describe('an exported event', () => {
  const [first, second] = journalLines(2);

  it('carries its chain link: the hash of its journal line and the hash of the one before', () => {
    const a = exportEventOf(first as JournalLine);
    const b = exportEventOf(second as JournalLine);
    expect(a).toMatchObject({ seq: 1, type: 'cancelled', change: 'c1', actor: { userId: 'U0ALICE' } });
    expect(a.hash).toBe(sha256Hex((first as JournalLine).line));
    expect(b.prev).toBe(a.hash);
    expect(a.prev).toBe('0'.repeat(64));
  });

  it('masks secret fields in what the event records', () => {
    const [line] = journalLines(1, () => ({
      type: 'succeeded',
      id: 'c1',
      actor: { userId: 'U0ALICE' },
      result: { name: 'Guest', x_passphrase: 'hunter2hunter2' },
    }));
    const event = exportEventOf(line as JournalLine);
    expect(JSON.stringify(event)).not.toContain('hunter2hunter2');
    expect(event.event.result).toEqual({ name: 'Guest', x_passphrase: '[redacted]' });
  });
});

describe('the syslog message', () => {
  const event = exportEventOf(journalLines(1)[0] as JournalLine);

  it('is RFC 5424 with facility "log audit", the type as MSGID and the chain link as structured data', () => {
    const found = RFC5424.exec(syslogMessage(event, 'json', HEADER));
    expect(found).not.toBeNull();
    const [, pri, timestamp, host, app, proc, msgId, sd, msg] = found ?? [];
    expect(Number(pri)).toBe(13 * 8 + 6);
    expect(timestamp).toBe(event.at);
    expect([host, app, proc, msgId]).toEqual(['bot_1', 'netops-bot', '42', 'cancelled']);
    expect(sd).toBe(`[netops@32473 seq="1" change="c1" prev="${event.prev}" hash="${event.hash}"]`);
    expect(JSON.parse(msg ?? '')).toEqual(JSON.parse(JSON.stringify(event)));
  });

  it('is framed by its length in bytes, so a multibyte name or a newline cannot split it', () => {
    const message = 'é\nü';
    expect(octetFrame(message)).toBe(`5 ${message}`);
  });

  it('carries CEF with the separators escaped', () => {
    const [line] = journalLines(1, () => ({
      type: 'failed',
      id: 'c|1',
      actor: { userId: 'U0ALICE', name: 'a=b\\c' },
      stage: 'recheck',
      error: { code: 'conflict', message: 'line one\nline two' },
    }));
    const cef = cefLine(exportEventOf(line as JournalLine), '0.1.0');
    expect(cef.startsWith('CEF:0|netops-bot|netops-bot|0.1.0|failed|change failed|7|')).toBe(true);
    expect(cef).toContain('suser=a\\=b\\\\c');
    expect(cef).toContain('cs1=c|1');
    expect(cef).not.toContain('\n');
    expect(cef).toContain('cn1=1');
  });
});
