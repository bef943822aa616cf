import { formatDuration } from './duration.js';
import type { PolicyDecision } from './evaluate.js';

/** Someone who acts: a Slack user, the console's operator, an MCP client, or the bot. */
export interface Actor {
  userId: string;
  name?: string;
  /** Set once the identity provider confirmed who this is (step-up sign-in). */
  identity?: { issuer: string; subject: string; email?: string };
}

/** A yes, or a no with the reason in words the actor can act on. */
export type Decision = { ok: true } | { ok: false; reason: string };

/*
 * The one decision every path to the controller asks: may this actor do this action on this
 * change, from this face, now? Approve, Keep, Revert now, a timer firing, the console's y and an
 * MCP confirm all come here with the policy's decision on the change (evaluated fresh by the
 * caller) and get the same answer from the same rules. Nothing here reads the controller or the
 * store: the caller gathers the facts, the gate decides, the caller acts on the verdict.
 */

/**
 * Every action that writes to the controller or changes what will be written or when. A path that
 * does one of these asks `Gate.decide` with its action; the list is what the tests enumerate.
 */
export const GATE_ACTIONS = {
  propose: 'propose a change (Slack, an MCP client in approval mode, a form, a revert)',
  approve: 'approve a pending change',
  approve_set: 'approve a pending change set',
  confirm: "run a change on the requester's own confirmation (the console's y or --yes, MCP confirm)",
  cancel: 'cancel a pending change',
  keep: 'keep a timed change (cancel its automatic revert)',
  revert_now: 'revert a timed change now instead of at its deadline',
  run_scheduled_now: 'run a change scheduled for its window before the window opens',
  cancel_scheduled: 'cancel a change scheduled for its window',
  accept_drift: 'accept a change made behind the bot as the new baseline',
  revert_drift: 'propose the revert of a change made behind the bot',
  timer_fire: 'the bot reverts a timed change at its deadline',
  window_open: 'the bot runs a scheduled change as its window opens',
  break_glass: "ask for a change under the policy's break-glass terms (fewer approvals, reviewed afterwards)",
  continue_rollout: 'continue a halted rollout on the sites not yet written',
  stop_rollout: 'stop a halted rollout where it is (the done sites stay)',
} as const;
export type GateAction = keyof typeof GATE_ACTIONS;
export const GATE_ACTION_NAMES = Object.keys(GATE_ACTIONS) as GateAction[];

/** Where an action comes from; `system` is the bot itself (a timer, a window opening). */
export const GATE_FACES = ['slack', 'console', 'mcp', 'system'] as const;
export type GateFace = (typeof GATE_FACES)[number];

/** The change an action is about, as far as the decision needs it. */
export interface GateSubject {
  requester: Actor;
  channel?: string;
  /** Approvals recorded so far (a change needing several). */
  approvedBy?: readonly Actor[];
  /** What the policy required when the change was proposed (a stored request). */
  assessment?: { approvals: number; approvers?: string[] };
  /**
   * Asked under the break-glass terms: the approvals they asked instead of the policy's. Set on a
   * stored request only, so `break_glass` with it is the run on the requester's word, not the asking.
   */
  breakGlass?: { approvals: number };
}

export interface GateQuestion {
  action: GateAction;
  face: GateFace;
  actor: Actor;
  change: GateSubject;
  /**
   * The policy's decision on the change evaluated now, on a fresh read (for revert_now and
   * timer_fire: on the revert). Only cancel and cancel_scheduled are decided without one.
   */
  decision?: PolicyDecision;
  /** The deadline the change would get: a confirm with one needs a bot that keeps deadlines. */
  timing?: { seconds: number; kind: 'keep_or_revert' | 'temporary'; source: string };
  /** The running bot that fires deadlines for this store, when one does (named in the answer). */
  timerKeeper?: string;
  /** The command a refused console or MCP user can propose in Slack instead. */
  command?: string;
}

export type GateVerdict =
  /** Allowed; with `runAt` the change waits for its window (approve), `notes` say what follows. */
  | { verdict: 'allow'; needed: number; runAt?: number; notes: string[] }
  /** This approval counts, and more are needed before the change runs. */
  | { verdict: 'endorse'; needed: number; given: number }
  /** Refused: why, and (where this face cannot gather what the policy asks) how to get it. */
  | {
      verdict: 'refuse';
      reason: string;
      howTo?: string;
      deny?: { rule: string; reason: string };
      /**
       * The approval would count (break-glass on the word: the change would run) once the actor
       * signs in at the identity provider; says why it is asked.
       */
      stepUp?: string;
    };

/** Who may approve, as the approval variables say (approvals/people.ts implements it). */
export interface GatePeople {
  readonly allowSelfApproval: boolean;
  canRequest(user: Actor, channel: string | undefined): Promise<Decision>;
  approverStanding(user: Actor): Promise<Decision>;
  /** `what` the list allows, in the refusal's words (default: approve this change). */
  canApproveAs(user: Actor, ids: readonly string[], source: string, what?: string): Promise<Decision>;
  isRequester(request: { requester: Actor }, user: Actor): boolean;
}

/** A refusal in words, on every face: why, then how to get what is missing. */
export function refusalText(verdict: { reason: string; howTo?: string }): string {
  return verdict.howTo ? `${verdict.reason}; ${verdict.howTo}` : verdict.reason;
}

/** The sentence a policy refusal is worded in, on every face. */
export function deniedText(deny: { rule: string; reason: string }): string {
  return `refused by policy rule "${deny.rule}": ${deny.reason}`;
}

/** What a stand-in action does, in the refusal's words. */
const STAND_IN_VERB: Partial<Record<GateAction, string>> = {
  keep: 'keep it',
  revert_now: 'revert it now',
  accept_drift: 'accept it',
  continue_rollout: 'continue it',
};

/** Where an actor acts, in words: "at the console", "over MCP", "in Slack". */
export const where = (face: GateFace): string =>
  face === 'mcp'
    ? 'over MCP'
    : face === 'slack'
      ? 'in Slack'
      : face === 'system'
        ? 'by the bot'
        : 'at the console';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** How a face that cannot gather what the policy asks gets it instead. */
export function howToGet(face: GateFace, command?: string): string | undefined {
  const line = command ? `/net ${command}` : 'the same /net command';
  if (face === 'console')
    return `propose it in Slack (${line}) so the people the policy names can approve it`;
  if (face === 'mcp')
    return 'run the MCP server with MCP_WRITES=approval so the change is posted to Slack for approval';
  return undefined;
}

/**
 * Break-glass asked at the console or over MCP: the terms name Slack people, and nobody there is
 * one, so the answer is where to ask instead. The gate answers it; a face without the gate at hand
 * (the console beside the bot) words it from here too.
 */
export function breakGlassElsewhere(
  face: GateFace,
  command: string | undefined,
): Extract<GateVerdict, { verdict: 'refuse' }> {
  return {
    verdict: 'refuse',
    reason: `break-glass is for the Slack people the policy names; ${where(face)} nobody is one of them`,
    howTo: `ask in Slack: /net breakglass ${command ?? '<the command>'} reason="…"`,
  };
}

const refuse = (reason: string, howTo?: string): GateVerdict =>
  howTo === undefined ? { verdict: 'refuse', reason } : { verdict: 'refuse', reason, howTo };

/** The policy refuses the change itself (a `deny` rule or a freeze nobody may approve through). */
const denied = (deny: { rule: string; reason: string }, prefix = ''): GateVerdict => ({
  verdict: 'refuse',
  reason: `${prefix}${deniedText(deny)}`,
  deny,
});

const allow = (needed: number, notes: string[] = [], runAt?: number): GateVerdict =>
  runAt === undefined ? { verdict: 'allow', needed, notes } : { verdict: 'allow', needed, notes, runAt };

/** The gate: one instance per process, built over the approval variables. */
export class Gate {
  constructor(private readonly people: GatePeople) {}

  async decide(q: GateQuestion): Promise<GateVerdict> {
    // Deliberately alike: one case group per gate action; a switch keeps TypeScript checking that every action is decided.
    switch (q.action) {
      case 'propose':
      case 'revert_drift':
        return this.propose(q);
      case 'approve':
      case 'approve_set':
        return this.approve(q);
      case 'confirm':
        return this.confirm(q);
      case 'cancel':
      case 'cancel_scheduled':
      case 'stop_rollout':
        return this.cancel(q);
      case 'keep':
      case 'accept_drift':
        return this.standIn(q, { writes: false });
      case 'revert_now':
      case 'continue_rollout':
        return this.standIn(q, { writes: true });
      case 'run_scheduled_now':
        return this.runScheduledNow(q);
      case 'timer_fire':
      case 'window_open':
        return this.system(q);
      case 'break_glass':
        return this.breakGlass(q);
    }
  }

  /**
   * A change asked under the policy's break-glass terms: only the people they allow, never past a
   * `deny`, with the terms' approvals instead of the policy's (never more), whatever the windows.
   */
  private async breakGlass(q: GateQuestion): Promise<GateVerdict> {
    if (q.face === 'system') return refuse('the bot breaks no glass by itself');
    if (q.face !== 'slack') return breakGlassElsewhere(q.face, q.command);
    const requester = await this.people.canRequest(q.actor, q.change.channel);
    if (!requester.ok) return refuse(requester.reason);
    const decision = required(q);
    if (decision.deny) return denied(decision.deny, 'break-glass never overrides a deny: ');
    const terms = decision.breakGlass;
    if (!terms) {
      return refuse(
        'the policy lets nobody break glass',
        'an admin adds a breakglass: section (allowed, reviewers) to POLICY_FILE',
      );
    }
    const allowed = await this.people.canApproveAs(
      q.actor,
      terms.allowed,
      "the policy's breakglass: allowed",
      'break glass',
    );
    if (!allowed.ok) return refuse(allowed.reason);
    const usual = needed(q);
    const n = Math.min(usual, terms.approvals);
    const signIn = n === 0 && !q.actor.identity ? wordStepUp(decision) : undefined;
    // The stored request carries its terms: this is the run on the word, not the asking.
    if (q.change.breakGlass) {
      if (!this.isRequester(q)) return refuse('only its requester runs a break-glass change on their word');
      if (signIn) {
        return {
          verdict: 'refuse',
          reason: `break-glass on your word needs step-up sign-in (${signIn}): it runs once you sign in`,
          stepUp: signIn,
        };
      }
    }
    const reviewers = terms.reviewers.map(mentionText).join(', ');
    return allow(n, [
      n > 0
        ? `break-glass: ${plural(n, 'approval')} instead of ${usual}`
        : signIn
          ? 'break-glass: runs on your word once you sign in at the identity provider'
          : 'break-glass: runs now on your word',
      `reviewed afterwards by ${reviewers} within ${formatDuration(terms.reviewWithinSeconds)}`,
    ]);
  }

  /**
   * The part of `propose` that needs nothing from the controller (REQUESTERS, WRITE_CHANNELS):
   * asked first, so a request from someone who may not ask reads nothing; `decide` asks it again.
   */
  async mayAsk(actor: Actor, channel: string | undefined): Promise<GateVerdict> {
    const requester = await this.people.canRequest(actor, channel);
    return requester.ok ? allow(0) : refuse(requester.reason);
  }

  private async propose(q: GateQuestion): Promise<GateVerdict> {
    if (q.face === 'system') return refuse('the bot proposes no change by itself');
    const requester = await this.people.canRequest(q.actor, q.change.channel);
    if (!requester.ok) return refuse(requester.reason);
    const decision = required(q);
    if (decision.deny) return denied(decision.deny);
    return allow(needed(q));
  }

  /** A person's approval in Slack: the policy's approvers, counts, windows and self-approval. */
  private async approve(q: GateQuestion): Promise<GateVerdict> {
    if (q.face !== 'slack') {
      return refuse(
        `changes are approved by people in Slack; ${where(q.face)} only the requester's own confirmation exists`,
        howToGet(q.face, q.command),
      );
    }
    const own = this.isRequester(q);
    if (own && !this.people.allowSelfApproval) {
      const yours = q.change.requester.userId.startsWith('mcp:')
        ? 'your MCP client requested'
        : 'you requested';
      return refuse(`${yours} this change; someone else must approve it (ALLOW_SELF_APPROVAL is off)`);
    }
    const standing = await this.people.approverStanding(q.actor);
    if (!standing.ok) return refuse(standing.reason);
    const decision = required(q);
    if (decision.deny) return denied(decision.deny);
    // Break-glass terms lower the count (never below the one approval being given) and ignore windows.
    const glass = q.change.breakGlass;
    const n = glass ? Math.max(1, Math.min(needed(q), glass.approvals)) : needed(q);
    if (own && n > 1) return refuse(`you requested this change; it needs ${n} approvals from other people`);
    const listed = await this.listed(q);
    if (!listed.ok) return refuse(listed.reason);
    const given = q.change.approvedBy ?? [];
    if (given.some((a) => a.userId === q.actor.userId)) {
      return refuse(
        `you approved this change already (${given.length} of ${n} approvals); it needs approvals from ${n} different people`,
      );
    }
    // Last: everything else allows this approval, so a sign-in is worth asking for.
    if (decision.stepUp && !q.actor.identity) {
      return {
        verdict: 'refuse',
        reason: `this change needs step-up sign-in (${decision.stepUp}): your approval counts once you sign in`,
        stepUp: decision.stepUp,
      };
    }
    if (given.length + 1 < n) return { verdict: 'endorse', needed: n, given: given.length + 1 };
    const window = glass ? undefined : decision.window;
    if (window && !window.open) {
      if (window.nextOpeningMs === undefined)
        return refuse(`window ${window.name} has no next opening, so this change can never run`);
      return allow(
        n,
        [`runs at the next opening of ${window.name} (${window.nextOpening})`],
        window.nextOpeningMs,
      );
    }
    return allow(n);
  }

  /**
   * The requester's own confirmation (the console's y or --yes, MCP confirm) as the approval: it
   * counts as one approval where the policy says so (`self_confirm`), so a change needing more, or
   * named approvers, or a closed window, is refused with the way to get it.
   */
  private async confirm(q: GateQuestion): Promise<GateVerdict> {
    const how = howToGet(q.face, q.command);
    if (q.face !== 'console' && q.face !== 'mcp')
      return refuse(`only the console and MCP confirm a change on the requester's own authority`);
    const decision = required(q);
    if (decision.deny) return denied(decision.deny);
    if (!decision.selfConfirm.counts) {
      return refuse(
        `the policy does not count your own confirmation ${where(q.face)} (${decision.selfConfirm.by}): someone else must approve this change`,
        how,
      );
    }
    if (decision.stepUp) {
      return refuse(
        `this change needs an approver signed in at the identity provider (step-up sign-in, ${decision.stepUp})`,
        how,
      );
    }
    const n = needed(q);
    if (n > 1) {
      return refuse(
        `this change needs ${plural(n, 'approval')} (${approvalsWhy(decision)}); your own confirmation ${where(q.face)} counts as one`,
        how,
      );
    }
    const [list] = approverLists(q);
    if (list) return refuse(`only ${list.ids.join(', ')} may approve this change (${list.source})`, how);
    const window = decision.window;
    if (window && !window.open) {
      return refuse(
        `this change may run only in window ${window.name}, which is closed now (next opening ${window.nextOpening ?? 'unknown'})`,
        q.face === 'console'
          ? `run it again once the window is open, or ${howToGet('console', q.command)}: approved outside the window, it is scheduled for the opening`
          : how,
      );
    }
    const notes: string[] = [];
    if (q.timing) {
      const what = `it reverts itself after ${formatDuration(q.timing.seconds)} (${q.timing.source})${q.timing.kind === 'keep_or_revert' ? ' unless someone keeps it' : ''}`;
      if (!q.timerKeeper) {
        return refuse(
          `${what}, and no running bot shares this store to do that`,
          'start the bot (npm start with the Slack settings) on the same DATA_DIR or DATABASE_URL, then run it again; or propose it in Slack',
        );
      }
      notes.push(`${what}: the bot ${q.timerKeeper} keeps the deadline`);
    }
    return allow(n, notes);
  }

  /** The requester, or anyone who may approve the change. */
  private async cancel(q: GateQuestion): Promise<GateVerdict> {
    if (q.face === 'system') return refuse('only the requester or a person who may approve cancels a change');
    if (this.isRequester(q)) return allow(0);
    const eligible = await this.eligible(q, { face: q.face });
    if (eligible.ok) return allow(0);
    const requester = q.change.requester.userId;
    return refuse(
      `only the requester (${mentionText(requester)}) or someone who may approve can cancel it: ${eligible.reason}`,
    );
  }

  /**
   * Someone acting for the approvers on a change that ran (Keep, Revert now, Accept on drift): one
   * person the policy lets approve it. A console or MCP operator stands in only where their own
   * confirmation counts and no named approvers apply. Keep and Accept write nothing, so a `deny`
   * does not stop them; Revert now writes, so the policy's refusal of the revert does.
   */
  private async standIn(q: GateQuestion, { writes }: { writes: boolean }): Promise<GateVerdict> {
    const decision = q.decision;
    if (writes && decision?.deny) return denied(decision.deny);
    if (q.face === 'system') return refuse('only a person may do this');
    if (q.face === 'console' || q.face === 'mcp') {
      const how = howToGet(q.face);
      if (decision && !decision.selfConfirm.counts)
        return refuse(
          `the policy does not count your own confirmation ${where(q.face)} (${decision.selfConfirm.by})`,
          how,
        );
      const [list] = approverLists(q);
      if (list)
        return refuse(`only ${list.ids.join(', ')} may ${STAND_IN_VERB[q.action]} (${list.source})`, how);
      return allow(1);
    }
    const eligible = await this.eligible(q, { face: 'slack' });
    if (!eligible.ok)
      return refuse(
        `only someone who may approve this change can ${STAND_IN_VERB[q.action]}: ${eligible.reason}`,
      );
    return allow(1);
  }

  private async runScheduledNow(q: GateQuestion): Promise<GateVerdict> {
    const eligible = await this.eligible(q, { face: q.face });
    if (!eligible.ok) return refuse(eligible.reason);
    const decision = required(q);
    if (decision.deny) return denied(decision.deny);
    const window = decision.window;
    if (window && !window.open) {
      return refuse(
        `the policy lets this change run only in window ${window.name}, which opens at ${window.nextOpening ?? 'its next opening'}; it runs then`,
      );
    }
    return allow(1);
  }

  /**
   * The bot acting on its own (a deadline, a window opening): allowed unless the policy now
   * refuses the change or a freeze is in force (a freeze that lets approvers through lets people
   * through, not timers). The caller reports the refusal in the change's thread.
   */
  private system(q: GateQuestion): GateVerdict {
    const decision = required(q);
    if (decision.deny) return denied(decision.deny, 'the policy stops it now: ');
    const [freeze, ...more] = decision.freezes ?? [];
    if (freeze) {
      const names = [freeze, ...more].map((f) => `"${f.name}" (until ${f.until})`).join(', ');
      return refuse(
        `freeze ${names} is in force: ${freeze.reason}; only its approvers may change the network now`,
      );
    }
    return allow(0);
  }

  /** The actor asked for the change (themself, or the person behind the MCP client that did). */
  private isRequester(q: GateQuestion): boolean {
    return q.actor.userId === q.change.requester.userId || this.people.isRequester(q.change, q.actor);
  }

  /** A person who may approve the change: not its requester (unless allowed), in APPROVERS, on every list. */
  private async eligible(q: GateQuestion, { face }: { face: GateFace }): Promise<Decision> {
    if (face !== 'slack') {
      return { ok: false, reason: `this is done by people in Slack, not at the ${face}` };
    }
    if (this.isRequester(q) && !this.people.allowSelfApproval) {
      return {
        ok: false,
        reason: 'you requested this change; someone else must approve it (ALLOW_SELF_APPROVAL is off)',
      };
    }
    const standing = await this.people.approverStanding(q.actor);
    if (!standing.ok) return standing;
    return this.listed(q);
  }

  /** On every approver list that applies (the rules' and freezes', at proposal and now). */
  private async listed(q: GateQuestion): Promise<Decision> {
    for (const { ids, source } of approverLists(q)) {
      const listed = await this.people.canApproveAs(q.actor, ids, source);
      if (!listed.ok) return listed;
    }
    return { ok: true };
  }
}

/**
 * Why a break-glass change run on its requester's word needs their sign-in first: the policy's own
 * step-up reason, or the identity provider being configured (nobody else vouches for the word).
 */
function wordStepUp(decision: PolicyDecision): string | undefined {
  if (decision.stepUp) return decision.stepUp;
  return decision.identityProvider ? 'break-glass on your word' : undefined;
}

function required(q: GateQuestion): PolicyDecision {
  if (!q.decision) throw new Error(`the gate needs the policy's decision to decide ${q.action}`);
  return q.decision;
}

/** Approvals the change needs: the most of what the policy said at proposal and says now. */
function needed(q: GateQuestion): number {
  return Math.max(q.change.assessment?.approvals ?? 1, q.decision?.approvals ?? 1);
}

function approvalsWhy(decision: PolicyDecision): string {
  const rules = decision.matched.length > 0 ? `policy rules ${decision.matched.join(', ')}` : undefined;
  return (
    [decision.risk === 'high' ? 'high risk' : undefined, rules].filter(Boolean).join('; ') || 'the policy'
  );
}

function approverLists(q: GateQuestion): { ids: string[]; source: string }[] {
  const lists: { ids: string[]; source: string }[] = [];
  if (q.change.assessment?.approvers)
    lists.push({
      ids: q.change.assessment.approvers,
      source: 'the approvers the policy named at the proposal',
    });
  if (q.decision?.approvers)
    lists.push({ ids: q.decision.approvers, source: 'the approvers the policy names' });
  return lists;
}

/** A Slack user as a mention, anything else (an MCP or console requester) as text. */
function mentionText(id: string): string {
  return /^[UW][A-Z0-9]+$/.test(id) ? `<@${id}>` : id;
}
