import { createInterface } from 'node:readline';
import { routeLine } from '../commands/router.js';
import { type ConsoleDeps, withFlags } from './deps.js';
import { type Approvable, planFile, revertPlan, rolloutPlan, setPlan, writePlan } from './execution.js';
import { NOWHERE, type Place, promptOf, scopeToPlace, usePlace } from './place.js';
import {
  formatResult,
  NOTHING_TO_CHANGE,
  plainAnswer,
  reportError,
  resultText,
  wantsJson,
  writeLine,
} from './render.js';

export type { ChangeRecorder, ConsoleDeps } from './deps.js';
export { EXIT, exitCodeFor, runOneShot } from './one-shot.js';

type LineOutcome = 'continue' | 'quit';

/** The answer to a prompt interrupted by Ctrl-C. */
const INTERRUPTED = Symbol('interrupted');

type Ask = (prompt: string) => Promise<string | undefined | typeof INTERRUPTED>;

/** Where the session's commands go (`use`), kept between lines. */
interface Session {
  place: Place;
}

/** `use …` at the prompt (with or without `/net`), or undefined for any other line. */
function useWords(line: string): string[] | undefined {
  const words = line.trim().split(/\s+/);
  if (words[0] === '/net') words.shift();
  return words[0]?.toLowerCase() === 'use' ? words.slice(1) : undefined;
}

/** One line at `net> `: routed to its intent, answered, and a change approved at the prompt. */
async function handleLine(line: string, base: ConsoleDeps, ask: Ask, session: Session): Promise<LineOutcome> {
  if (line.trim() === '') return 'continue';
  const use = useWords(line);
  if (use !== undefined) {
    const outcome = await usePlace(use, session.place, base.context.consoles, base.registry.defaultSite());
    session.place = outcome.place;
    writeLine(base.output, outcome.text);
    return 'continue';
  }
  const scope = scopeToPlace(session.place, base.registry);
  const routed = await routeLine(line, {
    face: 'console',
    registry: base.registry,
    gateway: base.context.gateway,
    scope,
  });
  const { intent, flags } = routed;
  const deps = { ...withFlags(base, flags), scope };
  const { output } = deps;
  const json = flags.has('--json');
  const plain = await plainAnswer(
    intent,
    deps,
    json,
    'use <console>/<site> (or use <site>) sends the following commands there. clear clears the screen. Type quit (or Ctrl-D) to leave.',
  );
  if (plain !== undefined) {
    writeLine(output, plain);
    return 'continue';
  }
  switch (intent.kind) {
    case 'quit':
      return 'quit';
    case 'clear':
      // A terminal's own clear: the screen and the scrollback's view, nothing when output is piped.
      if ((output as { isTTY?: unknown }).isTTY === true) output.write('\x1b[2J\x1b[H');
      return 'continue';
    case 'plan':
      return approveAtPrompt(
        deps,
        await setPlan(deps, intent.options, await planText(intent.file, ask)),
        json,
        ask,
      );
    case 'revert':
      return approveAtPrompt(deps, await revertPlan(deps, intent.changeId), json, ask);
    case 'write':
    case 'keep':
      return approveAtPrompt(deps, await writePlan(deps, intent), json, ask);
    case 'rollout':
      return approveAtPrompt(deps, await rolloutPlan(deps, intent, (file) => planText(file, ask)), json, ask);
    default:
      // Slack's and the one-shot's own intents: the console's router never yields them.
      throw new Error(`no console answer for ${intent.kind}`);
  }
}

/** A plan's writes: from its file, or typed at `plan> ` until an empty line. */
async function planText(file: string | undefined, ask: Ask): Promise<string> {
  if (file !== undefined) return planFile(file);
  const lines: string[] = [];
  for (;;) {
    const next = await ask('plan> ');
    if (next === undefined || next === INTERRUPTED || next.trim() === '') break;
    lines.push(next);
  }
  return lines.join('\n');
}

/**
 * A change shown with its preview and the lines under it, then run only if `approve? [y/N]` is
 * answered yes. Ctrl-C there answers "not run"; end of input leaves the console.
 */
async function approveAtPrompt(
  deps: ConsoleDeps,
  change: Approvable,
  json: boolean,
  ask: Ask,
): Promise<LineOutcome> {
  const { output } = deps;
  writeLine(output, formatResult(change.preview, json, deps, change.tool));
  if (change.nothing) {
    if (!json) writeLine(output, NOTHING_TO_CHANGE);
    return 'continue';
  }
  if (!json) writeLine(output, change.lines.join('\n'));
  if (change.refused) {
    if (json) writeLine(output, change.refused);
    return 'continue';
  }
  const answer = await ask('approve? [y/N] ');
  if (answer === INTERRUPTED) {
    writeLine(output, '\nnot run.');
    return 'continue';
  }
  if (answer !== undefined && /^(y|yes)$/i.test(answer.trim())) {
    writeLine(output, resultText(await change.run(), json, deps, change.tool));
    return 'continue';
  }
  writeLine(output, 'not run.');
  return answer === undefined ? 'quit' : 'continue';
}

/**
 * The interactive console: `net> ` lines with or without `/net`, help, reads rendered as text,
 * writes previewed and run only after `approve? [y/N]` is answered yes. Bad input never ends it.
 */
export async function runInteractiveConsole(deps: ConsoleDeps): Promise<void> {
  const { input, output } = deps;
  const rl = createInterface({ input, output, terminal: (output as { isTTY?: unknown }).isTTY === true });
  // One iterator for every read, so the approval answer is the next line even when input is piped in.
  const lines = rl[Symbol.asyncIterator]();
  // A line read that Ctrl-C interrupted stays pending: the next prompt takes that line.
  let pending: Promise<IteratorResult<string>> | undefined;
  let interrupt: (() => void) | undefined;
  let atPrompt = false;
  const onInterrupt = () => {
    if (interrupt) interrupt();
    else if (atPrompt || !deps.abort) rl.close();
    else deps.abort();
  };
  rl.on('SIGINT', onInterrupt);
  deps.signals?.on('SIGINT', onInterrupt);
  const session: Session = { place: NOWHERE };
  const ask: Ask = async (prompt) => {
    rl.setPrompt(prompt);
    rl.prompt();
    pending ??= lines.next();
    const interrupted = new Promise<typeof INTERRUPTED>((resolve) => {
      // Only an approval can be interrupted; Ctrl-C at `net> ` leaves the console.
      if (prompt !== promptOf(session.place)) interrupt = () => resolve(INTERRUPTED);
    });
    atPrompt = true;
    try {
      const next = await Promise.race([pending, interrupted]);
      if (next === INTERRUPTED) return INTERRUPTED;
      pending = undefined;
      return next.done === true ? undefined : next.value;
    } finally {
      interrupt = undefined;
      atPrompt = false;
    }
  };
  if (deps.banner !== undefined) writeLine(output, deps.banner);
  writeLine(output, 'Type help for commands, quit to leave.');
  try {
    for (;;) {
      const line = await ask(promptOf(session.place));
      if (line === undefined || line === INTERRUPTED) break;
      try {
        if ((await handleLine(line, deps, ask, session)) === 'quit') break;
      } catch (error) {
        reportError(deps, error, wantsJson(line.split(/\s+/)));
      }
    }
  } finally {
    deps.signals?.off('SIGINT', onInterrupt);
    rl.close();
  }
}
