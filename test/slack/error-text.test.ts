import { describe, expect, it } from 'vitest';
import { NoControllerError, ResourceNotFoundError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import { slackErrorText } from '../../src/slack/error-text.js';
import { errorSamples, repeatedFragments } from '../helpers/error-samples.js';

describe('slackErrorText', () => {
  const logger = silentLogger();

  it('says each fragment once, for every error as the gateway and the tools raise it', async () => {
    const texts = (await errorSamples()).map(({ name, error }) => ({
      name,
      text: slackErrorText(error, logger),
    }));

    for (const { name, text } of texts) {
      expect({ name, repeated: repeatedFragments(text) }).toEqual({ name, repeated: [] });
    }
    const byName = Object.fromEntries(texts.map(({ name, text }) => [name, text]));
    expect(byName['GatewayUnavailableError (refused)']).toBe(
      ':electric_plug: Controller unreachable: 127.0.0.1:9 refused the connection (ECONNREFUSED). Nothing was changed; try again in a minute.',
    );
    expect(byName['GatewayRejectedError (NoSiteContext)']).toBe(
      ':no_entry: The controller refused: unknown site "lab": the controller has no site by that name (`api.err.NoSiteContext`)',
    );
    expect(byName['GatewayAuthError (401 API key)']).toMatch(
      /^:key: The controller refused the bot's credentials \(HTTP 401\): 192\.168\.1\.1 refused GATEWAY_API_KEY/,
    );
  });

  it('words a missing object as its own sentence, without a second "not found"', () => {
    expect(slackErrorText(new ResourceNotFoundError('network', 'Lab'), logger)).toBe(
      ':mag: Network Lab not found',
    );
  });

  it('says there is no controller at the URL without suggesting to wait', () => {
    const error = new NoControllerError(
      'https://10.0.0.9',
      'no UniFi Network controller at https://10.0.0.9: GET /api/s/default/rest/networkconf answered HTTP 404 with a web page',
    );

    expect(slackErrorText(error, logger)).toBe(
      ':electric_plug: No UniFi Network controller at https://10.0.0.9: GET /api/s/default/rest/networkconf answered HTTP 404 with a web page. Nothing was changed.',
    );
  });
});
