import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

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

});
