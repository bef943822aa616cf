/**
 * Which consoles and sites a fleet-wide read asks: every console the bot serves, or those a call
 * narrows to by name or label. A process with one console serves it as `default`.
 */
import { z } from 'zod';
import { ValidationError } from '../../errors.js';
import { nonEmpty } from '../core/arg-types.js';
import type { ConsolePort, ConsoleSummary, ToolContext } from '../core/context.js';

/** Consoles asked at once by a fleet-wide lookup: each is one small read, so a fleet of 50 goes in one wave. */
export const FLEET_CONCURRENCY = 64;

/** A context built without consoles (a test's, a script's) serves its one gateway as `default`. */
function onlyConsole(context: ToolContext): ConsolePort {
  const summary: ConsoleSummary = { name: 'default', labels: {}, via: 'single', sites: undefined };
  return {
    fleet: false,
    readBudgetMs: 8000,
    list: () => [summary],
    gateway(name) {
      if (name !== 'default')
        throw new ValidationError([{ field: 'console', rule: 'this bot serves one console, default' }]);
      return context.gateway;
    },
    channel: () => undefined,
  };
}

/** Every console, or the one a fleet-wide call names, or those carrying the label it names (`customer=acme`). */
export function consolesOf(
  context: ToolContext,
  only: string | undefined,
  label?: string,
): {
  port: ConsolePort;
  consoles: readonly ConsoleSummary[];
} {
  const port = context.consoles ?? onlyConsole(context);
  let consoles = port.list();
  if (only !== undefined) {
    port.gateway(only); // refuses a name not served, naming those that are
    consoles = consoles.filter((each) => each.name === only);
  }
  if (label !== undefined) {
    const pairs = label.split(',').map(splitLabel);
    consoles = consoles.filter((each) => pairs.every(([key, value]) => each.labels[key] === value));
    if (consoles.length === 0)
      throw new ValidationError([
        { field: 'label', rule: `no console${only ? ` named ${only}` : ''} has the label ${label}` },
      ]);
  }
  return { port, consoles };
}

function splitLabel(label: string): [string, string] {
  const at = label.indexOf('=');
  return [label.slice(0, at).trim(), label.slice(at + 1).trim()];
}

/** The sites of a console a fleet-wide read looks at: those its entry lists, else the default. */
export function sitesOf(entry: ConsoleSummary, fallback: string): readonly string[] {
  return entry.sites ?? [fallback];
}

export const consoleArg = nonEmpty('must name a console').optional().describe('Only this console (by name)');

export const labelArg = z
  .string({ error: 'must be a console label such as customer=acme' })
  .trim()
  .max(200, { error: 'must be at most 200 characters' })
  .regex(/^[^=\s,]+=[^=,]*\S[^=,]*(,[^=\s,]+=[^=,]*\S[^=,]*)*$/, {
    error: 'must be a console label such as customer=acme (several: customer=acme,region=eu)',
  })
  .optional()
  .describe('Only the consoles with this label (key=value, as in CONSOLES_FILE; several joined by commas)');
