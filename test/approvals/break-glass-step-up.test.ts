import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Approvals } from '../../src/approvals/approvals.js';
import { type CompletedStepUp, StepUp } from '../../src/identity/step-up.js';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { silentLogger } from '../../src/log.js';
import { FileStore } from '../../src/store/file/file-store.js';
import type { ToolContext } from '../../src/tools/core/context.js';
import { followToCallback, startTestIdp, type TestIdp, testStepUpConfig } from '../helpers/oidc-idp.js';
import { writePolicyFile } from '../helpers/policy-files.js';
import { useTestBot } from '../helpers/tool-test.js';
import { Clock, policyWith, RITA, tempDataDir } from './harness.js';

// Break-glass on the requester's word with an identity provider configured: the word alone runs
// nothing; the requester's sign-in, through the one-time link, runs the change once.

// Deliberately alike: each break-glass suite writes its own policy file.
const policyFile = writePolicyFile(
  'netops-break-glass-step-up-',
  `breakglass:
  allowed: [U0RITA]
  approvals: 0
  reviewers: [U0STAN]
`,
);
const REDIRECT = 'http://localhost:9/oidc/callback';
const SECRET = 'break-glass-client-secret';
const CLIENT = { id: 'netops', secret: SECRET, redirectUri: REDIRECT };

const bot = useTestBot({ env: { POLICY_FILE: policyFile }, simulator: { apiVersion: '9.0' } });

describe('break-glass on the word with an identity provider', () => {
  let idp: TestIdp;
  let stepUp: StepUp;
  let approvals: Approvals;
  let store: FileStore;
  let data: ReturnType<typeof tempDataDir>;

  beforeAll(async () => {
    // Deliberately alike: each step-up suite starts its own provider for its own people, and its own StepUp over its data.
    idp = await startTestIdp({
      accounts: [
        { subject: 'rita', email: 'rita@example.com' },
        { subject: 'bob', email: 'bob@example.com' },
      ],
      client: CLIENT,
    });
    stepUp = new StepUp({
      config: testStepUpConfig(idp, CLIENT),
      data: new MemoryStore(),
      mapping: { slackEmail: async (id) => (id === RITA.userId ? 'rita@example.com' : undefined) },
      logger: silentLogger(),
    });
  });
  afterAll(() => idp?.close());

  beforeEach(async () => {
    bot.sim.clearFaults();
    data = tempDataDir();
    store = new FileStore(data.dir, { data: new MemoryStore() });
    const context: ToolContext = bot.app.context;
    const guardrails = context.guardrails;
    if (!guardrails) throw new Error('the test bot has no guardrails');
    approvals = await Approvals.open({
      store: store.changes(),
      registry: bot.app.registry,
      // What main.ts loads when OIDC_ISSUER is set.
      context: {
        ...context,
        guardrails: { ...guardrails, policy: { ...guardrails.policy, identityProvider: true } },
      },
      policy: policyWith(),
      ttlSeconds: 900,
      logger: silentLogger(),
      now: new Clock().now,
      stepUp,
    });
  });
  afterEach(async () => {
    await store.close();
    data.remove();
  });

  const lab = () => bot.site().networks.find((n) => n.name === 'Lab');

  /** Rita breaks glass to delete Lab, and gives her word: the answer is a sign-in link. */
  async function askAndGiveWord(vlan: number): Promise<{ id: string; url: string; notes: string[] }> {
    await bot.run('create_network', {
      name: 'Lab',
      vlan_id: vlan,
      subnet: `10.${vlan}.0.0/24`,
      confirm: true,
    });
    const { request, notes } = await approvals.breakGlass({
      tool: 'delete_network',
      args: { network_id: 'Lab' },
      requester: RITA,
      reason: 'loop on the lab switch',
    });
    const outcome = await approvals.runOnWord(request.id, RITA);
    if (outcome.kind !== 'sign_in') throw new Error(`expected a sign-in link, got ${outcome.kind}`);
    expect(outcome.why).toBe('break-glass on your word');
    return { id: request.id, url: outcome.url, notes };
  }

  async function signIn(url: string, subject: string): Promise<URL> {
    idp.signInAs(subject);
    return new URL(await followToCallback(url, REDIRECT));
  }

  async function completed(callback: URL): Promise<CompletedStepUp> {
    const result = await stepUp.complete(callback);
    if (!result.ok) throw new Error(result.reason);
    return result.signIn;
  }

  it('runs nothing on the word alone, and says so when asked', async () => {
    const { id, notes } = await askAndGiveWord(61);
    expect(notes[0]).toBe('break-glass: runs on your word once you sign in at the identity provider');
    expect(lab()).toBeDefined();
    expect((await approvals.get(id))?.state).toBe('pending');
    // Giving the word again hands out another link; still nothing runs.
    expect((await approvals.runOnWord(id, RITA)).kind).toBe('sign_in');
    expect(lab()).toBeDefined();
  });

  it('runs once after the requester signs in, with her identity on the approval; the link works once', async () => {
    const { id, url } = await askAndGiveWord(62);
    const callback = await signIn(url, 'rita');
    const signedIn = await completed(callback);
    expect(signedIn).toMatchObject({ changeId: id, purpose: 'run_on_word' });
    const outcome = await approvals.afterSignIn(signedIn);
    expect(outcome.kind).toBe('succeeded');
    expect(lab()).toBeUndefined();
    const request = await approvals.get(id);
    // The approval the journal records is hers, with who the identity provider said signed in.
    expect(request?.approver).toEqual({
      ...RITA,
      identity: { issuer: idp.issuer, subject: 'rita', email: 'rita@example.com' },
    });

    const writes = bot.sim.requests.filter((r) => r.method !== 'GET').length;
    expect(await stepUp.complete(callback)).toEqual({
      ok: false,
      reason: expect.stringMatching(
        /used already; nothing more was approved. Ask again with \/net breakglass/,
      ),
    });
    // Even the completed sign-in handed in again runs nothing more: the claim is the store's.
    expect((await approvals.afterSignIn(signedIn)).kind).toBe('already');
    expect(bot.sim.requests.filter((r) => r.method !== 'GET')).toHaveLength(writes);
  });

  it('runs nothing when someone else signs in with the link, or signs in for someone else’s change', async () => {
    const { id, url } = await askAndGiveWord(63);
    expect(await stepUp.complete(await signIn(url, 'bob'))).toEqual({
      ok: false,
      reason: expect.stringMatching(/Only the person who clicked Approve can use this link/),
    });
    const bob = {
      userId: 'U0BOB',
      identity: { issuer: idp.issuer, subject: 'bob', email: 'bob@example.com' },
    };
    const outcome = await approvals.runOnWord(id, bob);
    expect(outcome).toMatchObject({
      kind: 'refused',
      reason: 'only its requester runs a break-glass change that needs no approval',
    });
    expect(lab()).toBeDefined();
    expect((await approvals.get(id))?.state).toBe('pending');
  });

  it('runs nothing when the sign-in comes back for a preview the stored change does not have', async () => {
    const { id, url } = await askAndGiveWord(64);
    const signedIn = await completed(await signIn(url, 'rita'));
    const outcome = await approvals.afterSignIn({ ...signedIn, previewHash: 'f'.repeat(64) });
    expect(outcome.kind).toBe('mismatch');
    expect(lab()).toBeDefined();
    expect((await approvals.get(id))?.state).toBe('pending');
  });
});
