import { existsSync } from 'node:fs';

/**
 * Whether this process runs in a container (Docker, Podman, Kubernetes): the marker files the
 * engines create, or the variable Kubernetes sets in every pod.
 */
export function runningInContainer(env: NodeJS.ProcessEnv = process.env): boolean {
  return (
    Boolean(env.KUBERNETES_SERVICE_HOST) || existsSync('/.dockerenv') || existsSync('/run/.containerenv')
  );
}
