import { expect } from 'vitest';

/** One scalar of a request body: where it sits, its key (or none inside a list), and its value. */
interface Leaf {
  path: string;
  key: string | undefined;
  value: string | number | boolean;
}

function leavesOf(value: unknown, path: string, key: string | undefined, out: Leaf[]): Leaf[] {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    out.push({ path, key, value });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => {
      leavesOf(item, `${path}[${i}]`, undefined, out);
    });
  } else if (typeof value === 'object' && value !== null) {
    for (const [k, item] of Object.entries(value)) leavesOf(item, path === '' ? k : `${path}.${k}`, k, out);
  }
  return out;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const collapse = (text: string) => text.replace(/\s+/g, ' ').trim();

/** Slack escapes &, < and > in message text; the approver reads the characters. */
function unescapeSlack(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/**
 * The scalars of `body` (strings, numbers, booleans, walked through every object and list) that
 * the preview text does not show, as `path = value`. A field must read `key: value` and a list
 * item `- value`, so a value that only happens to occur elsewhere in the text does not count;
 * an empty string must read `""`. Wrapped lines are joined, Slack escapes undone.
 */
export function valuesMissingFromPreview(previewText: string, body: unknown): string[] {
  const text = ` ${collapse(unescapeSlack(previewText))} `;
  return leavesOf(body, '', undefined, [])
    .filter(({ key, value }) => {
      const shown = value === '' ? '""' : collapse(String(value));
      const lead = key === undefined ? '- ' : `${escapeRegExp(key)}: `;
      return !new RegExp(`\\s${lead}${escapeRegExp(shown)}(?=\\s)`).test(text);
    })
    .map(({ path, value }) => `${path} = ${JSON.stringify(value)}`);
}

/** Fails naming every scalar of every body that the preview does not show. */
export function expectPreviewShowsEveryValue(previewText: string, bodies: readonly unknown[]): void {
  expect(bodies.length, 'the change sent no request body').toBeGreaterThan(0);
  const missing = bodies.flatMap((body, i) =>
    valuesMissingFromPreview(previewText, body).map((leaf) => `request ${i + 1}: ${leaf}`),
  );
  expect(missing, `values sent but not shown in the preview:\n${previewText}`).toEqual([]);
}
