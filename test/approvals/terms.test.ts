import { describe, expect, it } from 'vitest';
import { automaticActor, timingFields, timingOf } from '../../src/approvals/terms.js';

describe('who an automatic revert is done by', () => {
  it("a request's own revert_after= is a timer", () => {
    expect(automaticActor({ revertAfterSeconds: 600 }, 'keep_timeout')).toEqual({
      userId: 'system:timer',
      name: 'timer: revert_after 10m',
    });
  });

  it("a policy rule's revert_after is that rule, by name", () => {
    expect(
      automaticActor({ revertAfterSeconds: 300, revertAfterRule: 'Lab changes' }, 'keep_timeout'),
    ).toEqual({
      userId: 'system:policy',
      name: 'policy rule "Lab changes": revert_after 5m',
    });
  });

  it('a temporary change is its for= timer, even under a longer keep rule', () => {
    expect(automaticActor({ forSeconds: 3600 }, 'temporary')).toEqual({
      userId: 'system:timer',
      name: 'timer: for 1h',
    });
    expect(
      automaticActor({ forSeconds: 5, revertAfterSeconds: 600, revertAfterRule: 'slow' }, 'temporary').name,
    ).toBe('timer: for 5s');
  });

  it('a revert because the controller went unreachable names the deadline it cut short', () => {
    expect(automaticActor({ revertAfterSeconds: 600 }, 'unreachable').name).toBe(
      'timer: revert_after 10m, controller unreachable',
    );
  });
});

describe('the deadline a change keeps', () => {
  it('records the policy rule when its revert_after is the shortest, not when the request asked for less', () => {
    const byRule = timingOf({}, { revertAfterSeconds: 600, revertAfterRule: 'revert-quick', matched: [] });
    expect(timingFields(byRule)).toEqual({ revertAfterSeconds: 600, revertAfterRule: 'revert-quick' });
    expect(byRule.first?.source).toBe(`the policy's revert_after 10m (rule "revert-quick")`);

    const own = timingOf(
      { revertAfterSeconds: 60 },
      { revertAfterSeconds: 600, revertAfterRule: 'revert-quick', matched: [] },
    );
    expect(timingFields(own)).toEqual({ revertAfterSeconds: 60 });
  });
});
