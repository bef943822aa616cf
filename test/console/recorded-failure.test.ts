import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../src/console/console.js';
import { consoleErrorJson } from '../../src/console/error-text.js';
import { RecordedFailure } from '../../src/console/recorded-failure.js';
import { GatewayRejectedError, isBotError, ValidationError } from '../../src/errors.js';
import { captureLogger } from '../helpers/capture-logger.js';

describe('RecordedFailure', () => {
  it('is a BotError under the failed write’s own code, keeping the error and the change id', () => {
    const rejected = new GatewayRejectedError('api.err.Invalid', 'the controller rejected the input');
    const failure = new RecordedFailure(rejected, 'cr_abcdefghijklmnopqrst');

    expect(isBotError(failure)).toBe(true);
    expect(failure.code).toBe('gateway_rejected');
    expect(failure.error).toBe(rejected);
    expect(failure.changeId).toBe('cr_abcdefghijklmnopqrst');
    expect(failure.message).toBe(rejected.message);
  });

  it('gives the exit code of the error it wraps', () => {
    const invalid = new ValidationError([{ field: 'name', rule: 'is taken' }]);
    const rejected = new GatewayRejectedError('api.err.Invalid', 'rejected');

    expect(exitCodeFor(new RecordedFailure(invalid, 'cr_abcdefghijklmnopqrst'))).toBe(2);
    expect(exitCodeFor(new RecordedFailure(rejected, 'cr_abcdefghijklmnopqrst'))).toBe(1);
  });

  it('is worded by its code, not as an internal error', () => {
    const log = captureLogger('warn');
    const failure = new RecordedFailure(new GatewayRejectedError('api.err.Invalid', 'rejected'), 'cr_x');
    const body = JSON.parse(consoleErrorJson(failure, log.logger)) as { error: { code: string } };

    expect(body.error.code).toBe('gateway_rejected');
    expect(log.text()).toBe('');
  });
});
