import { describe, expect, it } from 'vitest';
import { NOWHERE, promptOf, scopeToPlace, usePlace } from '../../src/console/place.js';
import { unknownConsole } from '../../src/consoles/consoles.js';
import { ValidationError } from '../../src/errors.js';
import type { Gateway } from '../../src/gateway/types.js';
import type { ConsolePort, ConsoleSummary } from '../../src/tools/core/context.js';
import { createRegistry } from '../../src/tools/index.js';

/** A gateway whose Integration site list is `sites`, or that cannot be asked. */
function gatewayListing(sites: readonly string[] | 'down'): Gateway {
  return {
    async integrationGlobalList() {
      if (sites === 'down') throw new Error('connection refused');
      return { items: sites.map((name, i) => ({ id: `uuid-${i}`, internalReference: name })) };
    },
  } as unknown as Gateway;
}

function port(consoles: Record<string, readonly string[] | 'down'>, listed: Record<string, string[]> = {}) {
  const summaries: ConsoleSummary[] = Object.keys(consoles).map((name) => ({
    name,
    labels: {},
    via: 'local',
    sites: listed[name],
  }));
  const asked: string[] = [];
  const value: ConsolePort = {
    fleet: summaries.length > 1,
    readBudgetMs: 1000,
    list: () => summaries,
    gateway(name) {
      asked.push(name);
      const sites = consoles[name];
      // The refusal FleetConsoles gives, with the nearest names.
      if (sites === undefined) throw unknownConsole(name, Object.keys(consoles));
      return gatewayListing(sites);
    },
    channel: () => undefined,
  };
  return { port: value, asked };
}

const rule = async (promise: Promise<unknown>) => {
  const error = await promise.catch((e: unknown) => e);
  if (!(error instanceof ValidationError))
    throw new Error(`expected a ValidationError, got ${String(error)}`);
  return error.issues.map((issue) => `${issue.field}: ${issue.rule}`).join('; ');
};

describe('use <console>/<site> in a fleet', () => {
  const fleet = port({ berlin: ['default', 'lab'], munich: ['default', 'lager'] });

  it('picks the console and a site it has, and shows both in the prompt', async () => {
    const outcome = await usePlace(['munich/lager'], NOWHERE, fleet.port, 'default');
    expect(outcome.place).toEqual({ console: 'munich', site: 'lager' });
    expect(outcome.text).toBe('using console munich, site lager.');
    expect(promptOf(outcome.place)).toBe('net munich/lager> ');
    expect(promptOf(NOWHERE)).toBe('net> ');
  });

  it('picks a console alone (its default site), then a site of it by its name alone', async () => {
    const console = await usePlace(['berlin'], NOWHERE, fleet.port, 'default');
    expect(console.place).toEqual({ console: 'berlin', site: undefined });
    expect(console.text).toBe('using console berlin, site default (the default).');
    const site = await usePlace(['lab'], console.place, fleet.port, 'default');
    expect(site.place).toEqual({ console: 'berlin', site: 'lab' });
    // A console's name still switches consoles while one is in use.
    expect((await usePlace(['munich'], site.place, fleet.port, 'default')).place).toEqual({
      console: 'munich',
      site: undefined,
    });
  });

  it('refuses a console not served and a site the console lacks, with the nearest names', async () => {
    expect(await rule(usePlace(['munch/lager'], NOWHERE, fleet.port, 'default'))).toMatch(
      /^console: no console is named munch .*did you mean munich\?$/,
    );
    expect(await rule(usePlace(['munich/lagr'], NOWHERE, fleet.port, 'default'))).toBe(
      'site: munich has no site lagr (it has default, lager); did you mean lager?',
    );
    // A site without a console in use: the word must be a console, and the refusal says how to pick a site.
    expect(await rule(usePlace(['lab'], NOWHERE, fleet.port, 'default'))).toMatch(
      /no console is named lab .*\(a site: use <console>\/lab\)$/,
    );
    expect(await rule(usePlace(['a', 'b'], NOWHERE, fleet.port, 'default'))).toMatch(/^use: takes one word/);
  });

  it('checks against the sites the consoles file lists without asking the console', async () => {
    const listed = port({ berlin: 'down', munich: 'down' }, { berlin: ['default', 'lab'] });
    expect(await rule(usePlace(['berlin/lager'], NOWHERE, listed.port, 'default'))).toMatch(
      /berlin has no site lager \(it has default, lab\)/,
    );
    expect(listed.asked).toEqual([]);
  });

  it('takes a site unchecked, and says so, when the console cannot list its sites', async () => {
    const down = port({ berlin: 'down', munich: ['default'] });
    const outcome = await usePlace(['berlin/lab'], NOWHERE, down.port, 'default');
    expect(outcome.place).toEqual({ console: 'berlin', site: 'lab' });
    expect(outcome.text).toBe('using console berlin, site lab (not checked: berlin did not list its sites).');
  });
});

describe('use <site> with one console', () => {
  const single = port({ default: ['default', 'branch'] });

  it('picks a site of the one console, never naming the console in the prompt', async () => {
    const outcome = await usePlace(['branch'], NOWHERE, single.port, 'default');
    expect(outcome.place).toEqual({ console: undefined, site: 'branch' });
    expect(promptOf(outcome.place)).toBe('net branch> ');
    expect(await rule(usePlace(['brnch'], outcome.place, single.port, 'default'))).toBe(
      'site: the console has no site brnch (it has default, branch); did you mean branch?',
    );
    expect((await usePlace([], outcome.place, single.port, 'default')).text).toBe('using site branch.');
  });
});

describe('scopeToPlace', () => {
  const registry = createRegistry('default');

  it('fills the console and site a call leaves out, and leaves what it names alone', () => {
    const scope = scopeToPlace({ console: 'munich', site: 'lager' }, registry);
    expect(scope('list_vlans', {})).toEqual({ console: 'munich', site_id: 'lager' });
    expect(scope('list_vlans', { console: 'berlin', site: 'lab' })).toEqual({
      console: 'berlin',
      site: 'lab',
    });
    expect(scope('keep_change', { change_id: 'c1' })).toEqual({ change_id: 'c1', console: 'munich' });
    // Fleet-wide reads keep console= as their own filter: use does not narrow them.
    expect(scope('find_client', { client: 'tv' })).toEqual({ client: 'tv' });
    expect(scopeToPlace(NOWHERE, registry)('list_vlans', {})).toEqual({});
  });
});
