import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { poolConfig } from '../../src/store/postgres/pool.js';

const URL_WITH_MODE = 'postgres://bot:pw@db.example.com:5432/netops?sslmode=disable&application_name=x';

describe('poolConfig (DATABASE_URL, DATABASE_SSL, DATABASE_CA_FILE)', () => {
  it('leaves TLS to the URL when neither DATABASE_SSL nor a CA file is set', () => {
    const config = poolConfig({ url: URL_WITH_MODE });

    expect(config.ssl).toBeUndefined();
    expect(config.connectionString).toBe(URL_WITH_MODE);
  });

  it('verifies the server certificate against the given CA, and drops the URL’s own sslmode', () => {
    const ca = join(mkdtempSync(join(tmpdir(), 'netops-ca-')), 'ca.pem');
    writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');

    const config = poolConfig({ url: URL_WITH_MODE, caFile: ca });

    expect(config.ssl).toEqual({
      rejectUnauthorized: true,
      ca: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
    });
    expect(config.connectionString).toBe('postgres://bot:pw@db.example.com:5432/netops?application_name=x');
  });

  it('maps DATABASE_SSL to verified TLS, unverified TLS, or none', () => {
    expect(poolConfig({ url: URL_WITH_MODE, ssl: 'verify' }).ssl).toEqual({ rejectUnauthorized: true });
    expect(poolConfig({ url: URL_WITH_MODE, ssl: 'no-verify' }).ssl).toEqual({ rejectUnauthorized: false });
    expect(poolConfig({ url: URL_WITH_MODE, ssl: 'off' }).ssl).toBe(false);
  });

  it('fails a connection attempt in seconds rather than hanging a click', () => {
    expect(poolConfig({ url: URL_WITH_MODE }).connectionTimeoutMillis).toBe(5_000);
  });
});
