import { describe, expect, it } from 'vitest';
import { detectDeployment } from '../src/gateway/deployment.js';
import { createTransport } from '../src/gateway/transport.js';
import { createLogger, readableLogDestination, scrubSecrets } from '../src/log.js';
import { sendJson, startFake } from './gateway/support.js';
import { captureLogger } from './helpers/capture-logger.js';
import { TextSink } from './helpers/text-sink.js';

describe('logging', () => {
  it('logs a thrown value that is not an Error instead of throwing from the log call', () => {
    const { lines, logger } = captureLogger();

    logger.error({ err: 'token xoxb-1-2-secret refused' }, 'a string');
    logger.error({ err: { error: 'invalid_auth' } }, 'an object');
    logger.error({ err: null }, 'null');

    const logged = lines() as unknown as { msg: string; err: { message: string } }[];
    expect(logged.map((l) => [l.msg, l.err.message])).toEqual([
      ['a string', "'token xox?-[redacted] refused'"],
      ['an object', "{ error: 'invalid_auth' }"],
      ['null', 'null'],
    ]);
  });

  it('redacts secret-bearing keys at any depth we log', () => {
    const { logger, text: written } = captureLogger();
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
    const text = written();
    for (const secret of ['k-123', 'k-456', 'TOKEN=abc', 'csrf-1', 'xoxb-1-2', 's3cr3t', 'hunter2']) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('"site":"default"');
    expect(text).toContain('[redacted]');
  });

  it('scrubs token-shaped text in messages and error stacks', () => {
    const { logger, text: written } = captureLogger();
    logger.warn('posting with xoxb-1234-abcd failed');
    logger.error({ err: new Error('cookie TOKEN=eyJhbGciOi; rejected xapp-1-A-2') }, 'boom');
    const text = written();
    expect(text).not.toContain('xoxb-1234-abcd');
    expect(text).not.toContain('eyJhbGciOi');
    expect(text).not.toContain('xapp-1-A-2');
    expect(text).toContain('posting with xox?-[redacted] failed');
  });

  it('leaves ordinary text alone', () => {
    expect(scrubSecrets('VLAN 40 created on site default')).toBe('VLAN 40 created on site default');
  });
});

describe('console logging (readable lines)', () => {
  function readable(level: 'warn' | 'trace' = 'warn') {
    const sink = new TextSink();
    return { sink, logger: createLogger(level, readableLogDestination(sink)) };
  }

  it('writes a warning as "warning: <message> (key=value, …)", not as JSON', () => {
    const { sink, logger } = readable();

    logger.warn(
      { status: 404, path: '/api/s/default', note: 'two words' },
      'could not tell the controller type',
    );
    logger.info('not shown at warn');

    expect(sink.text).toBe(
      'warning: could not tell the controller type (status=404, path=/api/s/default, note="two words")\n',
    );
  });

  it('keeps secrets out of readable lines, by key and by shape', () => {
    const { sink, logger } = readable();

    logger.warn(
      { apiKey: 'k-123', request: { headers: { 'x-api-key': 'k-456', cookie: 'TOKEN=abc' } } },
      'posting with xoxb-1234-abcd failed',
    );

    for (const secret of ['k-123', 'k-456', 'TOKEN=abc', 'xoxb-1234-abcd'])
      expect(sink.text).not.toContain(secret);
    expect(sink.text).toMatch(
      /^warning: posting with xox\?-\[redacted\] failed \(apiKey=\[redacted\], request=/,
    );
  });

  it('puts a logged error under its line, indented, with its stack scrubbed', () => {
    const { sink, logger } = readable();

    logger.error(
      { err: new TypeError('cookie TOKEN=eyJ.abc rejected'), errorId: 'ab12cd34' },
      'unexpected error',
    );

    const lines = sink.text.trimEnd().split('\n');
    expect(lines[0]).toBe('error: unexpected error (errorId=ab12cd34)');
    expect(lines[1]).toBe('    TypeError: cookie TOKEN=[redacted] rejected');
    expect(lines[2]).toMatch(/^ {4}at /);
    expect(sink.text).not.toContain('eyJ.abc');
  });

  it("shows the gateway's own warnings as readable lines", async () => {
    const server = await startFake((_req, res) => sendJson(res, 404, { message: 'nothing here' }));
    const { sink, logger } = readable();
    const transport = createTransport({ timeoutMs: 2000, verifyTls: true, logger });

    const deployment = await detectDeployment(transport, server.url, 2000, logger);
    transport.close();
    await server.close();

    expect(deployment).toBe('unifi-os');
    expect(sink.text).toBe(
      'warning: could not tell the controller type from GET /; assuming UniFi OS (status=404)\n',
    );
  });
});
