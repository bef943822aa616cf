import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApprovalPeople, type ApprovalPeopleOptions } from '../../src/approvals/people.js';
import { silentLogger } from '../../src/log.js';
import { JOURNAL_FILE } from '../../src/store/file/journal.js';

/** The requester, an approver, and someone with no role, as Slack user ids. */
export const RITA = { userId: 'U0RITA', name: 'rita' };
export const ALEX = { userId: 'U0ALEX', name: 'alex' };
export const STAN = { userId: 'U0STAN', name: 'stan' };

/** 2030-01-01T00:00:00Z: a fixed start so expiry times are exact. */
export const START = Date.parse('2030-01-01T00:00:00.000Z');

/** A clock the test moves by hand. */
export class Clock {
  ms = START;
  readonly now = () => this.ms;
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

/** A fresh DATA_DIR; `remove` deletes it. */
export function tempDataDir(): { dir: string; journal: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'netops-approvals-'));
  return {
    dir,
    journal: join(dir, JOURNAL_FILE),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A policy with the defaults of DESIGN §3 (APPROVERS unset, no self-approval), overridable. */
export function policyWith(options: Partial<ApprovalPeopleOptions> = {}): ApprovalPeople {
  return new ApprovalPeople({
    approvers: [],
    allowSelfApproval: false,
    requesters: [],
    writeChannels: [],
    groupMembers: async (group) => {
      throw new Error(`no group ${group} in this test`);
    },
    logger: silentLogger(),
    ...options,
  });
}

/** The journal's events as parsed objects, in order. */
export function journalEvents(path: string): { type: string; id: string; [key: string]: unknown }[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { type: string; id: string });
}
