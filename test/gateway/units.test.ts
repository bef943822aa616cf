import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ConfigError, NotSupportedError } from '../../src/errors.js';
import { consoleIdFromHosts } from '../../src/gateway/cloud.js';
import { describeControllerCode } from '../../src/gateway/controller-codes.js';
// Deliberately alike: named imports of the module under test, one a line as Biome wraps them; the names differ.
import {
  readClassicEnvelope,
  readErrorBody,
  readIntegrationPage,
  readSiteManagerError,
} from '../../src/gateway/envelopes.js';
import { gatewayOptionsFromConfig, resolveGatewayOptions } from '../../src/gateway/options.js';
import { apiRoute, connectorBase, describePath, splitPath } from '../../src/gateway/paths.js';
import { backoffDelay, DEFAULT_RETRY_POLICY, parseRetryAfter } from '../../src/gateway/retry.js';
import { decodeJson } from '../../src/gateway/transport.js';
import { silentLogger } from '../../src/log.js';
import { fixture } from './support.js';

describe('paths', () => {
  it('builds the three API roots under the Network application', () => {
    expect(apiRoute('classic', 'default', 'rest/networkconf')).toBe('/api/s/default/rest/networkconf');
    expect(apiRoute('v2', 'default', 'firewall/zone')).toBe('/v2/api/site/default/firewall/zone');
    expect(apiRoute('integration', 'uuid-1', 'acl-rules')).toBe('/integration/v1/sites/uuid-1/acl-rules');
    expect(apiRoute('integration', undefined, 'dpi/categories')).toBe('/integration/v1/dpi/categories');
  });

  it('builds the connector base with the console id readable', () => {
    expect(connectorBase('https://api.ui.com/', 'ABC:123')).toBe(
      'https://api.ui.com/v1/connector/consoles/ABC:123/proxy/network',
    );
  });

  it('splits a query string off a relative path', () => {
    expect(splitPath('/stat/sitedpi?type=by_app&x=1')).toEqual({
      path: 'stat/sitedpi',
      query: { type: 'by_app', x: '1' },
    });
  });

  // Deliberately alike: an it.each table of paths and what each names; the rows are the test data.
  it.each([
    ['rest/networkconf/64ab0c9e8f1a2b3c4d5e6f70', 'networkconf', '64ab0c9e8f1a2b3c4d5e6f70'],
    ['rest/networkconf/IoT', 'networkconf', 'IoT'],
    ['firewall/zones/88f7af54-98f8-306a-a1c7-c9349722b1f6', 'zone', '88f7af54-98f8-306a-a1c7-c9349722b1f6'],
    ['acl-rules/88f7af54-98f8-306a-a1c7-c9349722b1f6', 'acl-rule', '88f7af54-98f8-306a-a1c7-c9349722b1f6'],
    ['stat/device/fc:ec:da:11:22:33', 'device', 'fc:ec:da:11:22:33'],
    ['stat/sitedpi', 'sitedpi', ''],
    ['traffic-matching-lists', 'traffic-matching-list', ''],
  ])('names what %s points at', (path, resource, id) => {
    expect(describePath(path)).toEqual({ resource, id });
  });
});

describe('retry timing', () => {
  it('reads Retry-After as seconds, fractional seconds, or an HTTP date', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter('0.5', now)).toBe(500);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:03 GMT', now)).toBe(3000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('backs off exponentially with jitter, capped at the largest step', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 300 };
    expect(backoffDelay(1, policy, () => 0)).toBe(50);
    expect(backoffDelay(1, policy, () => 1)).toBe(100);
    expect(backoffDelay(2, policy, () => 1)).toBe(200);
    expect(backoffDelay(5, policy, () => 1)).toBe(300);
  });
});

describe('bodies and envelopes', () => {
  it('decodes JSON by content type and refuses an HTML page', () => {
    expect(decodeJson('application/json', '{"a":1}')).toEqual({ a: 1 });
    expect(decodeJson('text/html', '<html>401</html>')).toBeUndefined();
    expect(decodeJson('text/html', '{"looks":"json"}')).toBeUndefined();
    expect(decodeJson('', '[1]')).toEqual([1]);
    expect(decodeJson('application/json', '')).toBeUndefined();
  });

  it('reads the classic error fixtures as error codes', () => {
    expect(readClassicEnvelope(fixture('errors/classic-no-permission.json'))).toEqual({
      ok: false,
      code: 'api.err.NoPermission',
    });
    expect(readClassicEnvelope(fixture('errors/classic-login-required.json'))).toEqual({
      ok: false,
      code: 'api.err.LoginRequired',
    });
  });

  it('prefers the specific code a classic error carries in data[0].meta', () => {
    const body = {
      meta: { rc: 'error', msg: 'api.err.Invalid' },
      data: [{ meta: { rc: 'error', msg: 'api.err.VlanUsed' } }],
    };
    expect(readClassicEnvelope(body)).toEqual({ ok: false, code: 'api.err.VlanUsed' });
  });

  it('reads the v2, Integration, Site Manager and UniFi OS login error shapes', () => {
    expect(readErrorBody(fixture('errors/v2-error-400.json'))).toMatchObject({
      shape: 'v2',
      code: 'api.err.PurePoeRequiresUplinkException',
    });
    expect(readErrorBody(fixture('docs-samples/integration-error.json'))).toMatchObject({
      shape: 'integration',
      code: 'api.authentication.missing-credentials',
    });
    expect(readErrorBody(fixture('errors/unifios-login-429.json'))).toMatchObject({
      code: 'AUTHENTICATION_FAILED_LIMIT_REACHED',
    });
    expect(readSiteManagerError(fixture('errors/site-manager-429.json'))).toMatchObject({
      code: 'rate_limit',
    });
    expect(readSiteManagerError(fixture('errors/site-manager-404.json'))).toMatchObject({
      code: 'not_found',
    });
  });

  it('reads the Integration sites fixture as one page', () => {
    const page = readIntegrationPage(fixture('integration/sites.json'));
    expect(page?.totalCount).toBe(1);
    expect(page?.data).toHaveLength(1);
  });
});

describe('controller codes', () => {
  it('turns known codes into sentences, leaving the code to the error that carries it', () => {
    const sentence = describeControllerCode('api.err.FirewallRuleIndexOutOfRange');
    expect(sentence).toContain('LAN rulesets take 2000–2999 or 20000–29999, WAN 3000–3999 or 30000–39999');
    expect(sentence).not.toContain('FirewallRuleIndexOutOfRange');
    expect(
      describeControllerCode('api.err.FirewallRuleIndexOutOfRange', {
        body: { ruleset: 'WANv6_IN', rule_index: 2050 },
      }),
    ).toContain("rule_index 2050 is outside WANv6_IN's block: WAN rulesets take 3000–3999 or 30000–39999");
    expect(
      describeControllerCode('api.err.FirewallRuleIndexExisted', {
        body: { ruleset: 'LAN_IN', rule_index: 20001 },
      }),
    ).toContain('rule_index 20001 is already used by another rule of LAN_IN');
    expect(
      describeControllerCode('api.firewall.zone-based-firewall-not-configured', { site: 'default' }),
    ).toContain('site default uses the traditional firewall: it has no firewall zones');
    expect(describeControllerCode('api.err.NoSiteContext')).toBe(
      'unknown site: the controller has no site by that name',
    );
    expect(describeControllerCode('api.err.NoSiteContext', { site: 'lab' })).toContain('unknown site "lab"');
    expect(describeControllerCode('api.err.VlanUsed', { body: { vlan: 30 } })).toContain('VLAN 30');
  });

  it('still produces a sentence with an unknown code: the controller message, or that it gave none', () => {
    expect(describeControllerCode('api.err.Mystery', { message: ' odd ' })).toBe('odd');
    expect(describeControllerCode('api.err.Mystery')).toBe('the controller gave no reason');
  });
});

describe('cloud console discovery', () => {
  it('takes the only host of /v1/hosts', () => {
    expect(consoleIdFromHosts(fixture('site-manager/hosts.json'))).toBe(
      '942A6FCE26520000000008A62C8000000000091C92E70000000067801E31:392959371',
    );
  });

  it('lists the host ids and names GATEWAY_CONSOLE_ID when there are several', () => {
    const body = { data: [{ id: 'A:1' }, { id: 'B:2' }], httpStatusCode: 200, traceId: 't' };
    expect(() => consoleIdFromHosts(body)).toThrow(NotSupportedError);
    expect(() => consoleIdFromHosts(body)).toThrow(/GATEWAY_CONSOLE_ID.*A:1, B:2/);
  });
});

describe('options', () => {
  it('fills the defaults', () => {
    const resolved = resolveGatewayOptions({ apiType: 'local', url: 'https://10.0.0.1/', apiKey: 'k' });
    expect(resolved).toMatchObject({
      url: 'https://10.0.0.1',
      verifyTls: true,
      timeoutMs: 10_000,
      cacheTtlSeconds: 10,
      pageSize: 200,
      maxPages: 1000,
      retry: { attempts: 3, budgetMs: 8_000 },
    });
  });

  it('refuses a local gateway without any credential and a cloud one without a key', () => {
    expect(() => resolveGatewayOptions({ apiType: 'local', url: 'https://10.0.0.1' })).toThrow(ConfigError);
    expect(() =>
      resolveGatewayOptions({ apiType: 'cloud', url: 'https://api.ui.com', username: 'u', password: 'p' }),
    ).toThrow(/GATEWAY_API_KEY/);
  });

  it('maps the configuration and lets overrides win', () => {
    const config = loadConfig({
      GATEWAY_URL: 'https://192.168.1.1',
      GATEWAY_USERNAME: 'admin',
      GATEWAY_PASSWORD: 'pw',
      GATEWAY_VERIFY_TLS: 'false',
      GATEWAY_TIMEOUT_MS: '2500',
    });
    const options = gatewayOptionsFromConfig(config, silentLogger(), { retry: { budgetMs: 100 } });
    expect(options).toMatchObject({
      apiType: 'local',
      url: 'https://192.168.1.1',
      username: 'admin',
      password: 'pw',
      verifyTls: false,
      timeoutMs: 2500,
      retry: { budgetMs: 100 },
    });
    expect(options.apiKey).toBeUndefined();
  });

  it('takes the read budget from GATEWAY_READ_BUDGET_MS (8 s unless set)', () => {
    const base = { GATEWAY_URL: 'https://192.168.1.1', GATEWAY_API_KEY: 'k' };

    const unset = resolveGatewayOptions(gatewayOptionsFromConfig(loadConfig(base), silentLogger()));
    const set = resolveGatewayOptions(
      gatewayOptionsFromConfig(loadConfig({ ...base, GATEWAY_READ_BUDGET_MS: '20000' }), silentLogger()),
    );

    expect(unset.retry).toMatchObject({ budgetMs: 8_000, attempts: 3 });
    expect(set.retry).toMatchObject({ budgetMs: 20_000, attempts: 3 });
  });

  it('reads the CA file named by GATEWAY_CA_FILE into ca', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-ca-'));
    const path = join(dir, 'ca.pem');
    writeFileSync(path, 'PEM CONTENTS');
    const config = loadConfig({
      GATEWAY_URL: 'https://10.0.0.1',
      GATEWAY_API_KEY: 'k',
      GATEWAY_CA_FILE: path,
    });

    const options = gatewayOptionsFromConfig(config, silentLogger());
    rmSync(dir, { recursive: true, force: true });

    expect(options.ca).toBe('PEM CONTENTS');
  });

  it('asks for GATEWAY_URL when local mode has none and no override', () => {
    const config = loadConfig({});
    expect(() => gatewayOptionsFromConfig(config, silentLogger())).toThrow(/GATEWAY_URL/);
    expect(
      gatewayOptionsFromConfig(config, silentLogger(), { url: 'http://127.0.0.1:1', apiKey: 'k' }).url,
    ).toBe('http://127.0.0.1:1');
  });
});
