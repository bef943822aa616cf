import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ValidationError } from '../../../src/errors.js';
import type { Gateway } from '../../../src/gateway/types.js';
import { MemoryStore } from '../../../src/lib/json-file-store.js';
import { silentLogger } from '../../../src/log.js';
import { confirm, dryRun, siteId } from '../../../src/tools/core/arg-types.js';
import type { ConsolePort } from '../../../src/tools/core/context.js';
import { defineTool, type ToolContext } from '../../../src/tools/core/define-tool.js';
import { missingValueIssues } from '../../../src/tools/core/missing-values.js';
import { ToolRegistry } from '../../../src/tools/core/registry.js';

/** A gateway that only says which console it is: the tools below echo it. */
const fakeGateway = (name: string) => ({ name }) as unknown as Gateway;

function portOf(names: readonly string[]): ConsolePort & { built: string[] } {
  const gateways = new Map(names.map((name) => [name, fakeGateway(name)]));
  const built: string[] = [];
  return {
    built,
    fleet: names.length > 1,
    readBudgetMs: 1000,
    list: () => names.map((name) => ({ name, labels: {}, via: 'local' as const, sites: undefined })),
    gateway(name) {
      const gateway = gateways.get(name);
      if (!gateway) throw new ValidationError([{ field: 'console', rule: `no console is named ${name}` }]);
      built.push(name);
      return gateway;
    },
    channel: () => undefined,
  };
}

const whichGateway = (context: ToolContext) => (context.gateway as unknown as { name: string }).name;

function registryWith(port: ConsolePort) {
  const read = defineTool({
    name: 'read_thing',
    description: 'Which console answered',
    access: 'read',
    args: z.object({ site_id: siteId }),
    async run({ site_id }, context) {
      return { site_id, answered_by: whichGateway(context) };
    },
  });
  const list = defineTool({
    name: 'list_things',
    description: 'A list answer',
    access: 'read',
    args: z.object({ site_id: siteId }),
    async run(_args, context) {
      return [{ answered_by: whichGateway(context) }];
    },
  });
  const write = defineTool({
    name: 'update_thing',
    description: 'A write that reads first through the registry',
    access: 'write',
    args: z.object({ site_id: siteId, confirm, dry_run: dryRun }),
    async run(_args, context) {
      // A read made inside a console's call: it must run on the same console.
      const before = (await registry.run('read_thing', {}, context)) as { answered_by: string };
      return { dry_run: true, written_on: whichGateway(context), read_on: before.answered_by };
    },
  });
  const registry = new ToolRegistry([{ title: 'Things', tools: [read, list, write] }], { site: 'default' });
  registry.useConsoles(port);
  return registry;
}

const contextFor = (port: ConsolePort): ToolContext => ({
  gateway: fakeGateway('background'),
  logger: silentLogger(),
  store: new MemoryStore(),
  consoles: port,
});

describe('the registry picks the console of a call (console=)', () => {
  it('runs a fleet call on the named console, and names it in an object answer only', async () => {
    const port = portOf(['berlin', 'munich']);
    const registry = registryWith(port);
    const context = contextFor(port);
    expect(await registry.run('read_thing', { console: 'munich' }, context)).toEqual({
      console: 'munich',
      site_id: 'default',
      answered_by: 'munich',
    });
    expect(await registry.run('list_things', { console: 'berlin' }, context)).toEqual([
      { answered_by: 'berlin' },
    ]);
  });

  it('keeps the console among validated arguments, so a change request runs where it was previewed', () => {
    const port = portOf(['berlin', 'munich']);
    const registry = registryWith(port);
    expect(registry.validate('update_thing', { console: 'berlin', dry_run: 'true' })).toEqual({
      console: 'berlin',
      site_id: 'default',
      dry_run: true,
    });
    // Validating builds no gateway: only running on a console does.
    expect(port.built).toEqual([]);
  });

  it('asks for the console in a fleet, naming every one, as a missing value forms prompt for', async () => {
    const port = portOf(['berlin', 'munich', 'hamburg']);
    const registry = registryWith(port);
    const error = await registry.run('read_thing', {}, contextFor(port)).catch((e: unknown) => e);
    expect(missingValueIssues(error)).toEqual([
      expect.objectContaining({ field: 'console', rule: expect.stringContaining('berlin, munich, hamburg') }),
    ]);
    // No console was reached while asking.
    expect(port.built).toEqual([]);
  });

  it('says in help which consoles there are, and nothing of consoles with one', () => {
    expect(registryWith(portOf(['berlin', 'munich'])).helpText()).toContain(
      'Consoles: berlin, munich. Every tool takes console=<name>',
    );
    expect(registryWith(portOf(['default'])).helpText()).not.toContain('Consoles:');
  });

  it('refuses a console not served, by field', () => {
    const registry = registryWith(portOf(['berlin', 'munich']));
    expect(() => registry.validate('read_thing', { console: 'paris' })).toThrow(ValidationError);
    try {
      registry.validate('read_thing', { console: 'paris' });
    } catch (error) {
      expect((error as ValidationError).issues[0]?.field).toBe('console');
    }
  });

  it('runs a read made within a write on the write’s console', async () => {
    const port = portOf(['berlin', 'munich']);
    const answer = await registryWith(port).run(
      'update_thing',
      { console: 'munich', dry_run: true },
      contextFor(port),
    );
    expect(answer).toMatchObject({ console: 'munich', written_on: 'munich', read_on: 'munich' });
  });

  it('leaves one console’s calls as they were: no console asked, none added, console=default taken', async () => {
    const port = portOf(['default']);
    const registry = registryWith(port);
    const context = { ...contextFor(port), gateway: port.gateway('default') };
    expect(await registry.run('read_thing', {}, context)).toEqual({
      site_id: 'default',
      answered_by: 'default',
    });
    expect(await registry.run('read_thing', { console: 'default' }, context)).toEqual({
      site_id: 'default',
      answered_by: 'default',
    });
    expect(registry.validate('read_thing', { console: 'default' })).toEqual({ site_id: 'default' });
    expect(() => registry.validate('read_thing', { console: 'berlin' })).toThrow(
      /no console is named berlin/,
    );
  });
});
