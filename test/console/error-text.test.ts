import { describe, expect, it } from 'vitest';
import { consoleErrorText } from '../../src/console/error-text.js';
import {
  ConfigError,
  ConfirmationRequiredError,
  ConflictError,
  GatewayAuthError,
  GatewayRejectedError,
  GatewayUnavailableError,
  NotAuthorizedError,
  NotSupportedError,
  RateLimitedError,
  ResourceNotFoundError,
  ValidationError,
} from '../../src/errors.js';
import { capturingLogger } from './fake-registry.js';

describe('consoleErrorText', () => {
  const { logger } = capturingLogger();

  it('lists every field and rule of a validation error', () => {
    const error = new ValidationError([
      { field: 'vlan_id', rule: 'must be a whole number from 1 to 4094' },
      { field: 'name', rule: 'is required' },
    ]);

    expect(consoleErrorText(error, logger)).toBe(
      'invalid input:\n  vlan_id: must be a whole number from 1 to 4094\n  name: is required',
    );
  });

  it('words each kind of BotError by its code', () => {
    expect(consoleErrorText(new ResourceNotFoundError('network', 'net-x'), logger)).toBe(
      'not found: network net-x not found',
    );
    expect(consoleErrorText(new ConfirmationRequiredError('delete_network'), logger)).toBe(
      'not run: delete_network changes the network; approve it at the prompt, or add --yes to a one-shot command',
    );
    expect(consoleErrorText(new NotSupportedError('zones need the local API'), logger)).toBe(
      'not supported: zones need the local API',
    );
    expect(consoleErrorText(new NotAuthorizedError('U1 is not an approver'), logger)).toBe(
      'not authorized: U1 is not an approver',
    );
    expect(consoleErrorText(new ConflictError('already approved'), logger)).toBe(
      'conflict: already approved',
    );
    expect(consoleErrorText(new GatewayAuthError('API key rejected', 401), logger)).toBe(
      'controller refused our credentials (HTTP 401): API key rejected',
    );
    expect(consoleErrorText(new GatewayUnavailableError('timed out after 10000 ms'), logger)).toBe(
      'controller unreachable: timed out after 10000 ms',
    );
    expect(consoleErrorText(new GatewayRejectedError('api.err.VlanUsed', 'VLAN 40 is in use'), logger)).toBe(
      'controller refused: VLAN 40 is in use (api.err.VlanUsed)',
    );
    expect(consoleErrorText(new RateLimitedError('too many requests', 30), logger)).toBe(
      'rate limited by the controller: too many requests; retry after 30s',
    );
    expect(consoleErrorText(new RateLimitedError('too many requests'), logger)).toBe(
      'rate limited by the controller: too many requests',
    );
    expect(consoleErrorText(new ConfigError([{ field: 'GATEWAY_URL', rule: 'must be a URL' }]), logger)).toBe(
      'invalid configuration:\n  GATEWAY_URL: must be a URL',
    );
  });

  it('scrubs token-shaped text out of messages', () => {
    const text = consoleErrorText(new GatewayAuthError('login failed with cookie TOKEN=abc.def.ghi'), logger);

    expect(text).toBe('controller refused our credentials: login failed with cookie TOKEN=[redacted]');
  });

  it('hides anything that is not a BotError behind an id and logs it with its stack', () => {
    const capture = capturingLogger();
    const bug = new TypeError('cannot read properties of undefined (reading uplink)');

    const text = consoleErrorText(bug, capture.logger);

    const match = /^internal error: ([0-9a-f]{8}); see the log$/.exec(text);
    expect(match).not.toBeNull();
    const logged = JSON.parse(capture.sink.text.trim()) as { errorId: string; err: { stack: string } };
    expect(logged.errorId).toBe(match?.[1]);
    expect(logged.err.stack).toContain('TypeError: cannot read properties of undefined');
    expect(text).not.toContain('TypeError');
    expect(text).not.toContain(' at ');
  });
});
