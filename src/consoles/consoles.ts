/**
 * The consoles one process serves, each with its own gateway: the single GATEWAY_* console here,
 * every console of CONSOLES_FILE in fleet-consoles.ts.
 */
import { ValidationError } from '../errors.js';
import type { BudgetBackend, CloudBudget } from '../fleet/rate-budget.js';
import type { Gateway } from '../gateway/index.js';
import { suggestNames } from '../lib/suggest.js';
import type { ConsolePort, ConsoleSummary } from '../tools/core/context.js';

/** The name of the one console a bot without CONSOLES_FILE serves. */
export const SINGLE_CONSOLE_NAME = 'default';

/** ConsolePort plus what only the process wiring needs: closing. */
export interface Consoles extends ConsolePort {
  close(): Promise<void>;
  /** Takes the cloud's rate budget from the replicas' shared table from now on (PostgreSQL store). */
  shareBudget?(backend: BudgetBackend): void;
}

export function unknownConsole(name: string, names: readonly string[]): ValidationError {
  const close = suggestNames(name, names);
  const hint = close.length > 0 ? `; did you mean ${close.join(', ')}?` : '';
  return new ValidationError([
    { field: 'console', rule: `no console is named ${name} (this bot serves ${names.join(', ')})${hint}` },
  ]);
}

/** The one console of a bot without CONSOLES_FILE: its gateway, under the name `default`. */
export function singleConsole(gateway: Gateway, readBudgetMs: number, budget?: CloudBudget): Consoles {
  const summary: ConsoleSummary = { name: SINGLE_CONSOLE_NAME, labels: {}, via: 'single', sites: undefined };
  return {
    fleet: false,
    readBudgetMs,
    list: () => [summary],
    gateway(name) {
      if (name !== SINGLE_CONSOLE_NAME) throw unknownConsole(name, [SINGLE_CONSOLE_NAME]);
      return gateway;
    },
    channel: () => undefined,
    close: () => gateway.close(),
    shareBudget: (backend) => budget?.share(backend),
  };
}
