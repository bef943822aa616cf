import { afterEach, describe, expect, it } from 'vitest';
import { GatewayRejectedError, NotSupportedError } from '../../../src/errors.js';
import { SIMULATOR_DEFAULTS } from '../../../src/simulator/index.js';
import { firewallGeneration } from '../../../src/tools/core/firewall-generation.js';
import { startTestBot, type TestBot } from '../../helpers/test-bot.js';
import { rejection } from '../../helpers/tool-test.js';

const MIGRATIONS = '/v2/api/site/default/site-feature-migration';

const bots: TestBot[] = [];
async function bot(options: Parameters<typeof startTestBot>[0] = {}): Promise<TestBot> {
  const started = await startTestBot(options);
  bots.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(bots.splice(0).map((b) => b.close()));
});

const asked = (b: TestBot) => b.sim.requests.filter((r) => r.route === MIGRATIONS).length;

describe('firewall generation detection', () => {
  it('reads site-feature-migration: ZONE_BASED_FIREWALL listed → zone-based, absent → legacy', async () => {
    const [zoneBased, legacy] = await Promise.all([bot(), bot({ simulator: { firewall: 'legacy' } })]);

    expect(await firewallGeneration(zoneBased.app.context.gateway, 'default')).toBe('zone-based');
    expect(await firewallGeneration(legacy.app.context.gateway, 'default')).toBe('legacy');
  });

  it('asks once per site, however many tools run, concurrent ones included', async () => {
    const legacy = await bot({ simulator: { firewall: 'legacy' } });

    await Promise.all([legacy.run('list_firewall_rules'), legacy.run('list_firewall_rules')]);
    await legacy.run('delete_firewall_rule', { rule_id: 'Drop Telnet from WAN', dry_run: true });

    expect(asked(legacy)).toBe(1);
  });

  it('keeps a zone-based answer for good and looks at a legacy one again after ten minutes', async () => {
    const [zoneBased, legacy] = await Promise.all([bot(), bot({ simulator: { firewall: 'legacy' } })]);
    const t0 = 1_000_000;

    await firewallGeneration(zoneBased.app.context.gateway, 'default', t0);
    await firewallGeneration(zoneBased.app.context.gateway, 'default', t0 + 86_400_000);
    await firewallGeneration(legacy.app.context.gateway, 'default', t0);
    await firewallGeneration(legacy.app.context.gateway, 'default', t0 + 9 * 60_000);
    await firewallGeneration(legacy.app.context.gateway, 'default', t0 + 11 * 60_000);

    expect(asked(zoneBased)).toBe(1);
    expect(asked(legacy)).toBe(2);
  });

  // Deliberately alike: each detection case injects its own controller answer to site-feature-migration.
  it('does not remember a failed detection: the next tool asks again', async () => {
    const legacy = await bot({ simulator: { firewall: 'legacy' } });
    legacy.sim.injectFault({
      kind: 'status',
      route: 'site-feature-migration',
      status: 400,
      body: { code: 'api.err.Invalid', message: 'odd', errorCode: 400 },
    });

    const error = await rejection(legacy.run('list_firewall_rules'));
    const rules = (await legacy.run('list_firewall_rules')) as unknown[];

    expect(error).toBeInstanceOf(GatewayRejectedError);
    expect(rules.length).toBeGreaterThan(0);
    expect(asked(legacy)).toBe(2);
  });

  it('takes a controller without the route (before Network 9) as legacy', async () => {
    const legacy = await bot({ simulator: { firewall: 'legacy' } });
    legacy.sim.injectFault({
      kind: 'status',
      route: 'site-feature-migration',
      status: 404,
      body: { code: 'api.err.NotFound', message: 'No route', errorCode: 404 },
    });

    expect(await firewallGeneration(legacy.app.context.gateway, 'default')).toBe('legacy');
  });

  it('leaves the generation unknown when the credential does not reach v2, so zone tools still work', async () => {
    const zoneBased = await bot();
    zoneBased.sim.injectFault({
      kind: 'status',
      route: 'site-feature-migration',
      status: 401,
      times: Number.POSITIVE_INFINITY,
      body: { meta: { rc: 'error', msg: 'api.err.LoginRequired' }, data: [] },
    });

    expect(await firewallGeneration(zoneBased.app.context.gateway, 'default')).toBeUndefined();
    expect(((await zoneBased.run('list_firewall_zones')) as unknown[]).length).toBeGreaterThan(0);
  });

  it('does not ask in cloud mode, where the connector refuses v2 routes', async () => {
    const cloud = await bot({ gateway: { apiType: 'cloud', consoleId: SIMULATOR_DEFAULTS.consoleId } });

    expect(await firewallGeneration(cloud.app.context.gateway, 'default')).toBeUndefined();
    expect(cloud.sim.requests).toHaveLength(0);
  });

  it('never answers "no rules" in cloud mode: an empty list there may be a zone-based console', async () => {
    const cloud = { apiType: 'cloud', consoleId: SIMULATOR_DEFAULTS.consoleId } as const;
    const [zoneBased, legacy] = await Promise.all([
      bot({ gateway: cloud }),
      bot({ gateway: cloud, simulator: { firewall: 'legacy' } }),
    ]);

    const error = await rejection(zoneBased.run('list_firewall_rules'));
    expect(error).toBeInstanceOf(NotSupportedError);
    expect((error as Error).message).toMatch(
      /^site default lists no traditional firewall rules, and the bot cannot tell its firewall generation in cloud mode/,
    );
    expect((error as Error).message).toContain('zone-based firewall lists none either');
    expect((error as Error).message).toContain('list_firewall_policies');
    // Through the connector, a console on the traditional firewall still lists its rules.
    const rules = (await legacy.run('list_firewall_rules')) as { name: string }[];
    expect(rules.map((r) => r.name)).toContain('Drop Telnet from WAN');
  });
});
