import { z } from 'zod';
import { ConflictError, NotSupportedError } from '../../errors.js';
import { confirm, dryRun } from '../core/arg-types.js';
import { defineTool, type ToolContext } from '../core/define-tool.js';
import { notRevertible } from '../core/spec-helpers.js';

/**
 * What keep_change needs from the change timers (src/changes/timers.ts `ChangeTimers` has this
 * shape; `app.ts` puts it in the ToolContext as `changeTimers`). Declared here so tools/ imports
 * no layer above it.
 */
export interface KeepPort {
  pendingRevert(changeId: string): Promise<
    | {
        deadline: { id: string; kind: string; dueAt: string };
        change?: { tool: string; site: string };
        msLeft: number;
      }
    | undefined
  >;
  /** Keeps it if the gate lets `actor` (refused with the reason otherwise). */
  keep(
    changeId: string,
    actor: { userId: string; name?: string },
  ): Promise<{ id: string; state: string; finishedAt?: string }>;
}

/** The ToolContext with the timers port (absent in a process that runs no timers). */
type TimersContext = ToolContext & { changeTimers?: KeepPort };

const changeId = z
  .string({ error: 'must be a change id (cr_…)' })
  .regex(/^cr_[a-z2-7]{20}$/, { error: 'must be a change id: cr_ and 20 letters or digits' })
  .describe('The change whose automatic revert to cancel (from `changes`)');

/**
 * keep_change is a write: it is previewed and approved like any change, and the person who
 * approved it (in Slack: the approver; at the console: its operator; over MCP confirm: the client)
 * keeps the change only if the gate lets them keep that change, as the Keep button does.
 */
export const keepChange = defineTool({
  name: 'keep_change',
  change: notRevertible(
    'Keep only cancels the automatic revert of another change; revert that change itself to undo it',
  ),
  description:
    'Keep a change made with revert_after= (or for=): cancels its automatic revert before the deadline.',
  access: 'write',
  example: 'change_id=cr_abcdefghijklmnopqrst',
  args: z.object({ change_id: changeId, confirm, dry_run: dryRun }),
  async run({ change_id, dry_run }, context) {
    const timers = (context as TimersContext).changeTimers;
    if (!timers && dry_run) {
      // A process without approvals (a read-only console) cannot see the deadlines; the preview says
      // so rather than guess, and running it is refused below.
      return {
        dry_run: true,
        would_keep: { change_id },
        warnings: [
          'this process runs no change timers: whether a revert is pending is known only where the change was made',
        ],
      };
    }
    if (!timers)
      throw new NotSupportedError(
        'keep_change needs the bot’s change timers, which this process does not run',
      );
    const pending = await timers.pendingRevert(change_id);
    if (dry_run) {
      if (!pending) {
        return {
          dry_run: true,
          nothing_to_change: true,
          note: `change ${change_id} has no automatic revert pending (kept, reverted, or never timed)`,
        };
      }
      return {
        dry_run: true,
        would_keep: {
          change_id,
          tool: pending.change?.tool,
          site: pending.change?.site,
          revert: pending.deadline.kind,
          revert_due_at: pending.deadline.dueAt,
        },
        warnings: [],
      };
    }
    if (!pending) throw new ConflictError(`change ${change_id} has no automatic revert pending`);
    if (!context.actor)
      throw new NotSupportedError(
        'keep_change runs only as an approved change, for the person who approved it',
      );
    const kept = await timers.keep(change_id, context.actor);
    return { change_id, kept: true, revert_cancelled: kept.id, kept_at: kept.finishedAt };
  },
});

/** The change-control tools (revert_change joins them from the change runner). */
export const keepTools = [keepChange];
