import { type Routed, routeWords } from '../commands/router.js';
import { isBotError, NotAuthorizedError, ValidationError } from '../errors.js';
import { type ConsoleDeps, withFlags } from './deps.js';
import {
  type Approvable,
  execute,
  planFile,
  revertPlan,
  rolloutPlan,
  setPlan,
  writePlan,
} from './execution.js';
// Deliberately alike: the interactive and one-shot consoles render through the same render.js helpers.
import {
  formatResult,
  NOTHING_TO_CHANGE,
  plainAnswer,
  reportError,
  resultText,
  wantsJson,
  writeLine,
} from './render.js';

/** One-shot exit codes. */
export const EXIT = { ok: 0, failed: 1, usage: 2, notRun: 3 } as const;

const ONE_SHOT_USAGE = 'usage: npm start -- <tool|shortcut> [key=value …] [--json] [--yes] [--ids] [--help]';

/** Exit code for a failed one-shot command: bad input is usage (2), an unrun write 3, the rest 1. */
export function exitCodeFor(error: unknown): number {
  if (!isBotError(error)) return EXIT.failed;
  if (error.code === 'validation_failed') return EXIT.usage;
  if (error.code === 'confirmation_required') return EXIT.notRun;
  return EXIT.failed;
}

/**
 * Runs one command from the words after `npm start --` and returns the exit code: 0 ok, 1 a
 * tool or controller error, 2 bad usage or validation, 3 a write shown as a preview but not run
 * (it needs --yes). The shell has already split and unquoted the words, so they are not tokenized again.
 */
export async function runOneShot(argv: string[], base: ConsoleDeps): Promise<number> {
  const json = wantsJson(argv);
  let deps = base;
  try {
    const routed = await routeWords(argv, {
      face: 'one-shot',
      registry: base.registry,
      gateway: base.context.gateway,
    });
    deps = withFlags(base, routed.flags);
    return await answer(routed, deps, json);
  } catch (error) {
    reportError(deps, error, json);
    return exitCodeFor(error);
  }
}

async function answer({ intent, flags }: Routed, deps: ConsoleDeps, json: boolean): Promise<number> {
  const { output, errorOutput } = deps;
  const yes = flags.has('--yes');
  const plain = await plainAnswer(intent, deps, json, ONE_SHOT_USAGE);
  if (plain !== undefined) {
    writeLine(output, plain);
    return EXIT.ok;
  }
  switch (intent.kind) {
    case 'usage':
      if (json) throw new ValidationError([{ field: 'command', rule: `is required (${ONE_SHOT_USAGE})` }]);
      writeLine(errorOutput, ONE_SHOT_USAGE);
      return EXIT.usage;
    case 'plan': {
      if (intent.file === undefined) {
        throw new ValidationError([
          {
            field: 'file',
            rule: 'is required in a one-shot plan: plan <file> (--yes runs it)',
            missing: true,
          },
        ]);
      }
      const plan = await setPlan(deps, intent.options, await planFile(intent.file));
      if (yes && plan.refused) throw new NotAuthorizedError(plan.refused);
      // One JSON document: the result carries the preview it ran.
      if (json && yes) {
        writeLine(output, resultText(await plan.run(), json, deps, undefined, plan.preview));
        return EXIT.ok;
      }
      return previewed(deps, plan, yes, json, 'not run: the plan changes the network; add --yes to run it');
    }
    case 'revert': {
      const plan = await revertPlan(deps, intent.changeId);
      if (yes && !plan.refused) {
        writeLine(output, resultText(await plan.run(), json, deps, plan.tool));
        return EXIT.ok;
      }
      const notRun = `not run: ${plan.tool} (the revert of ${intent.changeId}) changes the network; add --yes to run it`;
      return previewed(deps, plan, yes, json, notRun);
    }
    case 'write':
    case 'keep':
      if (yes) {
        writeLine(output, resultText(await execute(deps, intent), json, deps, intent.tool));
        return EXIT.ok;
      }
      return previewed(
        deps,
        await writePlan(deps, intent),
        yes,
        json,
        `not run: ${intent.tool} changes the network; add --yes to run it`,
      );
    case 'rollout': {
      const plan = await rolloutPlan(deps, intent, (file) => {
        if (file === undefined)
          throw new ValidationError([
            {
              field: 'file',
              rule: 'is required in a one-shot rollout plan: rollout plan <file> sites=…',
              missing: true,
            },
          ]);
        return planFile(file);
      });
      if (yes && plan.refused) throw new NotAuthorizedError(plan.refused);
      if (json && yes) {
        writeLine(output, resultText(await plan.run(), json, deps, undefined, plan.preview));
        return EXIT.ok;
      }
      return previewed(
        deps,
        plan,
        yes,
        json,
        'not run: the rollout changes the network; add --yes to run it',
      );
    }
    default:
      // The interactive loop's and Slack's own intents: the one-shot router never yields them.
      throw new Error(`no one-shot answer for ${intent.kind}`);
  }
}

/**
 * A change shown as its preview and the lines under it; run when --yes allows it, else "not run"
 * on stderr with exit 3. A refused one is never run; one that changes nothing is done.
 */
async function previewed(
  deps: ConsoleDeps,
  change: Approvable,
  yes: boolean,
  json: boolean,
  notRun: string,
): Promise<number> {
  const { output, errorOutput } = deps;
  writeLine(output, formatResult(change.preview, json, deps, change.tool));
  if (change.nothing) {
    writeLine(errorOutput, NOTHING_TO_CHANGE);
    return EXIT.ok;
  }
  // With --yes only a refused change is left to show: its lines say why.
  if (!json && (!yes || change.refused)) writeLine(output, change.lines.join('\n'));
  if (change.refused) {
    writeLine(errorOutput, json ? `not run: ${change.refused}` : 'not run.');
    return EXIT.notRun;
  }
  if (yes) {
    writeLine(output, resultText(await change.run(), json, deps, change.tool));
    return EXIT.ok;
  }
  writeLine(errorOutput, notRun);
  return EXIT.notRun;
}
