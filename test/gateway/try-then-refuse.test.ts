import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotSupportedError } from '../../src/errors.js';
import { ConsoleVersion, MISSING_TTL_MS } from '../../src/gateway/console-info.js';
import { startTestBot, type TestBot } from '../helpers/test-bot.js';

// Operations only the official API serves (ACL rules, firewall zones, traffic matching lists) are
// asked on any console with an API key, whatever version it reports: the version table is a guess
// about older consoles (docs/decisions.md), the console's 404 is the answer.

const OFFICIAL_ONLY = /\/integration\/v1\/sites\/[^/]+\/(acl-rules|firewall\/zones|traffic-matching-lists)/;

/** The official-only requests a call sent, and what it returned or threw. */
async function ask(bot: TestBot, tool: string, args: Record<string, unknown> = {}) {
  bot.sim.clearRequests();
  const outcome = await bot.run(tool, args).catch((error: unknown) => error);
  const sent = bot.sim.requests
    .filter((r) => OFFICIAL_ONLY.test(r.route))
    .map((r) => `${r.method} ${r.route}`);
  return { outcome, sent };
}

const CREATE_ACL = {
  name: 'Block IoT to Cameras',
  action: 'deny',
  source_type: 'network',
  source_id: 'IoT',
  destination_type: 'network',
  destination_id: 'Cameras',
  dry_run: true,
};
const CREATE_LIST = { list_type: 'PORTS', name: 'Mail Ports', items: ['25', '465', '587'], dry_run: true };

describe('a 9.x console that serves the official ACL, zone and list endpoints', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startTestBot({
      simulator: {
        apiVersion: '9.0',
        officialAlso: ['acl-rules', 'firewall-zones', 'traffic-matching-lists'],
      },
    });
    // As main.ts does at start: the version (9.0.114) is known before the first command.
    await bot.app.context.gateway.warmUp('default');
  });
  afterAll(() => bot.close());

  it('reports 9.0 and is served every read and preview', async () => {
    expect(bot.app.context.gateway.knownConsole()?.version).toBe('9.0.114');

    const acl = await ask(bot, 'list_acl_rules');
    const zones = await ask(bot, 'list_firewall_zones');
    const members = await ask(bot, 'get_zone_networks', { zone_id: 'Internal' });
    const lists = await ask(bot, 'list_traffic_matching_lists');
    const newRule = await ask(bot, 'create_acl_rule', CREATE_ACL);
    const newZone = await ask(bot, 'create_firewall_zone', { name: 'Lab', dry_run: true });
    const newList = await ask(bot, 'create_traffic_matching_list', CREATE_LIST);

    expect(acl.outcome).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'Block IoT to NAS' })]),
    );
    expect(zones.outcome).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'Internal' })]));
    expect(members.outcome).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'Default' })]));
    expect(lists.outcome).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'Web Ports' })]));
    for (const preview of [newRule, newZone, newList])
      expect(preview.outcome).toMatchObject({ dry_run: true });
    expect(bot.writes()).toEqual([]);
  });

  it('help shows the official endpoint for each group, without a refusal', () => {
    const apis = bot.app.context.gateway.knownConsole()?.apis ?? [];
    for (const group of ['acl-rules', 'firewall-zones', 'traffic-matching-lists']) {
      expect(apis.find((a) => a.group === group)?.generations, group).toEqual(['official']);
    }
  });
});

describe('a 9.x console that answers 404 for them', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startTestBot({ simulator: { apiVersion: '9.0' } });
    await bot.app.context.gateway.warmUp('default');
  });
  afterAll(() => bot.close());

  it('asks once, refuses naming the operation, and within a while refuses again without asking', async () => {
    const first = await ask(bot, 'list_acl_rules');
    const second = await ask(bot, 'list_acl_rules');
    const preview = await ask(bot, 'create_acl_rule', CREATE_ACL);

    expect(first.sent).toHaveLength(1);
    expect(first.outcome).toBeInstanceOf(NotSupportedError);
    expect((first.outcome as Error).message).toMatch(
      /UniFi Network 9\.0\.114\) does not offer ACL rules in its official API \(it answered 404\)/,
    );
    expect(second.sent).toEqual([]);
    expect((second.outcome as Error).message).toBe((first.outcome as Error).message);
    expect(preview.sent).toEqual([]);
    expect(preview.outcome).toBeInstanceOf(NotSupportedError);
  });

  it('one rule for every zone tool: each refusal names firewall zones, after one request in all', async () => {
    const list = await ask(bot, 'list_firewall_zones');
    const members = await ask(bot, 'get_zone_networks', { zone_id: 'Internal' });
    const create = await ask(bot, 'create_firewall_zone', { name: 'Lab', dry_run: true });

    expect([...list.sent, ...members.sent, ...create.sent]).toHaveLength(1);
    for (const { outcome } of [list, members, create]) {
      expect(outcome).toBeInstanceOf(NotSupportedError);
      expect((outcome as Error).message).toMatch(/does not offer firewall zones in its official API/);
    }
  });

  it('traffic matching lists the same way, and help then says the group is not offered', async () => {
    const create = await ask(bot, 'create_traffic_matching_list', CREATE_LIST);
    const list = await ask(bot, 'list_traffic_matching_lists');

    expect(create.sent).toHaveLength(1);
    expect(list.sent).toEqual([]);
    expect((list.outcome as Error).message).toMatch(/does not offer traffic matching lists/);
    const apis = bot.app.context.gateway.knownConsole()?.apis ?? [];
    expect(apis.find((a) => a.group === 'traffic-matching-lists')?.generations).toEqual([]);
    expect(bot.app.registry.helpText()).toMatch(/answered 404 for traffic matching lists/);
  });
});

describe('how long a 404 is remembered (src/gateway/console-info.ts)', () => {
  it('refuses unasked for MISSING_TTL_MS, then asks again; a reconnect forgets at once', async () => {
    let now = 0;
    const console = new ConsoleVersion(
      async () => ({ applicationVersion: '9.0.114' }),
      () => now,
    );
    await console.read();

    console.markMissing('acl-rules');
    const atOnce = console.isMissing('acl-rules');
    now = MISSING_TTL_MS - 1;
    const justBefore = console.isMissing('acl-rules');
    now = MISSING_TTL_MS;
    const after = console.isMissing('acl-rules');
    console.markMissing('firewall.zones');
    console.forget();

    expect([atOnce, justBefore, after]).toEqual([true, true, false]);
    expect(console.isMissing('firewall.zones')).toBe(false);
  });
});
