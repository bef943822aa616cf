import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const docsDir = new URL('../docs/', import.meta.url);

describe('the README a newcomer reads first', () => {
  it('names the Node.js version package.json requires', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      engines: { node: string };
    };
    const required = pkg.engines.node.replace(/^>=/, '');
    expect(readme).toContain(`Node.js ${required} or newer`);
    for (const match of readme.matchAll(/Node(?:\.js)? (\d+\.\d+(?:\.\d+)?)/g))
      expect(match[1]).toBe(required);
  });

  it('keeps the two-command quick start', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toMatch(/^npm test\b/m);
  });

  it('links every page of docs/, so no guide is reachable only by knowing its name', () => {
    const pages = readdirSync(docsDir).filter((name) => name.endsWith('.md'));
    expect(pages.length).toBeGreaterThan(10);
    for (const page of pages) expect(readme, page).toContain(`](docs/${page}`);
  });

  it('lists each of its sections in its table of contents', () => {
    const contents = readme.slice(readme.indexOf('## Contents'), readme.indexOf('## Quick start'));
    const sections = [...readme.matchAll(/^## (.+)$/gm)]
      .map((m) => m[1] ?? '')
      .filter((h) => h !== 'Contents');
    expect(sections.length).toBeGreaterThan(5);
    for (const section of sections) expect(contents, section).toContain(`[${section}](#`);
  });

  it('stays short enough to read in minutes', () => {
    expect(readme.split('\n').length).toBeLessThan(200);
  });
});
