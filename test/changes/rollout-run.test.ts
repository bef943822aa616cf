import { describe, expect, it } from 'vitest';
import { fleetSites } from '../../src/simulator/fleet-seed.js';
import type { Incident } from '../../src/watch/types.js';
import { stateKey } from '../../src/watch/watch-state.js';
import { useFreshApprovals } from '../approvals/bot-harness.js';
import { ALEX, journalEvents, RITA } from '../approvals/harness.js';
import { writePolicyFile } from '../helpers/policy-files.js';
import { useTestBot } from '../helpers/tool-test.js';

// Rollouts in process, on one console with three sites: the soak's health watch (devices and the
// watcher's alerts), Stop, what the preview leaves out, and a policy rule on the rollout's shape.

const POLICY_FILE = writePolicyFile(
  'netops-rollout-policy-',
  [
    'rules:',
    '  - name: rollouts-start-small',
    '    when: rollout.sites > 2 && rollout.first_wave > 1',
    '    deny: "a rollout to more than 2 sites starts with one site"',
    '',
  ].join('\n'),
);

const bot = useTestBot({
  simulator: { sites: fleetSites({ index: 0, name: 'berlin', sites: 3 }) },
  env: { POLICY_FILE },
});

const NETWORK_WRITE = /rest\/networkconf\/[^/]+$|\/networks\/[^/]+$/;
const DNS = [{ tool: 'update_network', args: { network_id: 'IoT', dhcp_dns_1: '9.9.9.9' } }];
const sites = () => bot.sim.state.sites.map((site) => `default/${site.name}`);
/** The DNS change rolled out to every site, one site first, with a one-second soak. */
const proposeDns = () =>
  its.approvals.proposeRollout({ steps: DNS, sites: sites(), waves: '1,rest', soak: '1s', requester: RITA });
/** Holds the next network write until `during` has run: what happens while wave 1 is being written. */
const holdNetworkWrite = (during: () => Promise<void>) =>
  bot.sim.injectFault({ kind: 'hold', method: 'PUT', route: NETWORK_WRITE, times: 1, until: during });
const networkWrites = () => bot.sim.requests.filter((r) => r.method === 'PUT' && NETWORK_WRITE.test(r.route));

const its = useFreshApprovals(bot);

describe('a rollout on three sites', () => {
  it('halts on a device going offline at a done site during the soak; Stop ends it, Continue is then refused', async () => {
    const [first] = bot.sim.state.sites;
    const device = first?.devices[0];
    if (!first || !device) throw new Error('the simulator seeds devices');
    // Wave 1's write is held while a device of its site drops: its baseline was read before the write.
    holdNetworkWrite(async () => {
      device.state = 0;
    });
    const request = await proposeDns();
    const outcome = await its.approveAll(request.id);

    expect(outcome.kind).toBe('failed');
    const halted = await its.approvals.get(request.id);
    expect(halted?.error?.code).toBe('health_regression');
    expect(halted?.error?.message).toMatch(
      new RegExp(
        `^rollout halted at default/${first.name} \\(wave 1 of 2\\): health regression during the soak after wave 1: default/${first.name}: 1 device\\(s\\) went offline`,
      ),
    );
    expect(halted?.set?.steps.map((s) => s.status)).toEqual(['done', undefined, undefined]);
    expect(networkWrites()).toHaveLength(1);

    const stopped = await its.approvals.stopRollout(request.id, RITA);
    expect(stopped.set?.rollout?.stoppedBy).toEqual(RITA);
    expect(stopped.state).toBe('failed');
    await expect(its.approvals.continueRollout(request.id, ALEX)).rejects.toThrow(/was stopped by rita/);
    expect(networkWrites()).toHaveLength(1);
    expect(journalEvents(its.data.journal).some((e) => e.id === request.id && e.type === 'rollout')).toBe(
      true,
    );
  }, 30_000);

  it('halts on an alert the watcher opens at a done site during the soak, not on one open before; later waves are not written', async () => {
    const [first, second, third] = bot.sim.state.sites;
    if (!first || !second || !third) throw new Error('the simulator seeds three sites');
    // The watcher of the first site only (one console, no CONSOLES_FILE: keyed by the site alone).
    const key = stateKey(first.name);
    const incident = (kind: Incident['kind'], subject: string, startedAt: number): Incident => ({
      id: `in_${kind}_${startedAt}`,
      key: `${kind}:${subject}`,
      site: first.name,
      kind,
      subject,
      startedAt,
      flaps: 0,
      source: 'poller',
    });
    const older = incident('wan_down', 'Edge WAN', 1_000);
    await bot.app.context.store.set(key, { observed: {}, incidents: [older] });
    try {
      // While wave 1's write is held, the watcher opens an alert there: after the baseline read.
      holdNetworkWrite(async () => {
        await bot.app.context.store.set(key, {
          observed: {},
          incidents: [older, incident('poe_stopped', 'Desk Phone', 2_000)],
        });
      });
      const request = await proposeDns();
      expect((request.preview as { warnings: string[] }).warnings).toEqual([
        `default/${second.name}: alerts are not watched there; its soak reads devices and WANs only`,
        `default/${third.name}: alerts are not watched there; its soak reads devices and WANs only`,
      ]);
      const outcome = await its.approveAll(request.id);

      expect(outcome.kind).toBe('failed');
      const halted = await its.approvals.get(request.id);
      expect(halted?.error?.code).toBe('health_regression');
      expect(halted?.error?.message).toBe(
        `rollout halted at default/${first.name} (wave 1 of 2): health regression during the soak after wave 1: default/${first.name}: new alert: Desk Phone (poe_stopped); 1 of 3 site(s) done, they stay as they are: continue, revert the done sites, or stop`,
      );
      expect(halted?.set?.steps.map((s) => s.status)).toEqual(['done', undefined, undefined]);
      expect(networkWrites()).toHaveLength(1);
    } finally {
      await bot.app.context.store.delete(key);
    }
  }, 30_000);

  it('lists a site where it would change nothing and leaves it out; runs the others, soaking once', async () => {
    const [, second] = bot.sim.state.sites;
    const iot = second?.networks.find((n) => n.name === 'IoT');
    if (!second || !iot) throw new Error('every site has IoT');
    iot.dhcpd_dns_1 = '9.9.9.9';
    iot.dhcpd_dns_enabled = true;
    const request = await proposeDns();
    const preview = request.preview as { not_included?: string[]; waves: string[] };
    expect(preview.not_included).toEqual([
      `default/${second.name}: would change nothing: it already has these settings`,
    ]);
    expect(request.set?.rollout?.sites.map((s) => s.site)).not.toContain(second.name);
    expect(preview.waves).toHaveLength(2);

    const outcome = await its.approveAll(request.id);
    expect(outcome.kind).toBe('succeeded');
    expect(networkWrites()).toHaveLength(2);
    const soaks = journalEvents(its.data.journal).filter((e) => e.id === request.id && e.type === 'rollout');
    expect(soaks.map((e) => e.wave)).toEqual([1]);
    // Nobody watches these sites: the soak says their alerts were not part of it.
    expect(soaks.map((e) => e.note)).toEqual([
      `1 site(s) healthy; alerts are not watched at default/${bot.sim.state.sites[0]?.name}`,
    ]);
  }, 30_000);

  it('is refused by a policy rule on its shape (rollout.first_wave), naming the rule; nothing is proposed', async () => {
    await expect(
      its.approvals.proposeRollout({ steps: DNS, sites: sites(), waves: '2,rest', requester: RITA }),
    ).rejects.toThrow(
      new RegExp(
        `refused by policy rule "rollouts-start-small": default/${bot.sim.state.sites[0]?.name}: a rollout to more than 2 sites starts with one site`,
      ),
    );
    expect(await its.approvals.list()).toEqual([]);
    expect(networkWrites()).toEqual([]);
  });

  it('Continue and Stop refuse what is not a halted rollout', async () => {
    const single = await its.approvals.propose({
      tool: 'update_network',
      args: { network_id: 'IoT', dhcp_dns_1: '9.9.9.9' },
      requester: RITA,
    });
    await expect(its.approvals.continueRollout(single.id, ALEX)).rejects.toThrow('is not a rollout');
    const rollout = await its.approvals.proposeRollout({
      steps: DNS,
      sites: sites(),
      waves: '1,rest',
      requester: RITA,
    });
    await expect(its.approvals.stopRollout(rollout.id, RITA)).rejects.toThrow(
      /is pending: only a halted rollout can be continued or stopped/,
    );
  });
});
