import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { configuredSecretValues } from '../../src/log.js';
import { refusal } from './refusal.js';

const IDP = {
  OIDC_ISSUER: 'https://login.example.com/realms/ops/',
  OIDC_CLIENT_ID: 'netops',
  OIDC_CLIENT_SECRET: 'client-secret-value',
  PUBLIC_URL: 'https://netops.example.com/',
};

describe('the step-up sign-in variables', () => {
  it('reads the provider, keeps the issuer exactly as written and derives the callback', () => {
    const config = loadConfig(
      { ...IDP, OIDC_LINK_SECONDS: '120', OIDC_MAX_AGE_SECONDS: '0' },
      { slackBot: false },
    );
    expect(config.identity).toEqual({
      issuer: 'https://login.example.com/realms/ops/',
      clientId: 'netops',
      clientSecret: 'client-secret-value',
      redirectUri: 'https://netops.example.com/oidc/callback',
      insecure: false,
      linkSeconds: 120,
      maxAgeSeconds: 0,
    });
    expect(loadConfig(IDP, { slackBot: false }).identity?.maxAgeSeconds).toBe(300);
    expect(configuredSecretValues(config)).toContain('client-secret-value');
    expect(loadConfig({}, { slackBot: false }).identity).toBeUndefined();
  });

  it('needs all four together, https away from this machine, and a link lifetime in range', () => {
    expect(refusal({ OIDC_ISSUER: IDP.OIDC_ISSUER }).map(([field]) => field)).toEqual([
      'OIDC_CLIENT_ID',
      'OIDC_CLIENT_SECRET',
      'PUBLIC_URL',
    ]);
    expect(refusal({ ...IDP, OIDC_ISSUER: 'http://login.example.com' })).toEqual([
      ['OIDC_ISSUER', 'must be https:// (plain http only to this machine)'],
    ]);
    expect(
      loadConfig({ ...IDP, OIDC_ISSUER: 'http://127.0.0.1:8080' }, { slackBot: false }).identity?.insecure,
    ).toBe(true);
    expect(refusal({ ...IDP, OIDC_LINK_SECONDS: '2' })).toEqual([
      ['OIDC_LINK_SECONDS', 'must be a whole number from 5 to 3600'],
    ]);
    expect(refusal({ ...IDP, OIDC_MAX_AGE_SECONDS: '-1' })).toEqual([
      ['OIDC_MAX_AGE_SECONDS', 'must be a whole number from 0 to 86400'],
    ]);
    const secretShown = refusal({ ...IDP, OIDC_CLIENT_ID: '' })
      .flat()
      .join(' ');
    expect(secretShown).not.toContain('client-secret-value');
  });
});
