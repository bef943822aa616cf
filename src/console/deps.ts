import type { RolloutProposal } from '../approvals/rollouts.js';
import type { Actor, ChangeRequest, ErrorSummary } from '../approvals/types.js';
import type { SetProposal } from '../changes/change-set.js';
import type { ScopeArgs } from '../commands/aliases.js';
import type { Logger } from '../log.js';
import type { ChangeAssessmentRecord } from '../model/change-request.js';
import type { GateVerdict } from '../policy/gate.js';
import type { ChangeReader } from '../store/types.js';
import type { ToolContext } from '../tools/core/define-tool.js';
import type { ToolRegistry } from '../tools/core/registry.js';

/** What the console needs: the shared registry, a tool context, and its three streams. */
export interface ConsoleDeps {
  registry: ToolRegistry;
  context: ToolContext;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  errorOutput: NodeJS.WritableStream;
  logger: Logger;
  banner?: string;
  /** Table width from the shell's COLUMNS; without it the TTY's width, and unbounded when piped. */
  columns?: number;
  /** The change requests, read-only, for `changes` and `change <id>`. */
  changes?: ChangeReader;
  /**
   * Where Ctrl-C arrives when stdin is not a terminal (the process: SIGINT). At `approve? [y/N]`
   * it answers "not run" and the console goes on; at the prompt it leaves the console.
   */
  signals?: NodeJS.EventEmitter;
  /** Ctrl-C while a command runs (no prompt is shown): the caller stops the program. */
  abort?: () => void;
  /**
   * Where an approved console write runs, so it is recorded like a Slack one (Approvals.runNow:
   * created, approved, executing, succeeded | failed in the journal). Without it the write runs
   * straight through the registry and is not recorded (tests of the grammar alone).
   */
  recorder?: ChangeRecorder;
  /** Who is at the console: requester and approver of its writes (`console:<OS user>`). */
  operator?: Actor;
  /** `--ids`: tables show their id columns even when the width is short. */
  showIds?: boolean;
  /** Where `use` sends the commands: a plan's steps get it as a typed command does. */
  scope?: ScopeArgs;
}

export type RunOutcome =
  | { kind: 'succeeded'; request: ChangeRequest; result: unknown }
  | { kind: 'failed'; request: ChangeRequest; error: ErrorSummary }
  | { kind: 'already'; request: ChangeRequest };

/** What the gate says of a change confirmed here, beside its preview (Approvals' previews). */
export interface Judged {
  preview: unknown;
  previewHash: string;
  assessment: ChangeAssessmentRecord;
  verdict: GateVerdict;
  timing?: { first?: { seconds: number; kind: string; source: string } };
}

/**
 * What recording a console write needs: Approvals' previews (with the gate's verdict on the
 * operator's own confirmation) and the runs that record each write as a change.
 */
export interface ChangeRecorder {
  runNow(input: {
    tool: string;
    args: Record<string, unknown>;
    requester: Actor;
    shownHash?: string;
  }): Promise<RunOutcome>;
  previewChange?(input: {
    tool: string;
    args: Record<string, unknown>;
    requester: Actor;
  }): Promise<Judged & { tool: string }>;
  previewRevert?(changeId: string, requester: Actor): Promise<Judged & { tool: string }>;
  runRevertNow?(input: { changeId: string; requester: Actor; shownHash?: string }): Promise<RunOutcome>;
  /** A change set's preview, and the set run once approved at the prompt. */
  previewSet?(input: SetProposal & { requester: Actor }): Promise<Judged>;
  runSetNow?(input: SetProposal & { requester: Actor; shownHash?: string }): Promise<RunOutcome>;
  /** A rollout's preview (every site's dry run), and the rollout run once approved at the prompt. */
  previewRollout?(input: RolloutProposal): Promise<Judged>;
  runRolloutNow?(input: RolloutProposal & { shownHash?: string }): Promise<RunOutcome>;
}

/** The console as one command asked for it: `--ids` shows id columns the width would leave out. */
export function withFlags(deps: ConsoleDeps, flags: ReadonlySet<string>): ConsoleDeps {
  return flags.has('--ids') ? { ...deps, showIds: true } : deps;
}
