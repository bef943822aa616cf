import { createHash, randomUUID } from 'node:crypto';
import * as oidc from 'openid-client';
import { z } from 'zod';
import type { IdentityConfig } from '../config/identity.js';
import type { Logger } from '../log.js';
import type { Actor } from '../model/change-request.js';
import type { KeyValueStore, LeaseStore } from '../store/types.js';
import { type IdentityMapping, mapsTo, type SignedIn } from './mapping.js';

/**
 * What a signed-in link does: count an approval (the default), or run a break-glass change on its
 * requester's word.
 */
export const STEP_UP_PURPOSES = ['approve', 'run_on_word'] as const;
export type StepUpPurpose = (typeof STEP_UP_PURPOSES)[number];

/** What a sign-in link is bound to at click time: the change, the clicker and the preview they saw. */
export interface StepUpBinding {
  changeId: string;
  approver: Actor;
  previewHash: string;
  purpose?: StepUpPurpose;
}

/** A sign-in that came back and maps to the clicker: the approval to record, with both identities. */
export interface CompletedStepUp {
  changeId: string;
  previewHash: string;
  approver: Actor & { identity: NonNullable<Actor['identity']> };
  purpose: StepUpPurpose;
}

export type StepUpResult = { ok: true; signIn: CompletedStepUp } | { ok: false; reason: string };

const KEY_PREFIX = 'stepup:';

// Kept in the store's data so any replica can finish a sign-in another one started.
const pendingSchema = z.object({
  changeId: z.string().min(1),
  approver: z.object({ userId: z.string().min(1), name: z.string().optional() }),
  previewHash: z.string().min(1),
  // Absent on links made before break-glass sign-ins existed: those were approvals.
  purpose: z.enum(STEP_UP_PURPOSES).default('approve'),
  verifier: z.string().min(43),
  nonce: z.string().min(1),
  expiresAt: z.number(),
  usedAt: z.number().optional(),
});
type Pending = z.output<typeof pendingSchema>;
type PendingInput = z.input<typeof pendingSchema>;

export interface StepUpOptions {
  config: IdentityConfig;
  data: KeyValueStore;
  /** Shared leases (PostgreSQL): a link is claimed once across the replicas. */
  leases?: LeaseStore;
  mapping: IdentityMapping;
  logger: Logger;
  now?: () => number;
}

/**
 * Step-up sign-in at an OpenID Provider (authorization code with PKCE S256): `begin` makes a
 * one-time link bound to a change, its approver and the preview hash they clicked; `complete`
 * takes the provider's redirect back and says whose approval it is, or why it counts for nothing.
 */
export class StepUp {
  private discovered: Promise<oidc.Configuration> | undefined;
  private readonly claiming = new Set<string>();
  private readonly now: () => number;

  constructor(private readonly options: StepUpOptions) {
    this.now = options.now ?? Date.now;
  }

  get linkSeconds(): number {
    return this.options.config.linkSeconds;
  }

  private provider(): Promise<oidc.Configuration> {
    const { config } = this.options;
    this.discovered ??= oidc
      .discovery(
        new URL(config.issuer),
        config.clientId,
        undefined,
        // client_secret_basic: the registration default (RFC 7591) every provider accepts.
        oidc.ClientSecretBasic(config.clientSecret),
        config.insecure ? { execute: [oidc.allowInsecureRequests] } : undefined,
      )
      .catch((error: unknown) => {
        // Asked again on the next click: the provider may be back by then.
        this.discovered = undefined;
        throw error;
      });
    return this.discovered;
  }

  /** A fresh one-time sign-in link; its state is kept server-side until it is used or expires. */
  async begin(binding: StepUpBinding): Promise<{ url: string; expiresAt: number }> {
    const provider = await this.provider();
    await this.sweep();
    const state = oidc.randomState();
    const verifier = oidc.randomPKCECodeVerifier();
    const nonce = oidc.randomNonce();
    const expiresAt = this.now() + this.linkSeconds * 1000;
    const pending: PendingInput = {
      changeId: binding.changeId,
      approver: {
        userId: binding.approver.userId,
        ...(binding.approver.name ? { name: binding.approver.name } : {}),
      },
      previewHash: binding.previewHash,
      purpose: binding.purpose ?? 'approve',
      verifier,
      nonce,
      expiresAt,
    };
    await this.options.data.set(keyOf(state), pending);
    const url = oidc.buildAuthorizationUrl(provider, {
      redirect_uri: this.options.config.redirectUri,
      scope: 'openid email',
      response_type: 'code',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
      max_age: String(this.options.config.maxAgeSeconds),
    });
    return { url: url.href, expiresAt };
  }

  /** The provider's redirect back (`callbackUrl`, with code and state): used once, whatever the outcome. */
  async complete(callbackUrl: URL): Promise<StepUpResult> {
    const state = callbackUrl.searchParams.get('state') ?? '';
    if (!state) return { ok: false, reason: 'This sign-in link is incomplete (no state).' };
    const error = callbackUrl.searchParams.get('error');
    const pending = await this.claim(state);
    if (!pending.ok) return pending;
    const bound = pending.value;
    if (error)
      return { ok: false, reason: `The identity provider refused the sign-in (${error.slice(0, 60)}).` };
    let who: SignedIn;
    try {
      who = await this.exchange(callbackUrl, state, bound);
    } catch (failure) {
      this.options.logger.warn(
        { err: failure, change: bound.changeId },
        'step-up sign-in: the code exchange with the identity provider failed',
      );
      // The provider vouched for a session older than max_age (it should have asked again).
      const stale = failedOn(failure, 'auth_time');
      return {
        ok: false,
        reason: stale
          ? `The identity provider vouched for a sign-in older than ${this.options.config.maxAgeSeconds} s; nothing was approved. Sign out there, then click Approve again.`
          : 'The identity provider did not confirm the sign-in; nothing was approved.',
      };
    }
    const mapped = await mapsTo(who, bound.approver.userId, this.options.mapping);
    if (!mapped.ok) {
      this.options.logger.warn(
        { change: bound.changeId, approver: bound.approver.userId, subject: who.subject },
        'step-up sign-in by someone other than the approver; not counted',
      );
      return {
        ok: false,
        reason: `Not approved: ${mapped.reason}. Only the person who clicked Approve can use this link.`,
      };
    }
    return {
      ok: true,
      signIn: {
        changeId: bound.changeId,
        previewHash: bound.previewHash,
        purpose: bound.purpose,
        approver: {
          ...bound.approver,
          identity: {
            issuer: who.issuer,
            subject: who.subject,
            ...(who.emailVerified && who.email ? { email: who.email } : {}),
          },
        },
      },
    };
  }

  /** The link's stored state, marked used before anything else happens: a second use finds it used. */
  private async claim(state: string): Promise<{ ok: true; value: Pending } | { ok: false; reason: string }> {
    const key = keyOf(state);
    if (this.claiming.has(key)) return { ok: false, reason: USED };
    this.claiming.add(key);
    try {
      const parsed = pendingSchema.safeParse(await this.options.data.get(key));
      if (!parsed.success)
        return { ok: false, reason: 'This sign-in link is unknown; nothing was approved.' };
      const pending = parsed.data;
      if (pending.usedAt !== undefined) return { ok: false, reason: usedText(pending.purpose) };
      const ttl = Math.max(1000, pending.expiresAt - this.now() + 60_000);
      if (this.options.leases && !(await this.options.leases.acquire(key, randomUUID(), ttl))) {
        return { ok: false, reason: usedText(pending.purpose) };
      }
      await this.options.data.set(key, { ...pending, usedAt: this.now() });
      if (pending.expiresAt <= this.now()) {
        return {
          ok: false,
          reason: `This sign-in link expired; nothing was approved. ${FRESH_LINK[pending.purpose]}`,
        };
      }
      return { ok: true, value: pending };
    } finally {
      this.claiming.delete(key);
    }
  }

  private async exchange(callbackUrl: URL, state: string, bound: Pending): Promise<SignedIn> {
    const provider = await this.provider();
    // The code is redeemed at the redirect URI the link named, whatever host the request reached.
    const current = new URL(this.options.config.redirectUri);
    current.search = callbackUrl.search;
    const tokens = await oidc.authorizationCodeGrant(provider, current, {
      pkceCodeVerifier: bound.verifier,
      expectedState: state,
      expectedNonce: bound.nonce,
      idTokenExpected: true,
      // The ID token must carry auth_time within max_age: the provider re-authenticated if it had to.
      maxAge: this.options.config.maxAgeSeconds,
    });
    const claims = tokens.claims();
    if (!claims) throw new Error('no ID token');
    // Many providers keep email out of the ID token: the UserInfo endpoint has it (same subject).
    const email =
      typeof claims.email === 'string'
        ? claims
        : await oidc.fetchUserInfo(provider, tokens.access_token, claims.sub);
    return {
      issuer: claims.iss,
      subject: claims.sub,
      ...(typeof email.email === 'string' ? { email: email.email } : {}),
      emailVerified: email.email_verified === true,
    };
  }

  /** Drops links that expired a while ago, so the store's data does not grow with them. */
  private async sweep(): Promise<void> {
    const cutoff = this.now() - 3_600_000;
    for (const key of await this.options.data.keys(KEY_PREFIX)) {
      const found = pendingSchema.safeParse(await this.options.data.get(key));
      if (!found.success || found.data.expiresAt < cutoff) await this.options.data.delete(key);
    }
  }
}

/** Whether the client's check of an ID token claim (`claim`) failed, somewhere down the error's causes. */
function failedOn(error: unknown, claim: string): boolean {
  let cause: unknown = error;
  for (let depth = 0; depth < 4 && typeof cause === 'object' && cause !== null; depth += 1) {
    if ((cause as { claim?: unknown }).claim === claim) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

/** How to get a fresh link: an approver clicks Approve again; a break-glass requester asks again. */
const FRESH_LINK: Record<StepUpPurpose, string> = {
  approve: 'Click Approve again for a fresh link.',
  run_on_word: 'Ask again with /net breakglass for a fresh link.',
};

const usedText = (purpose: StepUpPurpose) =>
  `This sign-in link was used already; nothing more was approved. ${FRESH_LINK[purpose]}`;

// A second return racing the first in this process: what it was for is not read yet.
const USED = 'This sign-in link was used already; nothing more was approved.';

/** The state is a bearer secret: only its hash is a key. */
function keyOf(state: string): string {
  return `${KEY_PREFIX}${createHash('sha256').update(state).digest('hex').slice(0, 40)}`;
}
