import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runningInContainer } from '../src/config.js';

describe('runningInContainer', () => {
  it('is true in a Kubernetes pod, whatever the files say', () => {
    expect(runningInContainer({ KUBERNETES_SERVICE_HOST: '10.96.0.1' })).toBe(true);
  });

  it('otherwise follows the engines’ marker files', () => {
    const marked = existsSync('/.dockerenv') || existsSync('/run/.containerenv');
    expect(runningInContainer({})).toBe(marked);
  });
});
