import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, scrubSecrets } from '../src/log.js';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, logger: createLogger('trace', stream) };
}

describe('logging', () => {
  it('redacts secret-bearing keys at any depth we log', () => {
    const { lines, logger } = capture();
    logger.info(
      {
        apiKey: 'k-123',
        request: { headers: { 'x-api-key': 'k-456', cookie: 'TOKEN=abc', 'x-csrf-token': 'csrf-1' } },
        slack: { botToken: 'xoxb-1-2', signingSecret: 's3cr3t' },
        login: { password: 'hunter2' },
        site: 'default',
      },
      'request sent',
    );
    const text = lines.join('');
    for (const secret of ['k-123', 'k-456', 'TOKEN=abc', 'csrf-1', 'xoxb-1-2', 's3cr3t', 'hunter2']) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('"site":"default"');
    expect(text).toContain('[redacted]');
  });

  it('scrubs token-shaped text in messages and error stacks', () => {
    const { lines, logger } = capture();
    logger.warn('posting with xoxb-1234-abcd failed');
    logger.error({ err: new Error('cookie TOKEN=eyJhbGciOi; rejected xapp-1-A-2') }, 'boom');
    const text = lines.join('');
    expect(text).not.toContain('xoxb-1234-abcd');
    expect(text).not.toContain('eyJhbGciOi');
    expect(text).not.toContain('xapp-1-A-2');
    expect(text).toContain('posting with xox?-[redacted] failed');
  });

  it('leaves ordinary text alone', () => {
    expect(scrubSecrets('VLAN 40 created on site default')).toBe('VLAN 40 created on site default');
  });
});
