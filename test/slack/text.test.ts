import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
// Deliberately alike: the text helpers under test, imported by name.
import {
  clip,
  clipMrkdwn,
  code,
  codeBlock,
  mention,
  mrkdwn,
  mrkdwnText,
  plain,
  plainText,
} from '../../src/slack/blocks/text.js';
import { mrkdwnProblems, slackTextProblems } from '../helpers/slack-text.js';

describe('mrkdwn()', () => {
  it('escapes &, < and > once, so markup in data is shown, never parsed', () => {
    expect(mrkdwn('R&D <!channel> <@U0EVIL> <https://evil.example|click>')).toBe(
      'R&amp;D &lt;!channel&gt; &lt;@U0EVIL&gt; &lt;https://evil.example|click&gt;',
    );
    expect(mrkdwn('&amp;')).toBe('&amp;amp;'); // data that looks escaped is data too
  });

  it('shows backticks as \\u0060 so data cannot open or close code', () => {
    expect(mrkdwn('x```y`z')).toBe('x\\u0060\\u0060\\u0060y\\u0060z');
  });

  it('shows zero-width, bidi and other hidden characters as \\uXXXX, keeping newlines', () => {
    expect(mrkdwn('Ser\u200Bvers')).toBe('Ser\\u200Bvers');
    expect(mrkdwn('a\u202Eb\u2066c\u2069d\uFEFFe\u00ADf\u2060g')).toBe(
      'a\\u202Eb\\u2066c\\u2069d\\uFEFFe\\u00ADf\\u2060g',
    );
    expect(mrkdwn('tab\there\r\nnext\u2028line')).toBe('tab\\u0009here\\u000D\nnext\\u2028line');
    expect(mrkdwn('tag\u{E0041}')).toBe('tag\\u{E0041}');
    expect(mrkdwn('lone\uD800')).toBe('lone\\uD800');
    expect(mrkdwn('emoji 😀 and ünïcode')).toBe('emoji 😀 and ünïcode');
  });

  it('doubles a backslash that would read as one of its escapes, and only that one', () => {
    expect(mrkdwn('typed \\u200B literally')).toBe('typed \\\\u200B literally');
    expect(mrkdwn('C:\\Users\\x')).toBe('C:\\Users\\x');
  });
});

describe('plain()', () => {
  it('shows hidden characters but leaves & < > and backticks alone (Slack does not parse plain_text)', () => {
    expect(plain('R&D <lab> `x`\u200B')).toBe('R&D <lab> `x`\\u200B');
    expect(plainText('Ser\u200Bvers', 6)).toEqual({ type: 'plain_text', text: 'Ser…' });
  });
});

describe('code() and codeBlock()', () => {
  it('renders inline code on one line that no value can close early', () => {
    expect(code('a`b\nc')).toBe('`a\\u0060b\\u000Ac`');
    expect(code('')).toBe('`""`');
  });

  it('renders a code block whose content cannot end it', () => {
    const block = codeBlock('line ```\n<!here>');
    expect(block).toBe('```\nline \\u0060\\u0060\\u0060\n&lt;!here&gt;\n```');
    expect(mrkdwnProblems(block, 'block')).toEqual([]);
  });
});

describe('clip() and clipMrkdwn()', () => {
  it('never cuts inside an entity, an escape, a surrogate pair or a mention', () => {
    expect(clipMrkdwn(`${'a'.repeat(10)}&amp;${'b'.repeat(10)}`, 17)).toBe(`${'a'.repeat(10)}…`);
    expect(clip('ab\\u200Bcd', 6)).toBe('ab…');
    expect(clip('ab😀cd', 4)).toBe('ab…');
    expect(clipMrkdwn(`${'x'.repeat(10)} <@U123456>`, 18)).toBe(`${'x'.repeat(10)} …`);
  });

  it('closes a code block or inline code that the cut leaves open', () => {
    const block = clipMrkdwn(codeBlock('y'.repeat(100)), 40);
    expect(block.length).toBeLessThanOrEqual(40);
    expect(block.endsWith('…\n```')).toBe(true);
    const inline = clipMrkdwn(`see ${code('z'.repeat(100))} now`, 30);
    expect(inline.length).toBeLessThanOrEqual(30);
    expect(mrkdwnProblems(block, 'block')).toEqual([]);
    expect(mrkdwnProblems(inline, 'inline')).toEqual([]);
  });

  it('gives text the Slack check accepts, whatever the data and wherever the cut', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 200 }),
        fc.integer({ min: 8, max: 220 }),
        (raw, max) => {
          for (const composed of [mrkdwn(raw), `*${mrkdwn(raw)}* ${code(raw)}`, codeBlock(raw)]) {
            const cut = clipMrkdwn(composed, max);
            expect(cut.length).toBeLessThanOrEqual(max);
            expect(mrkdwnProblems(cut, 'cut')).toEqual([]);
          }
          expect(slackTextProblems(plainText(raw, max))).toEqual([]);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('mention() and text objects', () => {
  it('mentions user ids only; anything else is text', () => {
    expect(mention('U0ALICE')).toBe('<@U0ALICE>');
    expect(mention('<!channel>')).toBe('&lt;!channel&gt;');
  });

  it('marks mrkdwn objects verbatim so bare URLs and channel names in data stay text', () => {
    expect(mrkdwnText('see https://evil.example')).toEqual({
      type: 'mrkdwn',
      text: 'see https://evil.example',
      verbatim: true,
    });
  });
});

describe('the Slack text check (test helper)', () => {
  it('accepts the markup the bot writes and flags markup, hidden characters and open fences from data', () => {
    const ok =
      '<@U1> <#C1|ops> <!subteam^S1> <!date^1700000000^{date_short_pretty}|2023-11-14> `a` ```\nb\n```\n> quote &amp;';
    expect(mrkdwnProblems(ok, 't')).toEqual([]);
    for (const bad of [
      '<!channel>',
      '<!here>',
      '<@U0EVIL|x>',
      '<#C1 >',
      '<https://x>',
      'a & b',
      'a > b',
      '```open',
      '`open',
      '```\na`b\n```',
      'x\u200By',
      '&amp;lt;',
    ]) {
      expect(mrkdwnProblems(bad, 't'), bad).not.toEqual([]);
    }
  });

  it('walks a whole payload: blocks, fallback text, titles, comments and form errors', () => {
    const payload = {
      text: '<!channel>',
      initial_comment: 'ok',
      blocks: [
        {
          type: 'section',
          text: { type: 'plain_text', text: 'a\u202Eb' },
          fields: [{ type: 'mrkdwn', text: '<http://x>' }],
        },
      ],
      files: [{ title: 'x\u200B' }],
      errors: { name: 'y\u2066' },
      private_metadata: '<!channel>\u200B',
    };
    const places = slackTextProblems(payload).map((problem) => problem.split(':')[0]);
    expect([...new Set(places)]).toEqual([
      'payload.text',
      'payload.blocks[0].text.text',
      'payload.blocks[0].fields[0].text',
      'payload.files[0].title',
      'payload.errors.name',
    ]);
  });
});
