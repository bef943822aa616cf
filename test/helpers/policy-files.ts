import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The `windows:` section with the weeknight window that policy tests schedule changes in: 22:00
 * to 02:00 Berlin time, Monday to Friday, so a window that crosses midnight is always covered.
 * It ends with a newline; more windows may follow it, indented by two spaces.
 */
export const WEEKNIGHT_WINDOWS = `windows:
  night:
    days: [mon, tue, wed, thu, fri]
    start: "22:00"
    end: "02:00"
    timezone: Europe/Berlin
`;

/** Writes `yaml` as policy.yaml in a fresh temporary directory named from `prefix`; its path. */
export function writePolicyFile(prefix: string, yaml: string): string {
  const path = join(mkdtempSync(join(tmpdir(), prefix)), 'policy.yaml');
  writeFileSync(path, yaml);
  return path;
}
