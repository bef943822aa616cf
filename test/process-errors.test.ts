import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { installProcessErrorHandlers } from '../src/process-errors.js';
import { captureLogger } from './helpers/capture-logger.js';

function policy() {
  const log = captureLogger('info');
  const events = new EventEmitter();
  const exits: number[] = [];
  installProcessErrorHandlers(log.logger, (code) => exits.push(code), events);
  return { events, lines: log.lines, exits };
}

describe('the process error policy of the Slack bot', () => {
  it('logs an unhandled rejection and keeps serving, whatever was rejected', () => {
    const { events, lines, exits } = policy();

    events.emit('unhandledRejection', new TypeError("Cannot read properties of null (reading 'ssl_check')"));
    events.emit('unhandledRejection', 'a string');
    events.emit('unhandledRejection', { error: 'invalid_auth' });
    events.emit('unhandledRejection', null);

    expect(exits).toEqual([]);
    expect(lines()).toHaveLength(4);
    expect(lines().every((l) => l.level === 50)).toBe(true);
    expect(lines()[0]?.msg).toMatch(/^unhandled promise rejection: .*still serving/);
    expect(lines().map((l) => (l.err as { message: string }).message)).toEqual([
      "Cannot read properties of null (reading 'ssl_check')",
      "non-error value: 'a string'",
      "non-error value: { error: 'invalid_auth' }",
      'non-error value: null',
    ]);
    expect(lines().map((l) => l.unhandled_errors)).toEqual([1, 2, 3, 4]);
  });

  it('logs an uncaught error of one network connection and keeps serving', () => {
    const { events, lines, exits } = policy();

    events.emit(
      'uncaughtException',
      Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
      'uncaughtException',
    );
    events.emit(
      'uncaughtException',
      Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }),
      'uncaughtException',
    );

    expect(exits).toEqual([]);
    expect(lines().map((l) => [l.level, l.msg])).toEqual([
      [50, 'uncaught error of one network connection; still serving'],
      [50, 'uncaught error of one network connection; still serving'],
    ]);
  });

  it('stops with exit 1 and one fatal line on any other uncaught exception: the state is unknown', () => {
    const { events, lines, exits } = policy();

    events.emit('uncaughtException', new RangeError('Maximum call stack size exceeded'), 'uncaughtException');

    expect(exits).toEqual([1]);
    expect(lines()).toHaveLength(1);
    expect(lines()[0]).toMatchObject({ level: 60, origin: 'uncaughtException' });
    expect(lines()[0]?.msg).toMatch(
      /^uncaught exception: the state of the process is unknown; stopping \(exit 1\)/,
    );
    expect((lines()[0]?.err as { message?: string } | undefined)?.message).toBe(
      'Maximum call stack size exceeded',
    );
  });

  it('never lets a secret in an error reach the log line', () => {
    const { events, lines } = policy();

    events.emit('unhandledRejection', new Error('auth failed for xoxb-1234-5678-abcdef'));

    expect(JSON.stringify(lines())).not.toContain('xoxb-1234');
  });
});
