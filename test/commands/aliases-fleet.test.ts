import { describe, expect, it } from 'vitest';
import { resolveCommand } from '../../src/commands/aliases.js';
import { parseCommandLine } from '../../src/commands/parse-command-line.js';
import type { Gateway } from '../../src/gateway/types.js';
import type { ConsolePort } from '../../src/tools/core/context.js';
import { createRegistry } from '../../src/tools/index.js';

function registryServing(names: readonly string[]) {
  const registry = createRegistry('default');
  const port: ConsolePort = {
    fleet: names.length > 1,
    readBudgetMs: 1000,
    list: () => names.map((name) => ({ name, labels: {}, via: 'local', sites: undefined })),
    gateway: () => ({}) as Gateway,
    channel: () => undefined,
  };
  registry.useConsoles(port);
  return registry;
}

const resolve = (line: string, names: readonly string[]) =>
  resolveCommand(parseCommandLine(line), registryServing(names));

describe('`where` in a fleet', () => {
  it('asks every console (find_client) when the bot serves several and the line names none', () => {
    expect(resolve('where is Apple TV', ['berlin', 'munich'])).toEqual({
      tool: 'find_client',
      args: { client: 'Apple TV' },
    });
  });

  it('reads one console’s client when console= names it, and with one console as before', () => {
    expect(resolve('where Apple TV console=munich', ['berlin', 'munich'])).toEqual({
      tool: 'get_client',
      args: { client: 'Apple TV', console: 'munich' },
    });
    expect(resolve('where is Apple TV', ['default'])).toEqual({
      tool: 'get_client',
      args: { client: 'Apple TV' },
    });
  });
});
