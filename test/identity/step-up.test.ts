import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StepUp } from '../../src/identity/step-up.js';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { silentLogger } from '../../src/log.js';
import { followToCallback, startTestIdp, type TestIdp, testStepUpConfig } from '../helpers/oidc-idp.js';

// The sign-in link's state, against a real OpenID Provider on loopback: what it is bound to, and
// that it works once, in time, for the person it was made for.

const REDIRECT = 'http://localhost:9/oidc/callback';
const SECRET = 'unit-client-secret';
const CLIENT = { id: 'netops', secret: SECRET, redirectUri: REDIRECT };

describe('StepUp', () => {
  let idp: TestIdp;
  let clock = Date.now();
  const data = new MemoryStore();
  let stepUp: StepUp;
  const binding = {
    changeId: 'cr_1',
    approver: { userId: 'U0ALICE', name: 'alice' },
    previewHash: 'a'.repeat(64),
  };

  beforeAll(async () => {
    idp = await startTestIdp({
      accounts: [
        { subject: 'alice', email: 'alice@example.com' },
        { subject: 'bob', email: 'bob@example.com' },
      ],
      client: CLIENT,
    });
    stepUp = new StepUp({
      config: testStepUpConfig(idp, CLIENT),
      data,
      mapping: { slackEmail: async (id) => (id === 'U0ALICE' ? 'alice@example.com' : undefined) },
      logger: silentLogger(),
      now: () => clock,
    });
  });
  afterAll(() => idp?.close());

  const signIn = async (subject: string, authenticatedSecondsAgo = 0) => {
    const { url } = await stepUp.begin(binding);
    idp.signInAs(subject, authenticatedSecondsAgo);
    return new URL(await followToCallback(url, REDIRECT));
  };

  it('makes a PKCE S256 link whose state is kept server-side, hashed, with its binding', async () => {
    const { url, expiresAt } = await stepUp.begin(binding);
    const link = new URL(url);
    expect(link.searchParams.get('code_challenge_method')).toBe('S256');
    expect(link.searchParams.get('max_age')).toBe('300');
    expect(link.searchParams.get('redirect_uri')).toBe(REDIRECT);
    const state = link.searchParams.get('state') ?? '';
    expect(state.length).toBeGreaterThan(20);
    expect(expiresAt).toBe(clock + 60_000);
    const keys = (await data.keys()).filter((k) => k.startsWith('stepup:'));
    expect(keys.some((k) => k.includes(state))).toBe(false);
    const stored = await Promise.all(keys.map((k) => data.get<Record<string, unknown>>(k)));
    expect(stored).toContainEqual(
      expect.objectContaining({
        changeId: 'cr_1',
        approver: binding.approver,
        previewHash: binding.previewHash,
      }),
    );
  });

  it('keeps what the link is for: a break-glass run on the word, or an approval for a link stored without it', async () => {
    const { url } = await stepUp.begin({ ...binding, purpose: 'run_on_word' });
    idp.signInAs('alice');
    const word = await stepUp.complete(new URL(await followToCallback(url, REDIRECT)));
    expect(word.ok && word.signIn.purpose).toBe('run_on_word');

    const older = await stepUp.begin(binding);
    // A link made by a bot from before purposes were stored: its state has none.
    for (const key of await data.keys()) {
      const stored = (await data.get(key)) as Record<string, unknown> & { usedAt?: number };
      if (key.startsWith('stepup:') && stored.usedAt === undefined) {
        const { purpose: _dropped, ...rest } = stored;
        await data.set(key, rest);
      }
    }
    idp.signInAs('alice');
    const approval = await stepUp.complete(new URL(await followToCallback(older.url, REDIRECT)));
    expect(approval.ok && approval.signIn.purpose).toBe('approve');
  });

  it("returns the bound change, preview hash and approver with the provider's identity, once", async () => {
    const callback = await signIn('alice');
    expect(await stepUp.complete(callback)).toEqual({
      ok: true,
      signIn: {
        changeId: 'cr_1',
        previewHash: binding.previewHash,
        purpose: 'approve',
        approver: {
          userId: 'U0ALICE',
          name: 'alice',
          identity: { issuer: idp.issuer, subject: 'alice', email: 'alice@example.com' },
        },
      },
    });
    expect(await stepUp.complete(callback)).toEqual({
      ok: false,
      reason: expect.stringMatching(/used already/),
    });
  });

  it('counts nothing for someone else, an unknown state or a late return', async () => {
    expect(await stepUp.complete(await signIn('bob'))).toEqual({
      ok: false,
      reason: expect.stringMatching(/signed in as bob@example.com, which is not the approver's Slack email/),
    });
    const forged = await signIn('alice');
    forged.searchParams.set('state', 'not-a-state-the-bot-made');
    expect(await stepUp.complete(forged)).toEqual({ ok: false, reason: expect.stringMatching(/unknown/) });
    const late = await signIn('alice');
    clock += 61_000;
    expect(await stepUp.complete(late)).toEqual({ ok: false, reason: expect.stringMatching(/expired/) });
    expect(await stepUp.complete(late)).toEqual({ ok: false, reason: expect.stringMatching(/used already/) });
  });

  it('counts nothing when the provider vouches for a sign-in older than max_age', async () => {
    // A session the browser kept from an hour ago: not the person at the keyboard now.
    expect(await stepUp.complete(await signIn('alice', 3600))).toEqual({
      ok: false,
      reason: expect.stringMatching(/vouched for a sign-in older than 300 s; nothing was approved/),
    });
    expect((await stepUp.complete(await signIn('alice', 60))).ok).toBe(true);
  });
});
