import { describe, expect, it } from 'vitest';
import { combineAssessments } from '../../src/changes/change-set.js';
import { ValidationError } from '../../src/errors.js';
import type { ChangeAssessment } from '../../src/tools/core/assess.js';
import { openApprovals, useFreshApprovals } from '../approvals/bot-harness.js';
import { ALEX, Clock, journalEvents, policyWith, RITA } from '../approvals/harness.js';
import { useTestBot } from '../helpers/tool-test.js';

// Change sets in process: a change set is previewed on the planned state, approved once, run in order,
// and compensated in reverse order when a step fails.

const bot = useTestBot();

/** Everything the five-step plan can touch, whole records. */
const controller = () =>
  structuredClone({
    networks: bot.site().networks,
    zones: bot.site().zones,
    lists: bot.site().trafficMatchingLists,
  });

const PLAN = [
  { tool: 'create_network', args: { name: 'Doorcams', vlan_id: 77, subnet: '10.77.0.0/24' } },
  { tool: 'assign_network_to_zone', args: { zone_id: 'Dmz', network_id: 'Doorcams' } },
  {
    tool: 'create_traffic_matching_list',
    args: { list_type: 'PORTS', name: 'Cam Ports', items: ['554', '8554'] },
  },
  { tool: 'update_network', args: { network_id: 'Guest', name: 'Visitors' } },
  { tool: 'update_network', args: { network_id: 'Doorcams', dhcp_dns_1: '9.9.9.9' } },
];

/** The methods of the writes the controller received after the first `count`. */
const writeMethodsSince = (count: number) =>
  bot
    .writes()
    .slice(count)
    .map((r) => r.method);

/** The controller refuses every network update (step 4 of PLAN) with a 400, on either API. */
const refuseNetworkUpdates = () =>
  bot.sim.injectFault({
    kind: 'status',
    status: 400,
    method: 'PUT',
    route: /rest\/networkconf|\/networks\/[^/]+$/,
  });

const its = useFreshApprovals(bot);

describe('change sets', () => {
  it('previews every step on the planned state (a name step 1 creates resolves in steps 2 and 5), sends nothing, then runs in order', async () => {
    const start = controller();
    const request = await its.approvals.proposeSet({ steps: PLAN, title: 'Doorcams', requester: RITA });
    expect(controller()).toEqual(start);
    const preview = request.preview as { steps: { step: number; tool: string; preview: unknown }[] };
    expect(preview.steps.map((s) => s.tool)).toEqual(PLAN.map((s) => s.tool));
    expect(JSON.stringify(preview.steps[0]?.preview)).toContain('10.77.0.1/24');
    expect(JSON.stringify(preview.steps[4]?.preview)).toContain('9.9.9.9');
    const outcome = await its.approveAll(request.id);
    expect(outcome.kind).toBe('succeeded');
    const cameras = bot.site().networks.find((n) => n.name === 'Doorcams');
    expect(cameras?.dhcpd_dns_1).toBe('9.9.9.9');
    const dmz = bot.site().zones.find((z) => z.name === 'Dmz');
    expect(dmz?.networkIds).toContain(cameras?.external_id);
    const done = await its.approvals.get(request.id);
    expect(done?.set?.steps.map((s) => s.status)).toEqual(['done', 'done', 'done', 'done', 'done']);
    // Each step ran as its own request, in order, each verified.
    const children = await Promise.all(
      (done?.set?.steps ?? []).map((s) => its.approvals.get(s.changeId ?? '')),
    );
    expect(children.map((c) => c?.setStep)).toEqual([1, 2, 3, 4, 5]);
    expect(children.every((c) => c?.state === 'succeeded')).toBe(true);
    const running = journalEvents(its.data.journal).filter(
      (e) => e.id === request.id && e.type === 'set_step',
    );
    expect(running.map((e) => `${String(e.step)}:${String(e.status)}`)).toEqual([
      '1:running',
      '1:done',
      '2:running',
      '2:done',
      '3:running',
      '3:done',
      '4:running',
      '4:done',
      '5:running',
      '5:done',
    ]);
  });

  it('a typo in step 3 is refused at preview, naming the step and the argument; nothing is proposed or sent', async () => {
    const start = controller();
    const steps = structuredClone(PLAN);
    (steps[2] as { args: Record<string, unknown> }).args = {
      list_type: 'PORTS',
      name: 'Cam Ports',
      itemz: '554',
    };
    const error = await its.approvals.proposeSet({ steps, requester: RITA }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toMatch(/step 3 \(create_traffic_matching_list\) itemz/);
    const wrongName = structuredClone(PLAN);
    (wrongName[1] as { args: Record<string, unknown> }).args = { zone_id: 'Dmz', network_id: 'Camras' };
    await expect(its.approvals.proposeSet({ steps: wrongName, requester: RITA })).rejects.toThrow(
      /step 2 \(assign_network_to_zone\).*Camras/,
    );
    expect(await its.approvals.list()).toEqual([]);
    expect(controller()).toEqual(start);
  });

  it('a read or too many steps are refused', async () => {
    await expect(
      its.approvals.proposeSet({
        steps: [...PLAN, { tool: 'list_firewall_zones', args: {} }],
        requester: RITA,
      }),
    ).rejects.toThrow(/step 6 \(list_firewall_zones\).*writes only/);
    const many = Array.from({ length: 51 }, () => PLAN[3] as (typeof PLAN)[number]);
    await expect(its.approvals.proposeSet({ steps: many, requester: RITA })).rejects.toThrow(/at most 50/);
  });

  it('step 4 refused by the controller: steps 3, 2, 1 are reverted in reverse order; the controller is exactly as before', async () => {
    const start = controller();
    const request = await its.approvals.proposeSet({ steps: PLAN, requester: RITA });
    refuseNetworkUpdates();
    const outcome = await its.approveAll(request.id);
    expect(outcome.kind).toBe('failed');
    const done = await its.approvals.get(request.id);
    expect(done?.set?.steps.map((s) => s.status)).toEqual([
      'reverted',
      'reverted',
      'reverted',
      'failed',
      undefined,
    ]);
    expect(done?.error?.message).toMatch(
      /step 4 \(update_network\) failed.*3 step\(s\) done before it were reverted/,
    );
    expect(controller()).toEqual(start);
  });

  it('a restart in the middle of the compensation finishes it once: the revert in flight is read back (applied), not sent again', async () => {
    const start = controller();
    const request = await its.approvals.proposeSet({ steps: PLAN, requester: RITA });
    refuseNetworkUpdates();
    // Step 3's revert (the list's delete) reaches the controller and is held; the process dies
    // (its store closes), then the controller applies the delete: its outcome was never recorded.
    let arrived: () => void = () => undefined;
    const inFlight = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let apply: () => void = () => undefined;
    bot.sim.injectFault({
      kind: 'hold',
      method: 'DELETE',
      route: 'traffic-matching-lists',
      until: () =>
        new Promise<void>((resolve) => {
          apply = resolve;
          arrived();
        }),
    });
    const running = its.approveAll(request.id).catch(() => undefined);
    await inFlight;
    await its.store.close();
    apply();
    await running;
    expect(bot.site().trafficMatchingLists.some((l) => l.name === 'Cam Ports')).toBe(false);
    const writes = bot.writes().length;
    // The next start over the same DATA_DIR settles the set in its first sweep.
    its.reopenStore();
    const restarted = await openApprovals(bot.app, its.store.changes(), new Clock(), policyWith());
    const settled = await restarted.get(request.id);
    expect(settled?.state).toBe('failed');
    expect(settled?.set?.steps.map((s) => s.status)).toEqual([
      'reverted',
      'reverted',
      'reverted',
      'failed',
      undefined,
    ]);
    expect(settled?.error?.message).toMatch(
      /step 4 \(update_network\) failed.*the 3 step\(s\) done before it were reverted/,
    );
    expect(controller()).toEqual(start);
    // Step 3's delete is not sent again: only steps 2 and 1 are undone after the restart.
    expect(writeMethodsSince(writes)).toEqual(['PUT', 'PUT', 'DELETE']);
    const events = journalEvents(its.data.journal).filter(
      (e) => e.id === request.id && e.status === 'reverted',
    );
    expect(events.map((e) => e.step)).toEqual([3, 2, 1]);
  });

  it.each([
    ['applied', true],
    ['not applied', false],
  ])(
    'a restart while step 1 (a create) is in flight and then %s: read back by its name, never re-sent, settled',
    async (_, lands) => {
      const start = controller();
      const request = await its.approvals.proposeSet({ steps: PLAN, requester: RITA });
      let arrived: () => void = () => undefined;
      const inFlight = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      let release: () => void = () => undefined;
      let drop: (reason: Error) => void = () => undefined;
      bot.sim.injectFault({
        kind: 'hold',
        method: 'POST',
        route: /rest\/networkconf$|\/networks$/,
        until: () =>
          new Promise<void>((resolve, reject) => {
            release = resolve;
            drop = reject;
            arrived();
          }),
      });
      const running = its.approveAll(request.id).catch(() => undefined);
      await inFlight;
      await its.store.close();
      if (lands) release();
      else drop(new Error('the process is gone'));
      await running;
      expect(bot.site().networks.some((n) => n.name === 'Doorcams')).toBe(lands);
      bot.sim.clearFaults();
      const writes = bot.writes().length;

      its.reopenStore();
      const restarted = await openApprovals(bot.app, its.store.changes(), new Clock(), policyWith());
      const settled = await restarted.get(request.id);

      expect(settled?.state).toBe('failed');
      expect(settled?.set?.steps[0]?.status).toBe(lands ? 'reverted' : 'failed');
      expect(settled?.set?.steps.slice(1).map((s) => s.status)).toEqual([
        undefined,
        undefined,
        undefined,
        undefined,
      ]);
      expect(controller()).toEqual(start);
      // The create is never sent again; an applied one is deleted once by the compensation.
      expect(writeMethodsSince(writes)).toEqual(lands ? ['DELETE'] : []);
    },
  );

  it('a step’s own request cannot be approved on its own: the set runs it', async () => {
    const set = await its.approvals.proposeSet({ steps: PLAN.slice(0, 1), requester: RITA });
    const { set: _steps, ...single } = set;
    const step = await its.store
      .changes()
      .create(
        { ...single, id: 'cr_step_alone', setOf: set.id, setStep: 1, tool: 'create_network' },
        RITA,
        Date.now(),
      );
    const writes = bot.writes().length;
    const outcome = await its.approvals.approve(step.id, ALEX);
    expect(outcome.kind).toBe('refused');
    expect(outcome.kind === 'refused' ? outcome.reason : '').toMatch(`step 1 of change set ${set.id}`);
    expect((await its.approvals.get(step.id))?.state).toBe('pending');
    expect(bot.writes().length).toBe(writes);
  });

  it('with on_failure=stop, steps 1–3 stay', async () => {
    const request = await its.approvals.proposeSet({ steps: PLAN, requester: RITA, onFailure: 'stop' });
    refuseNetworkUpdates();
    expect((await its.approveAll(request.id)).kind).toBe('failed');
    const done = await its.approvals.get(request.id);
    expect(done?.set?.steps.map((s) => s.status)).toEqual(['done', 'done', 'done', 'failed', undefined]);
    expect(bot.site().networks.some((n) => n.name === 'Doorcams')).toBe(true);
    expect(bot.site().trafficMatchingLists.some((l) => l.name === 'Cam Ports')).toBe(true);
  });

  it('the whole set is reverted as one change request, in reverse order', async () => {
    const start = controller();
    const request = await its.approvals.proposeSet({ steps: PLAN, requester: RITA });
    expect((await its.approveAll(request.id)).kind).toBe('succeeded');
    const revert = await its.approvals.proposeRevert({ changeId: request.id, requester: RITA });
    expect(revert.set?.steps.map((s) => s.tool)).toEqual([
      'update_network',
      'update_network',
      'delete_traffic_matching_list',
      'assign_network_to_zone',
      'delete_network',
    ]);
    expect((await its.approveAll(revert.id)).kind).toBe('succeeded');
    expect(controller()).toEqual(start);
    expect((await its.approvals.get(request.id))?.revertedBy).toBe(revert.id);
  });

  it('drift in any step voids the approval: nothing runs, a new set is offered', async () => {
    const steps = [
      ...PLAN.slice(0, 2),
      { tool: 'update_network', args: { network_id: 'Guest', vlan_id: 31 } },
    ];
    const request = await its.approvals.proposeSet({ steps, requester: RITA });
    const guest = bot.site().networks.find((n) => n.name === 'Guest');
    if (!guest) throw new Error('no Guest network');
    guest.vlan = 32;
    const writes = bot.writes().length;
    const outcome = await its.approvals.approve(request.id, ALEX);
    expect(outcome.kind).toBe('drift');
    expect(bot.writes()).toHaveLength(writes);
    if (outcome.kind !== 'drift') return;
    expect(outcome.differences.join(' ')).toMatch(/30 → 32/);
    expect(outcome.replacement.set?.steps).toHaveLength(3);
  });

  it('the bot’s own change tools and timing arguments are not steps', async () => {
    await expect(
      its.approvals.proposeSet({
        steps: [{ tool: 'update_network', args: { network_id: 'Guest', name: 'Lobby', revert_after: '5m' } }],
        requester: RITA,
      }),
    ).rejects.toThrow(/step 1 \(update_network\) revert_after/);
    await expect(
      its.approvals.proposeSet({
        steps: [{ tool: 'keep_change', args: { change_id: 'cr_x' } }],
        requester: RITA,
      }),
    ).rejects.toThrow(/step 1 \(keep_change\)/);
  });
});

describe('combineAssessments', () => {
  const assessment = (
    risk: 'low' | 'medium' | 'high',
    approvals: number,
    extra: Partial<ChangeAssessment['decision']> = {},
  ) =>
    ({
      facts: { target: `t-${risk}` },
      radius: {
        risk,
        reasons: [`${risk} reason`],
        clients: { count: 0 },
        devices: { count: 0 },
        references: [],
        selfLockout: false,
        unchecked: [],
      },
      decision: {
        risk,
        reasons: [],
        approvals,
        matched: [`rule-${risk}`],
        errors: [],
        selfConfirm: { counts: true, by: 'defaults.self_confirm' },
        ...extra,
      },
    }) as unknown as ChangeAssessment;

  it('takes the highest risk, the most approvals, approvers every step allows, the closed window, the first denial', () => {
    const window = { name: 'night', names: ['night'], open: false, nextOpeningMs: 1, nextOpening: 'x' };
    const combined = combineAssessments([
      assessment('low', 1, { approvers: ['U1', 'U2'] }),
      assessment('high', 2, { approvers: ['U2', 'U3'], window }),
      assessment('medium', 1, { deny: { rule: 'freeze', reason: 'frozen' } }),
    ]);
    expect(combined.radius.risk).toBe('high');
    expect(combined.radius.reasons).toEqual([
      'step 1: low reason',
      'step 2: high reason',
      'step 3: medium reason',
    ]);
    expect(combined.decision).toMatchObject({
      approvals: 2,
      approvers: ['U2'],
      window: { name: 'night', open: false },
      deny: { rule: 'freeze', reason: 'step 3: frozen' },
      matched: ['rule-low', 'rule-high', 'rule-medium'],
    });
    expect(combined.facts.target).toBe('t-low; t-high; t-medium');
    expect(combined.decision.selfConfirm.counts).toBe(true);
  });

  it('counts the requester’s own confirmation only where every step does, and keeps the shortest revert_after', () => {
    const combined = combineAssessments([
      assessment('low', 1, { revertAfterSeconds: 600 }),
      assessment('low', 1, {
        selfConfirm: { counts: false, by: 'rule "no-console"' },
        revertAfterSeconds: 60,
      }),
    ]);
    expect(combined.decision.selfConfirm).toEqual({ counts: false, by: 'rule "no-console"' });
    expect(combined.decision.revertAfterSeconds).toBe(60);
  });
});
