import { describe, expect, it } from 'vitest';
import { runningInContainer } from '../src/config.js';

describe('runningInContainer', () => {
  const onlyFile = (marker: string) => (path: string) => path === marker;
  const noFiles = () => false;

  it('is true in a Kubernetes pod, whatever the files say', () => {
    expect(runningInContainer({ KUBERNETES_SERVICE_HOST: '10.96.0.1' }, noFiles)).toBe(true);
  });

  it('is true under Docker or Podman, by the marker file each engine creates', () => {
    expect(runningInContainer({}, onlyFile('/.dockerenv'))).toBe(true);
    expect(runningInContainer({}, onlyFile('/run/.containerenv'))).toBe(true);
  });

  it('is false on a host with neither the variable nor a marker', () => {
    expect(runningInContainer({ KUBERNETES_SERVICE_HOST: '' }, noFiles)).toBe(false);
    expect(runningInContainer({}, onlyFile('/etc/hostname'))).toBe(false);
  });
});
