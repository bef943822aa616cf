import { describe, expect, it } from 'vitest';
import { fingerprintSecrets, sameWithSecrets, shownSecrets } from '../../src/watch/secret-fingerprints.js';

// Drift keeps secret fields only as fingerprints under a key held in this process's memory.

describe('secret fingerprints', () => {
  const wlan = (passphrase: string) => ({ name: 'Home', x_passphrase: passphrase, enabled: true });

  it('hide the value, keep other fields, and tell a change from no change', () => {
    const a = fingerprintSecrets(wlan('first-secret-1'));
    const again = fingerprintSecrets(wlan('first-secret-1'));
    const b = fingerprintSecrets(wlan('other-secret-2'));

    expect(JSON.stringify([a, b])).not.toMatch(/secret-[12]/);
    expect(a).toMatchObject({ name: 'Home', enabled: true });
    expect(sameWithSecrets(a.x_passphrase, again.x_passphrase)).toBe(true);
    expect(sameWithSecrets(a.x_passphrase, b.x_passphrase)).toBe(false);
    // Fingerprinting twice changes nothing (a stored baseline is fingerprinted again on compare).
    expect(fingerprintSecrets(a)).toEqual(a);
    expect(shownSecrets(a)).toEqual({ name: 'Home', x_passphrase: '[redacted]', enabled: true });
  });

  it('reach nested secrets (a VPN pre-shared key, official securityConfiguration.passphrase)', () => {
    const record = fingerprintSecrets({
      securityConfiguration: { type: 'WPA2_PERSONAL', passphrase: 'nested-secret-3' },
      x_ipsec_pre_shared_key: 'psk-secret-4',
    });

    expect(JSON.stringify(record)).not.toMatch(/secret-[34]/);
    expect(record.securityConfiguration.type).toBe('WPA2_PERSONAL');
  });

  it('count a fingerprint of an earlier process (another key) as unchanged rather than compare it', () => {
    const earlier = { x_passphrase: 'secret:00000000:0123456789abcdef', name: 'Home' };
    const now = fingerprintSecrets(wlan('any-secret-5'));

    expect(sameWithSecrets(earlier.x_passphrase, now.x_passphrase)).toBe(true);
    expect(sameWithSecrets({ ...earlier, name: 'Home 2' }, { ...now, enabled: undefined })).toBe(false);
  });

  it('take an object whose keys came back in another order (a jsonb baseline) as unchanged', () => {
    const served = { zone_id: 'z1', network_ids: ['n1'], matching_target: 'NETWORK' };
    const stored = { matching_target: 'NETWORK', zone_id: 'z1', network_ids: ['n1'] };
    expect(sameWithSecrets(served, stored)).toBe(true);
    expect(sameWithSecrets(served, { ...stored, network_ids: ['n2'] })).toBe(false);
    // Order within a list still counts.
    expect(sameWithSecrets({ ids: ['a', 'b'] }, { ids: ['b', 'a'] })).toBe(false);
  });
});
