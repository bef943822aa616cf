import { describe, expect, it } from 'vitest';
import { consoleErrorJson, consoleErrorText } from '../../src/console/error-text.js';
import {
  ConfigError,
  ConfirmationRequiredError,
  ConflictError,
  GatewayAuthError,
  GatewayRejectedError,
  GatewayUnavailableError,
  NoControllerError,
  NotAuthorizedError,
  NotSupportedError,
  RateLimitedError,
  ResourceNotFoundError,
  ValidationError,
} from '../../src/errors.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { errorSamples, repeatedFragments } from '../helpers/error-samples.js';

// Deliberately alike: each error renderer gets its own describe with its own captured logger.
describe('consoleErrorText', () => {
  const { logger } = captureLogger('error');

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
      'network net-x not found',
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
      'rate limited: too many requests; retry after 30s',
    );
    expect(consoleErrorText(new RateLimitedError('too many requests'), logger)).toBe(
      'rate limited: too many requests',
    );
    expect(consoleErrorText(new ConfigError([{ field: 'GATEWAY_URL', rule: 'must be a URL' }]), logger)).toBe(
      'invalid configuration:\n  GATEWAY_URL: must be a URL',
    );
    expect(
      consoleErrorText(
        new NoControllerError('https://10.0.0.9', 'no UniFi Network controller at https://10.0.0.9'),
        logger,
      ),
    ).toBe('no UniFi Network controller at https://10.0.0.9');
  });

  it('says each fragment once, for every error as the gateway and the tools raise it', async () => {
    const texts = (await errorSamples()).map(({ name, error }) => ({
      name,
      text: consoleErrorText(error, logger),
    }));

    // Deliberately alike: each face words errors its own way; the same samples are checked against each face's text.
    for (const { name, text } of texts)
      expect({ name, repeated: repeatedFragments(text) }).toEqual({ name, repeated: [] });
    const byName = Object.fromEntries(texts.map(({ name, text }) => [name, text]));
    expect(byName['GatewayUnavailableError (refused)']).toBe(
      'controller unreachable: 127.0.0.1:9 refused the connection (ECONNREFUSED)',
    );
    expect(byName['GatewayRejectedError (NoSiteContext)']).toBe(
      'controller refused: unknown site "lab": the controller has no site by that name (api.err.NoSiteContext)',
    );
    expect(byName['ResourceNotFoundError (controller IdInvalid)']).toBe(
      'networkconf 64ab0c9e8f1a2b3c4d5e0000 not found on site default',
    );
    expect(byName['GatewayAuthError (401 API key)']).toMatch(
      /^controller refused our credentials \(HTTP 401\): 192\.168\.1\.1 refused GATEWAY_API_KEY on the classic API: /,
    );
    expect(byName.RateLimitedError).toBe(
      'rate limited: 192.168.1.1 is rate-limiting requests; retry after 30s',
    );
    expect(byName['GatewayUnavailableError (no controller)']).toMatch(
      /^no UniFi Network controller at https:\/\/192\.168\.1\.1: GET \/proxy\/network\/api\/s\/default\/rest\/networkconf answered HTTP 404 with a web page; check GATEWAY_URL/,
    );
  });

  it('finds the doubled prefixes the console used to print', () => {
    expect(
      repeatedFragments('controller unreachable: controller unreachable: 10.0.0.1 refused the connection'),
    ).toEqual(['controller unreachable']);
    expect(
      repeatedFragments(
        'controller refused: unknown site "x" (api.err.NoSiteContext) (api.err.NoSiteContext)',
      ),
    ).toEqual(['(api.err.nositecontext)']);
    expect(repeatedFragments('not found: network Lab not found')).toEqual(['not found']);
    expect(repeatedFragments('refused (HTTP 401): 10.0.0.1 refused the key (HTTP 401)')).toEqual([
      '(http 401)',
      'http 401',
    ]);
    expect(repeatedFragments('rate limited: 10.0.0.1 is slow; retry after 30 s; retry after 30s')).toEqual([
      'retry after 30s',
    ]);
  });

  it('scrubs token-shaped text out of messages', () => {
    const text = consoleErrorText(new GatewayAuthError('login failed with cookie TOKEN=abc.def.ghi'), logger);

    expect(text).toBe('controller refused our credentials: login failed with cookie TOKEN=[redacted]');
  });

  it('hides anything that is not a BotError behind an id and logs it with its stack', () => {
    const capture = captureLogger('error');
    const bug = new TypeError('cannot read properties of undefined (reading uplink)');

    const text = consoleErrorText(bug, capture.logger);

    const match = /^internal error: ([0-9a-f]{8}); see the log$/.exec(text);
    expect(match).not.toBeNull();
    const logged = JSON.parse(capture.text().trim()) as { errorId: string; err: { stack: string } };
    expect(logged.errorId).toBe(match?.[1]);
    expect(logged.err.stack).toContain('TypeError: cannot read properties of undefined');
    expect(text).not.toContain('TypeError');
    expect(text).not.toContain(' at ');
  });
});

describe('consoleErrorJson', () => {
  const { logger } = captureLogger('error');

  it('gives the code, a one-line message and every field of a validation error', () => {
    const error = new ValidationError([
      { field: 'vlan_id', rule: 'must be a whole number from 1 to 4094' },
      { field: 'name', rule: 'is required' },
    ]);

    expect(JSON.parse(consoleErrorJson(error, logger))).toEqual({
      error: {
        code: 'validation_failed',
        message: 'invalid input: vlan_id: must be a whole number from 1 to 4094; name: is required',
        fields: [
          { field: 'vlan_id', rule: 'must be a whole number from 1 to 4094' },
          { field: 'name', rule: 'is required' },
        ],
      },
    });
  });

  it('gives the console text and no fields for any other error, secrets scrubbed', () => {
    const auth = JSON.parse(
      consoleErrorJson(new GatewayAuthError('cookie TOKEN=abc.def refused', 401), logger),
    );

    expect(auth).toEqual({
      error: {
        code: 'gateway_auth',
        message: 'controller refused our credentials (HTTP 401): cookie TOKEN=[redacted] refused',
        fields: [],
      },
    });
    expect(JSON.parse(consoleErrorJson(new ResourceNotFoundError('network', 'Lab'), logger))).toEqual({
      error: { code: 'not_found', message: 'network Lab not found', fields: [] },
    });
  });

  it('lists the variables of a configuration error as fields', () => {
    const error = new ConfigError([{ field: 'PORT', rule: 'must be a whole number from 0 to 65535' }]);

    expect(JSON.parse(consoleErrorJson(error, logger))).toEqual({
      error: {
        code: 'config_invalid',
        message: 'invalid configuration: PORT: must be a whole number from 0 to 65535',
        fields: [{ field: 'PORT', rule: 'must be a whole number from 0 to 65535' }],
      },
    });
  });

  it('hides a bug behind an id, as internal_error, and logs its stack', () => {
    const capture = captureLogger('error');

    const parsed = JSON.parse(consoleErrorJson(new TypeError('boom'), capture.logger)) as {
      error: { code: string; message: string; fields: unknown[] };
    };

    expect(parsed.error.code).toBe('internal_error');
    expect(parsed.error.message).toMatch(/^internal error: [0-9a-f]{8}; see the log$/);
    expect(parsed.error.fields).toEqual([]);
    expect(capture.text()).toContain('TypeError: boom');
  });
});
