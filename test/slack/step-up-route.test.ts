import { describe, expect, it } from 'vitest';
import type { ChangeRequest } from '../../src/approvals/types.js';
import { pageText, wordPageText } from '../../src/slack/step-up-route.js';

// What the sign-in callback page says for each outcome of the approval it made: only a recorded
// approval counts, and every other outcome says nothing ran.

const request = {
  id: 'cr_7',
  state: 'succeeded',
  approvedBy: [{ userId: 'U0A' }],
} as unknown as ChangeRequest;

describe('the step-up callback page', () => {
  it('says the approval counted only when it was recorded', () => {
    expect(pageText({ kind: 'succeeded', request, result: {} })).toEqual({
      counted: true,
      text: 'Signed in. Your approval of cr_7 counted and the change ran.',
    });
    expect(pageText({ kind: 'endorsed', request, needed: 2 })).toEqual({
      counted: true,
      text: 'Signed in. Your approval of cr_7 is recorded: 1 of 2 approvals.',
    });
  });

  it('says in plain words why nothing was approved otherwise', () => {
    expect(pageText({ kind: 'mismatch', request, shownHash: 'f'.repeat(64) })).toMatchObject({
      counted: false,
      text: expect.stringMatching(/preview of cr_7 changed since you clicked Approve; nothing was approved/),
    });
    expect(pageText({ kind: 'already', request })).toEqual({
      counted: false,
      text: 'cr_7 is no longer waiting for approval (succeeded); nothing more was done.',
    });
    expect(pageText({ kind: 'refused', request, reason: 'you requested this change' })).toMatchObject({
      counted: false,
    });
    expect(pageText({ kind: 'not_found', id: 'cr_9' }).text).toBe(
      'There is no change cr_9; nothing was approved.',
    );
  });

  it('says a break-glass change ran on the word only when it ran', () => {
    expect(wordPageText({ kind: 'succeeded', request, result: {} })).toEqual({
      counted: true,
      text: 'Signed in. Break-glass change cr_7 ran on your word.',
    });
    expect(
      wordPageText({ kind: 'failed', request, error: { code: 'gateway_rejected', message: 'no' } }),
    ).toEqual({ counted: true, text: 'Signed in. Break-glass change cr_7 did not succeed: no' });
    expect(wordPageText({ kind: 'already', request })).toMatchObject({
      counted: false,
      text: expect.stringMatching(/nothing more was done/),
    });
  });
});
