import { describe, expect, it } from 'vitest';
import { GatewayRejectedError, GatewayUnavailableError, WriteOutcomeUnknownError } from '../../src/errors.js';
import { judgeReadBack, openOutcome, readBackTarget } from '../../src/gateway/write-check.js';

const ID = '65b3c8e1f4a9d20c7e5a1012';

describe('reading a write back after a 5xx or no answer', () => {
  it('finds the collection of an object write, and none for commands and bulk paths', () => {
    expect(readBackTarget('classic', 'POST', 'rest/networkconf')).toEqual({ collection: 'rest/networkconf' });
    expect(readBackTarget('classic', 'PUT', `rest/networkconf/${ID}`)).toEqual({
      collection: 'rest/networkconf',
      id: ID,
    });
    expect(readBackTarget('classic', 'POST', 'cmd/devmgr')).toBeUndefined();
    expect(readBackTarget('integration', 'PUT', 'acl-rules/ordering')).toBeUndefined();
    expect(readBackTarget('v2', 'DELETE', `firewall-policies/${ID}`)).toEqual({
      collection: 'firewall-policies',
      id: ID,
    });
  });

  it('reads back after a 500 or no answer, but not after a 503 or a 4xx', () => {
    expect(openOutcome(new GatewayUnavailableError('x', 500))).toBe('answered');
    expect(openOutcome(new GatewayRejectedError('api.err.ServerError', 'x', 500))).toBe('answered');
    expect(openOutcome(new WriteOutcomeUnknownError('x'))).toBe('unanswered');
    expect(openOutcome(new GatewayUnavailableError('x', 503))).toBeUndefined();
    expect(openOutcome(new GatewayRejectedError('api.err.Invalid', 'x', 400))).toBeUndefined();
  });

  const put = {
    method: 'PUT' as const,
    target: { collection: 'rest/networkconf', id: ID },
    body: { vlan: 999 },
  };

  it('calls an update not made only when the read matches the object as read before it', () => {
    const record = { _id: ID, name: 'IoT', vlan: 802 };
    expect(
      judgeReadBack({ ...put, readBack: { kind: 'present', record }, before: record, answered: true }).made,
    ).toBe('no');
    // Without the earlier read, a value other than the one sent may be the controller's rewrite of it.
    const unknown = judgeReadBack({ ...put, readBack: { kind: 'present', record }, answered: true });
    expect(unknown.made).toBe('maybe');
    expect(unknown.evidence).toContain('vlan 802 (999 was sent)');
    const made = judgeReadBack({
      ...put,
      readBack: { kind: 'present', record: { ...record, vlan: 999 } },
      answered: true,
    });
    expect(made.made).toBe('likely');
  });

  it('never calls a write without an answer "not made": the controller may still be working on it', () => {
    const verdict = judgeReadBack({
      method: 'POST',
      target: { collection: 'rest/networkconf' },
      body: { name: 'Lab' },
      readBack: { kind: 'absent' },
      answered: false,
    });
    expect(verdict.made).toBe('maybe');
  });

  it('hides secret values it quotes', () => {
    const verdict = judgeReadBack({
      ...put,
      body: { x_passphrase: 'new-secret' },
      readBack: { kind: 'present', record: { _id: ID, x_passphrase: 'old-secret' } },
      answered: true,
    });
    expect(verdict.evidence).toContain('x_passphrase (hidden) ((hidden) was sent)');
    expect(verdict.evidence).not.toContain('secret');
  });
});
