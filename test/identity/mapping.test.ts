import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { mapsTo, type SignedIn } from '../../src/identity/mapping.js';
import { readUsersFile } from '../../src/identity/users-file.js';

const alice: SignedIn = {
  issuer: 'https://idp',
  subject: 'a-1',
  email: 'alice@example.com',
  emailVerified: true,
};
const emails: Record<string, string> = { U0ALICE: 'Alice@Example.com', U0BOB: 'bob@example.com' };
const byEmail = { slackEmail: async (id: string) => emails[id] };

describe('who a sign-in is', () => {
  it('matches the verified email to the Slack profile email, ignoring case', async () => {
    expect(await mapsTo(alice, 'U0ALICE', byEmail)).toEqual({ ok: true });
    expect(await mapsTo(alice, 'U0BOB', byEmail)).toEqual({
      ok: false,
      reason: "you signed in as alice@example.com, which is not the approver's Slack email",
    });
  });

  it('never matches an unverified email, or a Slack user without one', async () => {
    expect((await mapsTo({ ...alice, emailVerified: false }, 'U0ALICE', byEmail)).ok).toBe(false);
    expect(await mapsTo(alice, 'U0NOMAIL', byEmail)).toEqual({
      ok: false,
      reason: 'Slack has no profile email for the approver to match',
    });
  });

  it('lets the users file decide for the people it lists, by subject or verified email', async () => {
    const usersFile = new Map([
      ['U0BOB', 'a-1'],
      ['U0CAROL', 'carol@example.com'],
    ]);
    // Bob's entry names Alice's subject: the file wins over the profile emails.
    expect(await mapsTo(alice, 'U0BOB', { ...byEmail, usersFile })).toEqual({ ok: true });
    // Alice's identity is Bob's in the file: it is nobody else's, whatever the emails say.
    expect(await mapsTo(alice, 'U0ALICE', { ...byEmail, usersFile })).toEqual({
      ok: false,
      reason: 'you signed in as alice@example.com, which belongs to another Slack user',
    });
    const carol: SignedIn = {
      issuer: 'https://idp',
      subject: 'c-3',
      email: 'CAROL@example.com',
      emailVerified: true,
    };
    expect(await mapsTo(carol, 'U0CAROL', { ...byEmail, usersFile })).toEqual({ ok: true });
    expect((await mapsTo({ ...carol, emailVerified: false }, 'U0CAROL', { ...byEmail, usersFile })).ok).toBe(
      false,
    );
  });

  it('reads OIDC_USERS_FILE and refuses one that is not a map of Slack user ids', () => {
    const dir = mkdtempSync(join(tmpdir(), 'netops-oidc-users-'));
    const good = join(dir, 'good.yaml');
    writeFileSync(good, 'U0ALICE: alice@example.com\nU0BOB: "00u1b2c3"\n');
    expect([...readUsersFile(good)]).toEqual([
      ['U0ALICE', 'alice@example.com'],
      ['U0BOB', '00u1b2c3'],
    ]);
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'alice: alice@example.com\n');
    expect(() => readUsersFile(bad)).toThrow(ConfigError);
    expect(() => readUsersFile(bad)).toThrow(/OIDC_USERS_FILE: .* must map Slack user ids/);
  });
});
