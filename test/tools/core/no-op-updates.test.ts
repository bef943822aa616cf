import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Approvals } from '../../../src/approvals/approvals.js';
import type { FileStore } from '../../../src/store/file/file-store.js';
import { approvalsInTempDir } from '../../approvals/bot-harness.js';
import { RITA } from '../../approvals/harness.js';
import { startTestBot, type TestBot } from '../../helpers/test-bot.js';

// An update whose values are the current ones changes nothing: every update tool's preview says
// `nothing_to_change` (every face then answers "nothing to change" and asks nobody to approve),
// and nothing is sent. Before, only update_network did; the others posted an approval for a
// preview reading "would send: nothing", or (traffic routes) a full PUT of the unchanged rule.

let zoneBased: TestBot;
let legacy: TestBot;
const stores: { close(): Promise<void>; remove(): void }[] = [];

beforeAll(async () => {
  [zoneBased, legacy] = await Promise.all([
    startTestBot(),
    startTestBot({ simulator: { firewall: 'legacy' } }),
  ]);
}, 60_000);
afterAll(async () => {
  for (const s of stores) {
    await s.close();
    s.remove();
  }
  await Promise.all([zoneBased.close(), legacy.close()]);
});

async function approvalsOf(bot: TestBot): Promise<{ approvals: Approvals; store: FileStore }> {
  const { data, store, approvals } = await approvalsInTempDir(bot.app);
  stores.push({ close: () => store.close(), remove: data.remove });
  return { approvals, store };
}

/** A tool and arguments restating what the demo site already has, read from the bot's own listing. */
type Case = { bot: () => TestBot; tool: string; args: () => Promise<Record<string, unknown>> };

const row = async (bot: TestBot, tool: string, pick: (r: Record<string, unknown>) => boolean) => {
  const rows = (await bot.run(tool)) as Record<string, unknown>[];
  const found = rows.find(pick);
  if (!found) throw new Error(`${tool}: no such row`);
  return found;
};

const CASES: Case[] = [
  {
    bot: () => zoneBased,
    tool: 'update_firewall_zone',
    args: async () => ({ firewall_zone_id: 'Internal', name: 'Internal' }),
  },
  {
    bot: () => zoneBased,
    tool: 'assign_network_to_zone',
    args: async () => ({ zone_id: 'IoT Devices', network_id: 'IoT' }),
  },
  // Deliberately alike: one row an update tool, each finding its own record to send back unchanged.
  {
    bot: () => zoneBased,
    tool: 'update_firewall_policy',
    args: async () => {
      const policy = await row(
        zoneBased,
        'list_firewall_policies',
        (p) => p.name === 'Block IoT to Internal',
      );
      return { policy_id: policy.id, enabled: policy.enabled, action: policy.action };
    },
  },
  {
    bot: () => zoneBased,
    tool: 'update_acl_rule',
    args: async () => {
      const rule = await row(zoneBased, 'list_acl_rules', (r) => r.name === 'Block IoT to NAS');
      return { acl_rule_id: rule.id, enabled: rule.enabled, priority: rule.priority };
    },
  },
  {
    bot: () => zoneBased,
    tool: 'update_traffic_route',
    args: async () => {
      const route = await row(
        zoneBased,
        'list_traffic_routes',
        (r) => r.name === 'Block social media on IoT',
      );
      return { route_id: route.id, enabled: route.enabled };
    },
  },
  {
    bot: () => zoneBased,
    tool: 'update_traffic_matching_list',
    args: async () => {
      const lists = (await zoneBased.run('list_traffic_matching_lists')) as Record<string, unknown>[];
      const list = lists[0];
      if (!list) throw new Error('no list');
      return { list_id: list.id, name: list.name };
    },
  },
  {
    bot: () => legacy,
    tool: 'update_firewall_rule',
    args: async () => {
      const rules = (await legacy.run('list_firewall_rules')) as Record<string, unknown>[];
      const rule = rules.find((r) => r.enabled === true && typeof r.name === 'string');
      if (!rule) throw new Error('no rule');
      return { rule_id: rule.id ?? rule._id, enabled: true, name: rule.name };
    },
  },
];

describe.each(CASES)('$tool given the values the target already has', ({ bot, tool, args }) => {
  it('previews "nothing to change", sends nothing, and is not proposed for approval', async () => {
    const given = await args();
    bot().sim.clearRequests();

    const preview = (await bot().run(tool, { ...given, dry_run: true })) as Record<string, unknown>;
    const confirmed = await bot().run(tool, { ...given, confirm: true });
    const { approvals } = await approvalsOf(bot());
    const proposal = await approvals.propose({ tool, args: given, requester: RITA }).catch((e: unknown) => e);

    expect(preview).toMatchObject({ dry_run: true, nothing_to_change: true });
    expect(preview).not.toHaveProperty('would_send');
    expect(confirmed).toMatchObject({ success: true });
    expect(bot().sim.requests.filter((r) => r.method !== 'GET')).toEqual([]);
    expect(String(proposal)).toMatch(/nothing to change/);
    expect(await approvals.count()).toBe(0);
  });
});

describe('the same tools with one value that differs', () => {
  it('still preview what they would send (the no-op test above is not vacuous)', async () => {
    const policy = await row(zoneBased, 'list_firewall_policies', (p) => p.name === 'Block IoT to Internal');
    const route = await row(zoneBased, 'list_traffic_routes', (r) => r.name === 'Block social media on IoT');

    const policyPreview = await zoneBased.run('update_firewall_policy', {
      policy_id: policy.id,
      enabled: !policy.enabled,
      dry_run: true,
    });
    const routePreview = await zoneBased.run('update_traffic_route', {
      route_id: route.id,
      enabled: !route.enabled,
      dry_run: true,
    });
    const zonePreview = await zoneBased.run('update_firewall_zone', {
      firewall_zone_id: 'Internal',
      description: 'Trusted LAN',
      dry_run: true,
    });

    expect(policyPreview).not.toHaveProperty('nothing_to_change');
    expect(policyPreview).toMatchObject({ changes: { enabled: { to: !policy.enabled } } });
    expect(routePreview).toMatchObject({ would_send: { enabled: !route.enabled } });
    expect(zonePreview).toMatchObject({ changes: { description: { to: 'Trusted LAN' } } });
    expect(zonePreview).not.toHaveProperty('nothing_to_change');
  });
});
