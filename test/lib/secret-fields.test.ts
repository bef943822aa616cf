import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REDACTED, redactSecrets } from '../../src/lib/redact.js';
import { HARMLESS_FIELDS, isSecretField, SECRET_FIELDS } from '../../src/lib/secret-fields.js';
import { scrubSecrets, setConfiguredSecrets } from '../../src/lib/secret-text.js';

const FIXTURES = join(process.cwd(), 'test', 'fixtures');

/** Every field name of every JSON fixture, at any depth, with one value seen for it. */
function fixtureFields(): Map<string, unknown> {
  const fields = new Map<string, unknown>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) for (const item of value) visit(item);
    else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (!fields.has(key) || fields.get(key) === '') fields.set(key, item);
        visit(item);
      }
    }
  };
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      // The API document's keys are schema and path names, not fields a controller record holds.
      if (name === 'openapi') continue;
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith('.json')) visit(JSON.parse(readFileSync(path, 'utf8')));
    }
  };
  walk(FIXTURES);
  return fields;
}

// The fixtures' secret fields, decided one by one (docs/decisions.md, "Secret fields"): device
// keys and guest tokens are credentials; the x_ fingerprints are hashes of public keys, masked
// with every x_ field (UniFi marks what it hides that way); x_aes_gcm and x_has_ssh_hostkey are
// flags, classified secret by name but never masked (a boolean carries no secret).
// Deliberately alike: field names as test data; the journal test lists its own field names.
const FIXTURE_SECRETS = [
  'guest_token',
  'nfc_token',
  'syslog_key',
  'x_aes_gcm',
  'x_authkey',
  'x_fingerprint',
  'x_has_ssh_hostkey',
  'x_inform_authkey',
  'x_ssh_hostkey_fingerprint',
  'x_vwirekey',
];

describe('secret fields, checked against every field of the project’s fixtures', () => {
  const fields = fixtureFields();

  it('walks thousands of field names', () => {
    expect(fields.size).toBeGreaterThan(3000);
  });

  it('classifies exactly the listed fixture fields as secret, and every other one as shown', () => {
    const secret = [...fields.keys()].filter(isSecretField).sort();
    expect(secret).toEqual(FIXTURE_SECRETS);
  });

  it('shows the key- and token-named fields that hold no secret (ids, cursors, counters, roles)', () => {
    for (const name of ['nextToken', 'password_revision', 'system_key', 'zone_key']) {
      expect(fields.has(name), name).toBe(true);
      expect(isSecretField(name), name).toBe(false);
    }
    // Each harmless exception is a name the fixtures hold, not a guess.
    for (const name of HARMLESS_FIELDS) expect(fields.has(name), name).toBe(true);
  });

  it('masks every fixture record’s secret values, and leaves flags and every other value as they were', () => {
    const record = Object.fromEntries(fields);
    const masked = redactSecrets(record) as Record<string, unknown>;
    expect(masked.x_authkey).toBe(REDACTED);
    expect(masked.guest_token).toBe(REDACTED);
    expect(masked.syslog_key).toBe(REDACTED);
    expect(masked.x_has_ssh_hostkey).toBe(record.x_has_ssh_hostkey);
    expect(masked.zone_key).toBe(record.zone_key);
    expect(masked.system_key).toBe('super_administrator');
  });

  it('masks what public sources name for VPN, RADIUS and Wi-Fi, listed or caught by a pattern', () => {
    for (const name of [
      'x_ipsec_pre_shared_key',
      'radius_secret',
      'openvpn_configuration',
      'wireguard_client_configuration_file',
      'x_wireguard_private_key',
      'x_passphrase',
      'wpa_psk',
      'community',
      'some_new_private_key',
      'tunnel_key',
      'x_anything',
      'apiToken',
    ]) {
      expect(isSecretField(name), name).toBe(true);
    }
    for (const name of SECRET_FIELDS) expect(isSecretField(name), name).toBe(true);
    for (const name of ['name', 'purpose', 'vlan', 'networkconf_id', 'radiusprofile_id', 'mac']) {
      expect(isSecretField(name), name).toBe(false);
    }
  });
});

describe('secrets in values', () => {
  it('scrubs PEM blocks, .ovpn inline keys, WireGuard keys, and configured secret values', () => {
    const wgKey = 'yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=';
    const ovpn = `client\nremote vpn.example.com 1194\n<key>\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END PRIVATE KEY-----\n</key>\n<tls-auth>\nabcdef0123\n</tls-auth>\n`;
    const wg = `[Interface]\nPrivateKey = ${wgKey}\nAddress = 10.0.0.2/32\n[Peer]\nPresharedKey = FpCyhws9cxwWoV4xELtfJvjJN+zQVRPISllRWgeopVE=\n`;
    const out = scrubSecrets(`${ovpn}${wg}`);
    expect(out).not.toMatch(/MIIEvQ|abcdef0123|yAnz5TF|FpCyhws9/);
    expect(out).toContain('remote vpn.example.com 1194');
    expect(out).toContain('Address = 10.0.0.2/32');
    expect(redactSecrets({ note: wgKey })).toEqual({ note: '[redacted]' });
    // Hex ids, MACs and hashes stay.
    const plain =
      '65b3c8e1f4a9d20c7e5a1012 00:11:32:8a:bc:04 sha256=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
    expect(scrubSecrets(plain)).toBe(plain);
    setConfiguredSecrets(['controller-api-key-1234', 'p@ss word/1', 'abc']);
    try {
      expect(scrubSecrets('refused key controller-api-key-1234 (p%40ss%20word%2F1)')).toBe(
        'refused key [redacted] ([redacted])',
      );
      // Too short to tell from ordinary words: left (and never logged by name).
      expect(scrubSecrets('abc')).toBe('abc');
    } finally {
      setConfiguredSecrets([]);
    }
  });
});
