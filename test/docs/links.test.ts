import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Every relative link of README.md and docs/*.md reaches a file that exists, and an anchor reaches a
// heading of that page, as GitHub names headings. Nothing in them points at an issue or a round of
// work: that history lives in git.

const ROOT = resolve('.');
const pages = [
  'README.md',
  ...readdirSync('docs')
    .filter((n) => n.endsWith('.md'))
    .map((n) => `docs/${n}`),
];

/** The text with fenced code blocks and inline code taken out: links inside them are not links. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const withoutCode = markdown.replace(/^```[\s\S]*?^```/gm, '');
  for (const match of withoutCode.matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = (match[1] ?? '')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

interface Link {
  page: string;
  target: string;
}

function relativeLinks(): Link[] {
  return pages.flatMap((page) =>
    [...prose(readFileSync(page, 'utf8')).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?: "[^"]*")?\)/g)]
      .map((m) => m[1] ?? '')
      .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
      .map((target) => ({ page, target })),
  );
}

describe('links in README.md and docs/', () => {
  const links = relativeLinks();

  it('finds the links it checks', () => {
    expect(links.length).toBeGreaterThan(100);
    expect(headingAnchors('## Writes: `MCP_WRITES`\n## A, b\n## A, b')).toEqual(
      new Set(['writes-mcp_writes', 'a-b', 'a-b-1']),
    );
  });

  it('reach a file or folder that exists in the repository', () => {
    const broken = links
      .map(({ page, target }) => ({ page, target, path: target.split('#')[0] ?? '' }))
      .filter(({ path }) => path !== '')
      .filter(({ page, path }) => {
        const file = resolve(dirname(page), decodeURIComponent(path));
        return !file.startsWith(ROOT) || !existsSync(file);
      })
      .map(({ page, target }) => `${page} → ${target}`);
    expect(broken).toEqual([]);
  });

  it('reach a heading of the page when they name an anchor', () => {
    const broken = links
      .filter(({ target }) => target.includes('#'))
      .filter(({ page, target }) => {
        const [path = '', anchor = ''] = target.split('#');
        const file = path === '' ? resolve(page) : resolve(dirname(page), path);
        if (!file.endsWith('.md') || !existsSync(file) || statSync(file).isDirectory()) return true;
        return !headingAnchors(readFileSync(file, 'utf8')).has(anchor);
      })
      .map(({ page, target }) => `${page} → ${target}`);
    expect(broken).toEqual([]);
  });

  it('keep inside the repository', () => {
    const outside = links
      .map(({ page, target }) => ({ page, target, file: resolve(dirname(page), target.split('#')[0] ?? '') }))
      .filter(({ file }) => relative(ROOT, file).startsWith('..'))
      .map(({ page, target }) => `${page} → ${target}`);
    expect(outside).toEqual([]);
  });
});

describe('README.md and docs/ read by topic, not as a log of work', () => {
  it('name no issue or round of work (other projects’ tracker references such as owner/repo#123 are fine)', () => {
    const found = pages.flatMap((page) =>
      readFileSync(join(ROOT, page), 'utf8')
        .split('\n')
        .map((line, i) => ({ line, at: `${page}:${i + 1}` }))
        .filter(({ line }) => /issue ?[0-9]+|round [0-9]/i.test(line))
        .map(({ at, line }) => `${at}: ${line.trim().slice(0, 120)}`),
    );
    expect(found).toEqual([]);
  });
});
