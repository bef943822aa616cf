/** The states after which a request moves no more: what it shows changes only by notes. */
export const SETTLED_STATES = [
  'succeeded',
  'failed',
  'cancelled',
  'expired',
  'superseded',
  'unknown',
] as const;

/** Every lifecycle state (DESIGN §4), in order; the journal's schema is built from this list. */
export const CHANGE_STATES = [
  'pending',
  'approved',
  'executing',
  ...SETTLED_STATES,
  // Every approval is in, and the change waits for its policy window to open.
  'scheduled',
] as const;

/** Where a change request is in its lifecycle; `unknown` = caught mid-run by a crash. */
export type ChangeState = (typeof CHANGE_STATES)[number];

/** Who did something: a Slack user id (U…), or e.g. 'console:alice'. */
export interface Actor {
  userId: string;
  name?: string;
  /** Who the identity provider said signed in for this approval (step-up sign-in). */
  identity?: VerifiedIdentity;
}

/** An identity an OpenID Provider vouched for: its issuer, its subject and (when verified) email. */
export interface VerifiedIdentity {
  issuer: string;
  subject: string;
  email?: string;
}

/** The actor of events nobody clicked: expiry, recovery after a crash, message bookkeeping. */
export const SYSTEM_ACTOR: Actor = { userId: 'system:approvals' };

/** The Slack message showing the preview. */
export interface MessageRef {
  channel: string;
  ts: string;
}

/** An error as kept on a request and in the journal: a stable code and a sentence, never a stack. */
export interface ErrorSummary {
  code: string;
  message: string;
  /** The controller's own code (`api.err.VlanUsed`) when the controller refused: what an admin searches for. */
  controllerCode?: string;
}

/**
 * The object(s) a change touches, read fresh right before or right after the write,
 * secrets masked. `objects` maps a label (`network 6650…`) to the record as the read tool answers;
 * `null` means it does not exist (a delete verified gone, a create's target before it). `error`
 * says why it could not be read: a failed read never blocks or repeats the write.
 */
export interface ChangeImage {
  at: string;
  objects?: Record<string, Record<string, unknown> | null>;
  error?: string;
}

/** One field the controller holds differently from what was sent. */
export interface FieldMismatch {
  object: string;
  field: string;
  sent: unknown;
  holds: unknown;
}

/**
 * How the after-image compares with what was sent: `verified`, `not_as_sent` (the fields differ:
 * "applied, not as sent"), or `unverified` (an image could not be read, or the tool changes nothing
 * that can be read back), with the reason.
 */
export interface Verification {
  status: 'verified' | 'not_as_sent' | 'unverified';
  mismatches?: FieldMismatch[];
  reason?: string;
}

/**
 * What the guardrails said of a change when it was proposed (blast radius, risk, what
 * the policy requires), kept on the request so every face and the journal show it.
 */
export interface ChangeAssessmentRecord {
  risk: 'low' | 'medium' | 'high';
  reasons: string[];
  /** The self-lockout warning (shown in bold), when the change may cut the bot off. */
  selfLockout?: string;
  /** What the change touches, e.g. `network IoT (VLAN 20)`. */
  target?: string;
  /** Distinct approvers needed, never the requester. */
  approvals: number;
  /** Only these user or user-group ids may approve (the policy's `approvers`). */
  approvers?: string[];
  /** The policy rules that matched. */
  rules: string[];
  /** The window the change must run in, and its next opening when it is closed now. */
  window?: { name: string; open: boolean; nextOpening?: string };
}

/**
 * Where one step of a change set is. `running`: its write may be under way (recorded
 * before it is sent); `done`: it ran; `reverted`: it ran and the set's compensation undid it;
 * `failed`: the controller refused it (or it was cut off); `not_run`: a step before it failed.
 */
export type SetStepStatus = 'running' | 'done' | 'reverted' | 'failed' | 'not_run' | 'unknown';

/** One step of a change set: the write as proposed, and (once the set runs) what became of it. */
export interface SetStep {
  tool: string;
  /** Validated arguments, without confirm and dry_run; may name what earlier steps create. */
  args: Record<string, unknown>;
  status?: SetStepStatus;
  /** The change request that ran this step (one per step, approved with the set). */
  changeId?: string;
  /** The change request that undid it (compensation, or the revert of the whole set). */
  revertId?: string;
  /** In the revert of a set: the step's change request this step undoes. */
  revertOf?: string;
  error?: ErrorSummary;
}

/** One site a rollout writes to: a console of the fleet and one of its sites. */
export interface RolloutSite {
  console: string;
  site: string;
}

/**
 * A change set that is a rollout: the same write (or plan) on many sites, in waves. Its steps are
 * the per-site writes, site after site (`stepsPerSite` each, in `sites` order); after each wave but
 * the last it waits `soakSeconds` watching the done sites' health. A failure, a verification
 * mismatch or a health regression halts it (the set ends `failed`, done sites stay) until someone
 * continues, reverts the done sites, or stops it.
 */
export interface RolloutRecord {
  /** `sites=` as typed (a label, a list of console/site pairs, or `*`). */
  target: string;
  /** `waves=` as typed (`1,25%,rest`). */
  waveSpec: string;
  /** The sites written to, in order. */
  sites: RolloutSite[];
  /** How many sites each wave holds, in order (their sum is the number of sites). */
  waves: number[];
  soakSeconds: number;
  stepsPerSite: number;
  /** Sites asked for whose dry run failed or would change nothing: listed, never written. */
  skipped?: { console: string; site: string; reason: string }[];
  /** Who stopped it after a halt: nothing more runs (done sites stay). */
  stoppedBy?: Actor;
}

/** Several writes proposed, previewed and approved as one, run in order. */
export interface ChangeSetRecord {
  title?: string;
  /** `rollback` (default): a failed step undoes the steps done before it; `stop`: they stay. */
  onFailure: 'rollback' | 'stop';
  steps: SetStep[];
  /** Set: this set is a rollout across sites, in waves. */
  rollout?: RolloutRecord;
}

/** The deadline kinds the journal records: the automatic reverts of timed changes. */
export const JOURNALED_DEADLINE_KINDS = ['keep_or_revert', 'temporary'] as const;
export type JournaledDeadlineKind = (typeof JOURNALED_DEADLINE_KINDS)[number];

/**
 * Where a revert deadline is as the journal says: the deadline store's states, and `unsettled`
 * (the change's outcome is unknown after a crash, so no revert was scheduled; people were told).
 */
export const JOURNALED_DEADLINE_STATES = [
  'scheduled',
  'claimed',
  'fired',
  'failed',
  'cancelled',
  'unsettled',
] as const;
export type JournaledDeadlineState = (typeof JOURNALED_DEADLINE_STATES)[number];

/**
 * The automatic revert of a timed change as its signed record holds it: the deadline store is an
 * index of these, and a stored deadline the journal does not back is never acted on.
 */
export interface JournaledDeadline {
  /** The deadline's id in the deadline store ('dl_…'). */
  id: string;
  kind: JournaledDeadlineKind;
  dueAt: string;
  state: JournaledDeadlineState;
  /** When it reached this state. */
  at: string;
  /** Why it failed, or why it was not scheduled. */
  note?: string;
}

/** One proposed write, from preview to outcome. */
export interface ChangeRequest {
  /** Opaque, unguessable, URL-safe ('cr_' + 20 base32 characters); the button value. */
  id: string;
  tool: string;
  site: string;
  /** Validated arguments, without confirm and dry_run. */
  args: Record<string, unknown>;
  requester: Actor;
  channel?: string;
  /** The dry-run result shown to approvers, secrets masked. */
  preview: unknown;
  /** SHA-256 hex of the canonical preview without `warnings`; the UI shows the first 8 characters. */
  previewHash: string;
  createdAt: string;
  expiresAt: string;
  state: ChangeState;
  message?: MessageRef;
  approver?: Actor;
  /** Who cancelled it (the requester or an approver). */
  cancelledBy?: Actor;
  decidedAt?: string;
  /** The tool's result as journaled (secrets masked, very large results capped). */
  result?: unknown;
  error?: ErrorSummary;
  /**
   * On a failed request: the write was provably never sent (the check at approval failed, or the
   * bot stopped or could not record a step before the write), so the UI says "not run".
   */
  notRun?: boolean;
  supersededBy?: string;
  replaces?: string;
  /** When the one reminder of a request still pending was claimed (APPROVAL_REMIND_SECONDS). */
  remindedAt?: string;
  /** `revert_after=<duration>`: reverted unless someone keeps it within this many seconds. */
  revertAfterSeconds?: number;
  /** The policy rule whose `revert_after` set `revertAfterSeconds` (unset: the request's own `revert_after=`). */
  revertAfterRule?: string;
  /** `for=<duration>`: a temporary change, reverted after this many seconds. */
  forSeconds?: number;
  /** The target(s) read fresh right before the write. */
  before?: ChangeImage;
  /** The target(s) read fresh right after the write. */
  after?: ChangeImage;
  /** The after-image compared with what was sent. */
  verification?: Verification;
  /** This request undoes that change (a revert). */
  revertOf?: string;
  /** The revert that undid this change, once it succeeded. */
  revertedBy?: string;
  /** Why the approver may be the system: "the original approval covered it" (an automatic revert). */
  approvalNote?: string;
  /** The blast radius, risk and policy requirements at proposal. */
  assessment?: ChangeAssessmentRecord;
  /** The approvals recorded before the last required one (N approvals), in order. */
  approvedBy?: Actor[];
  /** Approved outside its window; runs at this time (the window's next opening). */
  scheduledFor?: string;
  /** This request is a change set (tool `change_set`): its steps and their progress. */
  set?: ChangeSetRecord;
  /** This request runs one step of that change set (approved with it, never on its own). */
  setOf?: string;
  /** Which step of its set (1-based). */
  setStep?: number;
  /** The automatic revert of a `revert_after=` / `for=` change, as journaled (normally one). */
  deadlines?: JournaledDeadline[];
  /** Asked under the policy's break-glass terms: why, and the review it owes afterwards. */
  breakGlass?: BreakGlassRecord;
}

/**
 * Where the store's data marks a break-glass change still owing its review: one key per change
 * (`breakglass-review:<id>`), so two replicas opening or closing reviews at once never overwrite
 * each other's, as one shared list would.
 */
export const OPEN_BREAKGLASS_REVIEW_PREFIX = 'breakglass-review:';
/** The one list an earlier version kept the open reviews in: still read, emptied as they close. */
export const LEGACY_BREAKGLASS_REVIEWS_KEY = 'breakglass-reviews';

/** The ids of the break-glass changes marked as owing their review, from the store's data keys and the legacy list. */
export function openBreakGlassReviewIds(
  keys: readonly string[],
  legacy: readonly string[] | undefined,
): string[] {
  const marked = keys
    .filter((key) => key.startsWith(OPEN_BREAKGLASS_REVIEW_PREFIX))
    .map((key) => key.slice(OPEN_BREAKGLASS_REVIEW_PREFIX.length));
  return [...new Set([...marked, ...(legacy ?? [])])];
}

/**
 * Where the store's data marks a request whose Slack message no longer shows its state: a process
 * without Slack (`netops mcp` over stdio) changed it, and the Slack bot's sweep edits the message.
 * One key per request (`message-stale:<id>`), so replicas never overwrite each other's marks.
 */
export const STALE_MESSAGE_PREFIX = 'message-stale:';

/** What a stale-message mark holds: when it was made, so one nobody can edit is dropped in time. */
export interface StaleMessageMark {
  at: string;
}

/** The ids of the requests marked as having a stale message, from the store's data keys. */
export function staleMessageIds(keys: readonly string[]): string[] {
  return keys
    .filter((key) => key.startsWith(STALE_MESSAGE_PREFIX))
    .map((key) => key.slice(STALE_MESSAGE_PREFIX.length));
}

/** A break-glass change's reason and its review: named reviewers acknowledge it by a deadline. */
export interface BreakGlassRecord {
  reason: string;
  /** The approvals the terms asked instead of the policy's (0: it ran on the requester's word). */
  approvals: number;
  /** Slack user or group ids, from the policy's `breakglass.reviewers`. */
  reviewers: string[];
  reviewDueAt: string;
  reviewedBy?: Actor;
  reviewedAt?: string;
}
