import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generatedToolTable, README_PATH, toolTableIn } from '../scripts/readme-tool-table.js';
import { ENV_VARIABLES } from '../src/config.js';

const readme = readFileSync(README_PATH, 'utf8');
const envExample = readFileSync(new URL('../.env.example', import.meta.url), 'utf8');

describe('README and .env.example stay true to the code', () => {
  it('carries the tool table generated from the registry (run `npm run docs:tools` when this fails)', () => {
    expect(toolTableIn(readme)).toBe(generatedToolTable());
  });

  it.each(ENV_VARIABLES)('documents %s in the configuration table and in .env.example', (name) => {
    expect(readme).toMatch(new RegExp(`\\|[^\\n]*\`${name}\`[^\\n]*\\|`));
    expect(envExample).toMatch(new RegExp(`^${name}=`, 'm'));
  });

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
