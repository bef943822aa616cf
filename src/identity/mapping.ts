import type { VerifiedIdentity } from '../model/change-request.js';

/** What the identity provider returned, before it is tied to a Slack user. */
export interface SignedIn extends VerifiedIdentity {
  /** The provider says the email is the user's (`email_verified`). */
  emailVerified: boolean;
}

export interface IdentityMapping {
  /** OIDC_USERS_FILE: Slack user id → IdP subject or email; its entries win over email matching. */
  usersFile?: ReadonlyMap<string, string>;
  /** The Slack user's profile email (users.info), undefined when Slack has none for them. */
  slackEmail(userId: string): Promise<string | undefined>;
}

const same = (a: string | undefined, b: string | undefined) =>
  a !== undefined && b !== undefined && a.trim().toLowerCase() === b.trim().toLowerCase();

/** The identity names the entry: its subject exactly, or its verified email. */
function names(entry: string, who: SignedIn): boolean {
  return entry === who.subject || (who.emailVerified && same(entry, who.email));
}

/**
 * Whether the person who signed in is `slackUserId`. The users file decides for the people it
 * lists (and an identity it gives to someone else is never anyone's else); everyone else is
 * matched by the provider's verified email against their Slack profile email.
 */
export async function mapsTo(
  who: SignedIn,
  slackUserId: string,
  mapping: IdentityMapping,
): Promise<{ ok: true } | { ok: false; reason: string }> {
  const listed = mapping.usersFile?.get(slackUserId);
  if (listed !== undefined) {
    return names(listed, who)
      ? { ok: true }
      : {
          ok: false,
          reason: `you signed in as ${label(who)}, which is not the account listed for the approver`,
        };
  }
  for (const [, entry] of mapping.usersFile ?? []) {
    if (names(entry, who)) {
      return { ok: false, reason: `you signed in as ${label(who)}, which belongs to another Slack user` };
    }
  }
  if (!who.emailVerified || !who.email) {
    return { ok: false, reason: `the identity provider gave no verified email for ${label(who)} to match` };
  }
  const email = await mapping.slackEmail(slackUserId);
  if (!email) return { ok: false, reason: 'Slack has no profile email for the approver to match' };
  return same(email, who.email)
    ? { ok: true }
    : { ok: false, reason: `you signed in as ${label(who)}, which is not the approver's Slack email` };
}

function label(who: SignedIn): string {
  return who.email ?? `subject ${who.subject}`;
}
