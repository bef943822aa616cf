import { z } from 'zod';
import { ValidationError } from '../errors.js';
import type { ParsedCommand } from './parse-command-line.js';

/** The two history commands every face offers (`/net changes …`, console `changes …`). */
export const LIST_CHANGES = 'changes';
const SHOW_CHANGE = 'change';

/** One help paragraph for the history commands, shared by Slack and the console. */
export const HISTORY_HELP = [
  'History:',
  '  changes [state=pending,failed] [user=@name|U…|me] [since=24h|7d|2030-01-31] [tool=…] [page=N]',
  '      change requests, newest first, 20 a page',
  '  change <id>   one request in full: preview, every journal entry, result or error',
  '  revert_change change_id=<id>   (or revert <id>) propose the change that undoes one that ran',
  '  plan [on_failure=stop] [title="…"], then one write per line   several writes as one change set:',
  '      previewed together, approved once, run in order, undone together if a step fails',
  '  rollout <write or plan> sites=<label|console/site,…|*> [waves=1,25%,rest] [soak=10m]',
  '      one change across sites in waves, verified and watched between them, halted on trouble',
  '  breakglass <write> reason="…"   the write under the policy\'s break-glass terms (Slack only):',
  '      fewer approvals or none, posted to the audit channel at once, reviewed afterwards',
].join('\n');

/** `revert <id>` and `revert_change change_id=<id>`: propose the change that undoes one. */
const REVERT_COMMANDS: readonly string[] = ['revert', 'revert_change'];

/** Is this command word `revert` or `revert_change`? */
export function isRevertCommand(command: string): boolean {
  return REVERT_COMMANDS.includes(command);
}

/** Is this command word one of the history commands? */
export function isHistoryCommand(command: string): boolean {
  return command === LIST_CHANGES || command === SHOW_CHANGE;
}

type Words = Pick<ParsedCommand, 'args' | 'positionals'>;

const text = (value: string | string[] | undefined) =>
  value === undefined ? undefined : Array.isArray(value) ? value.join(',') : value;

/** Exactly one change request id: what a proposed revert names. */
const oneChangeId = z.tuple([
  z
    .string()
    .trim()
    .regex(/^cr_[a-z2-7]{20}$/),
]);

/**
 * The change id of a revert proposed in Slack (`revert cr_…`, `revert_change change_id=cr_…`):
 * checked whole here, since the proposal is posted for others to approve.
 */
export function revertChangeId(command: Words): string {
  const given = [...command.positionals, ...[text(command.args.change_id)].filter((v) => v !== undefined)];
  const extra = Object.keys(command.args).find((key) => key !== 'change_id');
  if (extra !== undefined) {
    throw new ValidationError([
      { field: extra, rule: 'is not an argument of revert_change (it takes change_id)' },
    ]);
  }
  const checked = oneChangeId.safeParse(given);
  if (!checked.success) {
    throw new ValidationError([
      {
        field: 'change_id',
        rule: 'must be one change request id (cr_…), e.g. revert_change change_id=cr_abc…; changes lists them',
      },
    ]);
  }
  return checked.data[0];
}

const word = z.string().min(1);
const wordOrList = z.union([word, z.array(z.string())]);

type Named = Words & { command: string };

/** The first bare word, else `change_id=`, as the schema takes it; else "is required". */
function givenChangeId<T>(command: Named, schema: z.ZodType<T>): T {
  const checked = schema.safeParse(command.positionals[0] ?? command.args.change_id);
  if (!checked.success) {
    throw new ValidationError([
      { field: 'change_id', rule: `is required: ${command.command} <change id>`, missing: true },
    ]);
  }
  return checked.data;
}

/** The change id of the console's `revert <id>`: any one word, since the store says whether it exists. */
export function consoleRevertId(command: Named): string {
  return givenChangeId(command, word);
}

/** The change id of the console's `keep <id>`: a list (`keep a,b`) is passed on for its tool to refuse. */
export function consoleKeepId(command: Named): string | string[] {
  return givenChangeId(command, wordOrList);
}
