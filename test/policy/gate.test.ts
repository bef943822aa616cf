import { describe, expect, it } from 'vitest';
import type { Actor } from '../../src/approvals/types.js';
import {
  GATE_ACTION_NAMES,
  GATE_FACES,
  type GateAction,
  type GateFace,
  type GateQuestion,
  type GateVerdict,
} from '../../src/policy/gate.js';
import { assessImpact, evaluateChange, parsePolicy } from '../../src/policy/index.js';
import { openGate } from './open-gate.js';

/*
 * Every action the gate decides × every face × every policy effect, from the one list of actions:
 * an action added to GATE_ACTIONS without an expectation here fails the first test.
 */

// Monday 5 January 2026, 12:00 UTC.
const NOON = Date.UTC(2026, 0, 5, 12, 0, 0);
const RITA: Actor = { userId: 'U0RITA', name: 'rita' };
const CAROL: Actor = { userId: 'U0CAROL', name: 'carol' };
const BOB: Actor = { userId: 'U0BOB', name: 'bob' };

const EFFECTS = {
  none: '',
  approvers: 'rules:\n  - name: wifi-carol\n    when: "true"\n    approvers: [U0CAROL]\n',
  approvals2: 'rules:\n  - name: two\n    when: "true"\n    approvals: 2\n',
  freeze:
    'freezes:\n  - name: year-end\n    from: 2026-01-01T00:00:00Z\n    to: 2026-01-10T00:00:00Z\n    reason: year-end\n    approvers: [U0CAROL]\n',
  closedWindow:
    'windows:\n  night:\n    days: [mon, tue, wed, thu, fri]\n    start: "22:00"\n    end: "23:00"\nrules:\n  - name: at-night\n    when: "true"\n    window: night\n',
  deny: 'rules:\n  - name: no\n    when: "true"\n    deny: not today\n',
  revertAfter: 'rules:\n  - name: keep-or-revert\n    when: "true"\n    revert_after: 10m\n',
} as const;
type Effect = keyof typeof EFFECTS;

type Expected = 'allow' | 'endorse' | 'refuse';

/** Who acts on each face: a person in Slack, the operator at the console, a client over MCP, the bot. */
const actorsOf = (face: GateFace): Actor[] =>
  face === 'slack'
    ? [CAROL, BOB, RITA]
    : face === 'console'
      ? [{ userId: 'console:rita', name: 'rita at the console' }]
      : face === 'mcp'
        ? [{ userId: 'mcp:U0RITA', name: 'a client via MCP' }]
        : [{ userId: 'system:approvals' }];

/** A person's approval from Slack: the policy's approvers and counts; never the requester. */
function byPerson(face: GateFace, effect: Effect, actor: Actor, writes: boolean): Expected {
  if (face !== 'slack') return 'refuse';
  if (actor === RITA) return 'refuse';
  if (writes && effect === 'deny') return 'refuse';
  if ((effect === 'approvers' || effect === 'freeze') && actor !== CAROL) return 'refuse';
  return 'allow';
}

/** The operator's or client's own confirmation, as the one approval the change needs. */
function byConfirmer(face: GateFace, effect: Effect, timerKeeper: boolean): Expected {
  if (face !== 'console' && face !== 'mcp') return 'refuse';
  if (['deny', 'approvers', 'approvals2', 'freeze', 'closedWindow'].includes(effect)) return 'refuse';
  if (effect === 'revertAfter' && !timerKeeper) return 'refuse';
  return 'allow';
}

/** One act of someone standing in for the approvers on a change that ran (Keep, Revert now, Accept). */
function standIn(face: GateFace, effect: Effect, actor: Actor, writes: boolean): Expected {
  if (face === 'system') return 'refuse';
  if (writes && effect === 'deny') return 'refuse';
  if (face === 'console' || face === 'mcp')
    return effect === 'approvers' || effect === 'freeze' ? 'refuse' : 'allow';
  return byPerson(face, effect, actor, writes);
}

const EXPECTED: Record<
  GateAction,
  (face: GateFace, effect: Effect, actor: Actor, timerKeeper: boolean) => Expected
> = {
  propose: (face, effect) => (face === 'system' || effect === 'deny' ? 'refuse' : 'allow'),
  // The bot proposes nothing by itself: a drift's revert is proposed by the person who clicked.
  revert_drift: (face, effect) => (face === 'system' || effect === 'deny' ? 'refuse' : 'allow'),
  approve: (face, effect, actor) => {
    const verdict = byPerson(face, effect, actor, true);
    return verdict === 'allow' && effect === 'approvals2' ? 'endorse' : verdict;
  },
  approve_set: (face, effect, actor) => EXPECTED.approve(face, effect, actor, false),
  confirm: (face, effect, _actor, keeper) => byConfirmer(face, effect, keeper),
  // The requester (at the console and over MCP, the one who asked there) or someone who may approve.
  cancel: (face, effect, actor) =>
    face === 'system'
      ? 'refuse'
      : actor === RITA || face !== 'slack'
        ? 'allow'
        : byPerson(face, effect, actor, false),
  cancel_scheduled: (face, effect, actor) => EXPECTED.cancel(face, effect, actor, false),
  keep: (face, effect, actor) => standIn(face, effect, actor, false),
  accept_drift: (face, effect, actor) => standIn(face, effect, actor, false),
  revert_now: (face, effect, actor) => standIn(face, effect, actor, true),
  // Continuing a halted rollout writes, as Revert now does; stopping it writes nothing, as a cancel.
  continue_rollout: (face, effect, actor) => standIn(face, effect, actor, true),
  stop_rollout: (face, effect, actor) => EXPECTED.cancel(face, effect, actor, false),
  run_scheduled_now: (face, effect, actor) =>
    effect === 'closedWindow' ? 'refuse' : byPerson(face, effect, actor, true),
  timer_fire: (_face, effect) => (effect === 'deny' || effect === 'freeze' ? 'refuse' : 'allow'),
  window_open: (_face, effect) => (effect === 'deny' || effect === 'freeze' ? 'refuse' : 'allow'),
  // Only the people the terms allow, in Slack, never past a deny; windows and counts give way.
  break_glass: (face, effect, actor) =>
    face !== 'slack' || effect === 'deny' || actor !== CAROL ? 'refuse' : 'allow',
};

/** The break-glass terms every policy above carries: Carol may break glass, Bob reviews. */
const BREAK_GLASS = 'breakglass:\n  allowed: [U0CAROL]\n  approvals: 0\n  reviewers: [U0BOB]\n';

const gate = openGate();

function question(action: GateAction, face: GateFace, effect: Effect, actor: Actor, keeper: boolean) {
  const policy = parsePolicy(`${EFFECTS[effect]}${BREAK_GLASS}`, `${effect}.yaml`);
  const actingFace = face === 'system' ? 'system' : face;
  const decision = evaluateChange(
    policy,
    {
      tool: 'set_wifi_broadcast_enabled',
      args: { wifi_id: 'Guest', enabled: false },
      requester: RITA.userId,
      channel: 'C0OPS',
      face: actingFace,
    },
    assessImpact({}),
    {},
    NOON,
  );
  const q: GateQuestion = {
    action,
    face,
    actor,
    change: {
      requester: face === 'slack' || face === 'system' ? RITA : actor,
      channel: 'C0OPS',
      assessment: {
        approvals: decision.approvals,
        ...(decision.approvers ? { approvers: decision.approvers } : {}),
      },
    },
    decision,
    ...(decision.revertAfterSeconds !== undefined
      ? {
          timing: {
            seconds: decision.revertAfterSeconds,
            kind: 'keep_or_revert' as const,
            source: 'the policy',
          },
        }
      : {}),
    ...(keeper ? { timerKeeper: 'replica r1' } : {}),
  };
  return q;
}

describe('the gate', () => {
  it('has an expectation for every action it decides, and nothing else', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...GATE_ACTION_NAMES].sort());
  });

  for (const action of GATE_ACTION_NAMES) {
    it(`${action}: every face and policy effect gets the answer the policy means`, async () => {
      const wrong: string[] = [];
      for (const face of GATE_FACES) {
        for (const effect of Object.keys(EFFECTS) as Effect[]) {
          for (const actor of actorsOf(face)) {
            for (const keeper of [false, true]) {
              const expected = EXPECTED[action](face, effect, actor, keeper);
              const verdict: GateVerdict = await gate.decide(question(action, face, effect, actor, keeper));
              if (verdict.verdict !== expected)
                wrong.push(
                  `${face}/${effect}/${actor.userId}/keeper=${keeper}: ${verdict.verdict} (expected ${expected})`,
                );
              if (verdict.verdict === 'refuse') expect(verdict.reason.length).toBeGreaterThan(10);
            }
          }
        }
      }
      expect(wrong).toEqual([]);
    });
  }

  it('tells a console or MCP user how to get what the policy asks', async () => {
    const console = await gate.decide({
      ...question('confirm', 'console', 'approvals2', { userId: 'console:rita' }, false),
      command: 'restart_device device_id="Office Switch"',
    });
    expect(console).toMatchObject({ verdict: 'refuse' });
    if (console.verdict !== 'refuse') throw new Error('refused above');
    expect(console.reason).toMatch(/needs 2 approvals .*your own confirmation at the console counts as one/);
    expect(console.howTo).toBe(
      'propose it in Slack (/net restart_device device_id="Office Switch") so the people the policy names can approve it',
    );
    const mcp = await gate.decide(question('confirm', 'mcp', 'approvers', { userId: 'mcp:U0RITA' }, false));
    expect(mcp).toMatchObject({ verdict: 'refuse', howTo: expect.stringMatching(/MCP_WRITES=approval/) });
    if (mcp.verdict === 'refuse') expect(mcp.reason).toMatch(/only U0CAROL may approve this change/);
  });

  it('schedules the last approval outside a closed window for its next opening', async () => {
    const verdict = await gate.decide(question('approve', 'slack', 'closedWindow', CAROL, false));
    expect(verdict).toMatchObject({ verdict: 'allow', runAt: Date.UTC(2026, 0, 5, 22, 0, 0) });
  });

  it('names the bot that keeps a confirmed change’s deadline, and refuses without one', async () => {
    const actor = { userId: 'console:rita' };
    const without = await gate.decide(question('confirm', 'console', 'revertAfter', actor, false));
    expect(without).toMatchObject({
      verdict: 'refuse',
      reason: expect.stringMatching(/no running bot shares this store/),
    });
    const withKeeper = await gate.decide(question('confirm', 'console', 'revertAfter', actor, true));
    expect(withKeeper).toMatchObject({
      verdict: 'allow',
      notes: [expect.stringMatching(/reverts itself after 10m .*the bot replica r1 keeps the deadline/)],
    });
  });

  it.each([
    {
      what: 'refuses every console confirmation when the policy counts it nowhere (self_confirm: [])',
      yaml: 'defaults:\n  self_confirm: []\n',
      tool: 'create_network',
      because: /does not count your own confirmation at the console \(defaults\.self_confirm\)/,
    },
    {
      what: 'lets a policy rule take the console’s own confirmation away, and says which rule',
      yaml: 'rules:\n  - name: no-console-wifi\n    when: face == "console"\n    self_confirm: false\n',
      tool: 'set_wifi_broadcast_enabled',
      because: /does not count your own confirmation at the console \(rule "no-console-wifi"\)/,
    },
  ])('$what', async ({ yaml, tool, because }) => {
    const decision = evaluateChange(
      parsePolicy(yaml, 'p.yaml'),
      { tool, args: {}, requester: 'console:rita', channel: '', face: 'console' },
      assessImpact({}),
      {},
      NOON,
    );
    const verdict = await gate.decide({
      action: 'confirm',
      face: 'console',
      actor: { userId: 'console:rita' },
      change: { requester: { userId: 'console:rita' } },
      decision,
    });
    expect(verdict).toMatchObject({ verdict: 'refuse', reason: expect.stringMatching(because) });
  });
});

describe('break-glass at the gate', () => {
  it('runs on the word of a person the terms allow, and says who reviews it', async () => {
    const verdict = await gate.decide(question('break_glass', 'slack', 'approvals2', CAROL, false));
    expect(verdict).toEqual({
      verdict: 'allow',
      needed: 0,
      notes: ['break-glass: runs now on your word', 'reviewed afterwards by <@U0BOB> within 1d'],
    });
  });

  it('refuses anyone else, naming the list, and a deny whatever the terms', async () => {
    const bob = await gate.decide(question('break_glass', 'slack', 'none', BOB, false));
    expect(bob).toMatchObject({
      verdict: 'refuse',
      reason: expect.stringMatching(/only the policy's breakglass: allowed \(<@U0CAROL>\) may break glass/),
    });
    const denied = await gate.decide(question('break_glass', 'slack', 'deny', CAROL, false));
    expect(denied).toMatchObject({
      verdict: 'refuse',
      reason: 'break-glass never overrides a deny: refused by policy rule "no": not today',
    });
  });

  it('says how to ask from a face where nobody is a Slack person, and when the policy has no terms', async () => {
    const console = await gate.decide({
      ...question('break_glass', 'console', 'none', { userId: 'console:rita' }, false),
      command: 'restart_device device_id=Core',
    });
    expect(console).toMatchObject({
      verdict: 'refuse',
      howTo: 'ask in Slack: /net breakglass restart_device device_id=Core reason="…"',
    });
    const none = parsePolicy('', 'none.yaml');
    const q = question('break_glass', 'slack', 'none', CAROL, false);
    const withoutTerms = await gate.decide({
      ...q,
      decision: {
        ...(q.decision ?? { approvals: 1 }),
        ...(none.breakGlass ? {} : { breakGlass: undefined }),
      },
    } as GateQuestion);
    expect(withoutTerms).toMatchObject({
      verdict: 'refuse',
      reason: 'the policy lets nobody break glass',
      howTo: expect.stringMatching(/breakglass: section/),
    });
  });

  it('lowers the approvals of a break-glass change and runs it outside its window', async () => {
    const two = question('approve', 'slack', 'approvals2', CAROL, false);
    expect(
      await gate.decide({ ...two, change: { ...two.change, breakGlass: { approvals: 1 } } }),
    ).toMatchObject({
      verdict: 'allow',
      needed: 1,
    });
    const night = question('approve', 'slack', 'closedWindow', CAROL, false);
    const verdict = await gate.decide({
      ...night,
      change: { ...night.change, breakGlass: { approvals: 1 } },
    });
    expect(verdict).toEqual({ verdict: 'allow', needed: 1, notes: [] });
  });
});

describe('break-glass on the word with an identity provider at the gate', () => {
  const SIGNED_IN: Actor = {
    ...CAROL,
    identity: { issuer: 'https://idp.example', subject: 'carol', email: 'carol@example.com' },
  };
  const ON_THE_WORD = 'break-glass: runs now on your word';
  const AFTER_SIGN_IN = 'break-glass: runs on your word once you sign in at the identity provider';

  /** Carol's break-glass change: asked, or run on her word (the stored request carries its terms). */
  function word(opts: {
    effect: Effect;
    idp: boolean;
    running: boolean;
    actor: Actor;
    approvals?: number;
    stepUp?: string;
  }) {
    const terms = `breakglass:\n  allowed: [U0CAROL]\n  approvals: ${opts.approvals ?? 0}\n  reviewers: [U0BOB]\n`;
    const policy = parsePolicy(`${EFFECTS[opts.effect]}${terms}`, `${opts.effect}.yaml`);
    const decision = evaluateChange(
      opts.idp ? { ...policy, identityProvider: true } : policy,
      {
        tool: 'set_wifi_broadcast_enabled',
        args: { wifi_id: 'Guest', enabled: false },
        requester: CAROL.userId,
        channel: 'C0OPS',
        face: 'slack',
      },
      assessImpact({}),
      {},
      NOON,
    );
    const q: GateQuestion = {
      action: 'break_glass',
      face: 'slack',
      actor: opts.actor,
      change: {
        requester: CAROL,
        channel: 'C0OPS',
        ...(opts.running ? { breakGlass: { approvals: opts.approvals ?? 0 } } : {}),
      },
      decision: opts.stepUp ? { ...decision, stepUp: opts.stepUp } : decision,
    };
    return q;
  }

  it('asks the requester to sign in before the word runs anything, only with a provider', async () => {
    const wrong: string[] = [];
    const effects = (Object.keys(EFFECTS) as Effect[]).filter((e) => e !== 'deny');
    for (const effect of effects) {
      for (const idp of [false, true]) {
        for (const running of [false, true]) {
          for (const actor of [CAROL, SIGNED_IN]) {
            const verdict = await gate.decide(word({ effect, idp, running, actor }));
            const mustSignIn = idp && !actor.identity;
            const expected: GateVerdict =
              running && mustSignIn
                ? {
                    verdict: 'refuse',
                    reason:
                      'break-glass on your word needs step-up sign-in (break-glass on your word): it runs once you sign in',
                    stepUp: 'break-glass on your word',
                  }
                : {
                    verdict: 'allow',
                    needed: 0,
                    notes: [mustSignIn ? AFTER_SIGN_IN : ON_THE_WORD, expect.any(String)],
                  };
            try {
              expect(verdict).toEqual(expected);
            } catch {
              wrong.push(
                `${effect} idp=${idp} running=${running} signed=${Boolean(actor.identity)}: ${JSON.stringify(verdict)}`,
              );
            }
          }
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('runs nothing on someone else’s word, signed in or not, and never past a deny', async () => {
    const bob: Actor = { ...BOB, identity: { issuer: 'https://idp.example', subject: 'bob' } };
    expect(await gate.decide(word({ effect: 'none', idp: true, running: true, actor: bob }))).toMatchObject({
      verdict: 'refuse',
    });
    const denied = await gate.decide(word({ effect: 'deny', idp: true, running: true, actor: SIGNED_IN }));
    expect(denied).toMatchObject({ verdict: 'refuse', deny: { rule: 'no', reason: 'not today' } });
    const deniedUnsigned = await gate.decide(
      word({ effect: 'deny', idp: true, running: true, actor: CAROL }),
    );
    expect(deniedUnsigned).toMatchObject({ verdict: 'refuse', deny: { rule: 'no' } });
    expect(deniedUnsigned).not.toHaveProperty('stepUp');
  });

  it('asks no sign-in of the requester when the terms ask approvals (the approvers step up per their rule)', async () => {
    for (const running of [false, true]) {
      const verdict = await gate.decide(
        word({ effect: 'approvals2', idp: true, running, actor: CAROL, approvals: 1 }),
      );
      expect(verdict).toMatchObject({
        verdict: 'allow',
        needed: 1,
        notes: [expect.stringMatching(/1 approval instead of 2/), expect.any(String)],
      });
    }
  });

  it('gives a rule’s own step-up reason when the rule asks for it', async () => {
    const verdict = await gate.decide(
      word({ effect: 'none', idp: true, running: true, actor: CAROL, stepUp: 'rule "wifi-sign-in"' }),
    );
    expect(verdict).toMatchObject({ verdict: 'refuse', stepUp: 'rule "wifi-sign-in"' });
  });
});
