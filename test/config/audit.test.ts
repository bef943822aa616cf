import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { configuredSecretValues } from '../../src/log.js';
import { refusal } from './refusal.js';

const SECRET = 'audit-webhook-secret-123456';

describe('the audit export variables', () => {
  it('reads a syslog receiver over TLS with its CA and a signed webhook', () => {
    const ca = join(mkdtempSync(join(tmpdir(), 'audit-config-')), 'ca.pem');
    writeFileSync(ca, 'pem');
    const config = loadConfig(
      {
        AUDIT_SYSLOG_URL: 'tls://siem.example.net:6514',
        AUDIT_SYSLOG_FORMAT: 'CEF',
        AUDIT_SYSLOG_CA_FILE: ca,
        AUDIT_WEBHOOK_URL: 'https://siem.example.net/hook/',
        AUDIT_WEBHOOK_SECRET: SECRET,
        AUDIT_EXPORT_REPLAY_FROM: '120',
      },
      { slackBot: false },
    );
    expect(config.audit).toEqual({
      syslog: { tls: true, host: 'siem.example.net', port: 6514, format: 'cef', caFile: ca },
      webhook: { url: 'https://siem.example.net/hook', secret: SECRET },
      replayFrom: 120,
    });
    expect(configuredSecretValues(config)).toContain(SECRET);
  });

  it('exports nothing when neither receiver is set', () => {
    expect(loadConfig({}, { slackBot: false }).audit).toBeUndefined();
  });

  it('refuses a bad receiver, naming the variable and the rule and never echoing the secret', () => {
    expect(refusal({ AUDIT_SYSLOG_URL: 'udp://siem:514' })).toEqual([
      ['AUDIT_SYSLOG_URL', 'must be tcp://host:port or tls://host:port (RFC 5424 over TCP or TLS)'],
    ]);
    expect(refusal({ AUDIT_WEBHOOK_URL: 'https://siem.example.net/hook' })).toEqual([
      [
        'AUDIT_WEBHOOK_SECRET',
        'is required with AUDIT_WEBHOOK_URL (the receiver checks the signature with it)',
      ],
    ]);
    expect(
      refusal({ AUDIT_WEBHOOK_URL: 'http://siem.example.net/hook', AUDIT_WEBHOOK_SECRET: SECRET }),
    ).toEqual([['AUDIT_WEBHOOK_URL', 'must be https:// (plain http only to this machine)']]);
    const short = refusal({ AUDIT_WEBHOOK_URL: 'https://h/x', AUDIT_WEBHOOK_SECRET: 'short-secret' });
    expect(short).toEqual([['AUDIT_WEBHOOK_SECRET', 'must be at least 16 characters']]);
    expect(JSON.stringify(short)).not.toContain('short-secret');
    expect(refusal({ AUDIT_EXPORT_REPLAY_FROM: '5' })).toEqual([
      ['AUDIT_EXPORT_REPLAY_FROM', 'is used only with AUDIT_SYSLOG_URL or AUDIT_WEBHOOK_URL'],
    ]);
    expect(refusal({ AUDIT_SYSLOG_URL: 'tcp://siem:514', AUDIT_EXPORT_REPLAY_FROM: '0' })).toEqual([
      ['AUDIT_EXPORT_REPLAY_FROM', 'must be a journal event number (1 or more)'],
    ]);
  });

  it('takes plain http to this machine (a local forwarder)', () => {
    const config = loadConfig(
      { AUDIT_WEBHOOK_URL: 'http://127.0.0.1:8088/hook', AUDIT_WEBHOOK_SECRET: SECRET },
      { slackBot: false },
    );
    expect(config.audit?.webhook?.url).toBe('http://127.0.0.1:8088/hook');
  });
});
