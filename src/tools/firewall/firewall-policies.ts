import { z } from 'zod';
import { type FieldIssue, NotSupportedError, ValidationError } from '../../errors.js';
import { isIpv4OrCidr, isIpv6OrCidr } from '../../lib/ip.js';
import type { FirewallPolicyRecord } from '../../records/firewall-policy-record.js';
import { confirm, dryRun, idOrName, intInRange, limit, offset, siteId, text } from '../core/arg-types.js';
import { applyDelete, fieldChanges, nothingToChange } from '../core/crud-model.js';
import { defineTool, type ToolDefinition } from '../core/define-tool.js';
import { firewallPolicyChanges } from './changes.js';
import { descriptionArg } from './firewall-args.js';
import {
  DAYS,
  endpointBody,
  type FirewallPolicy,
  IP_VERSIONS,
  ipIssues,
  POLICY_ACTIONS,
  POLICY_PROTOCOLS,
  portIssues,
  SCHEDULES,
  scheduleBody,
  scheduleIssues,
  scheduleWord,
  sortPolicies,
  toPolicyRow,
} from './firewall-policy-model.js';

import {
  assertUserPolicy,
  createdId,
  findSitePolicy,
  findSiteZone,
  loadPolicies,
  NEW_POLICY,
  nameIn,
  networkIds,
  pairOrder,
  place,
  placedAt,
  previewNames,
  reorderRequest,
  sentBody,
  sideArgs,
  sideIps,
  updatedSide,
  view,
  writePolicy,
  writtenView,
  zoneWarnings,
} from './policy-site.js';

const policyRef = idOrName('firewall policy');
const zoneRef = idOrName('firewall zone');
const action = z.enum(POLICY_ACTIONS, { error: `must be one of ${POLICY_ACTIONS.join(', ')}` });
const protocol = z
  .enum(POLICY_PROTOCOLS, { error: `must be one of ${POLICY_PROTOCOLS.join(', ')}` })
  .describe('Protocol matched');
const ipVersion = z
  .enum(IP_VERSIONS, { error: `must be one of ${IP_VERSIONS.join(', ')}` })
  .describe('IP version matched: IPV4, IPV6 or BOTH');
const schedule = z
  .enum(SCHEDULES, { error: `must be one of ${SCHEDULES.join(', ')}` })
  .describe(
    'When the policy applies: always, every_day or every_week (with schedule_days), or a time window',
  );
const networks = z
  .array(idOrName('network'))
  .describe('Networks of the zone to match (ids or names); empty: the whole zone');
const ips = z
  .array(
    z
      .string({ error: 'must be IP addresses or CIDRs' })
      .trim()
      .refine((v) => isIpv4OrCidr(v, true) || isIpv6OrCidr(v, true), {
        error: 'must be IP addresses or CIDRs such as 10.0.0.0/24 or 2001:db8::/64',
      }),
  )
  .describe('Addresses or CIDRs to match, instead of networks');
const PORT_RULE = 'must be a port, a list or a range such as 443, 80,443 or 8000-8100 (1–65535), or any';
const portSpec = z
  .string({ error: PORT_RULE })
  .trim()
  .regex(/^(any|\d{1,5}(-\d{1,5})?(,\d{1,5}(-\d{1,5})?)*)$/, { error: PORT_RULE })
  .refine(
    (spec) =>
      spec === 'any' ||
      spec.split(',').every((part) => {
        const [low = 0, high = low] = part.split('-').map(Number);
        return low >= 1 && high <= 65535 && low <= high;
      }),
    { error: PORT_RULE },
  );
const days = z
  .array(z.enum(DAYS, { error: `must be days from ${DAYS.join(', ')}` }))
  .describe('Days for every_week (mon,tue,…)');
const scheduleTime = z
  .string({ error: 'must be a time window such as 09:00-17:00' })
  .trim()
  .regex(/^([01]\d|2[0-3]):[0-5]\d-([01]\d|2[0-3]):[0-5]\d$/, {
    error: 'must be a time window such as 09:00-17:00',
  })
  .describe('Time window HH:MM-HH:MM (default: all day)');
const position = intInRange(1, 10_000).describe(
  'Place among the policies of its zone pair, 1 = evaluated first (default: last)',
);
const description = descriptionArg('Free text shown with the policy');

// Deliberately alike: the tools below are defineTool declarations, whose shape the framework fixes; each differs in args and run.
const listFirewallPolicies = defineTool({
  name: 'list_firewall_policies',
  description: 'List the zone-based firewall policies by zone pair, in evaluation order (one line each)',
  access: 'read',
  firewall: 'zone-based',
  example: 'limit=10',
  // `IoT Devices: IoT, Cameras`, `Internal: 192.168.1.20 port 32400`: zones, networks, addresses.
  identifierColumns: ['source', 'destination'],
  args: z.object({
    site_id: siteId,
    include_predefined: z
      .boolean({ error: 'must be true or false' })
      .default(false)
      .describe('Also list the policies the controller generates for every zone pair'),
    limit: limit(100),
    offset,
  }),
  async run({ site_id, include_predefined, limit, offset }, { gateway }) {
    const s = await loadPolicies(gateway, site_id, false);
    const shown = s.policies.filter((p) => include_predefined || p.predefined !== true);
    return sortPolicies(shown.map((p) => view(s, p)))
      .slice(offset, offset + limit)
      .map(toPolicyRow);
  },
});

// Deliberately alike: one-object get tools: defineTool fixes the declaration's shape; the read and the view are each tool's own.
const getFirewallPolicy = defineTool({
  name: 'get_firewall_policy',
  description: 'One firewall policy, with its zones and networks by name',
  access: 'read',
  firewall: 'zone-based',
  example: 'policy_id="Block IoT to Internal"',
  args: z.object({ site_id: siteId, policy_id: policyRef }),
  async run({ site_id, policy_id }, { gateway }) {
    const s = await loadPolicies(gateway, site_id, false);
    return view(s, await findSitePolicy(s, policy_id));
  },
});

/** Arguments that describe what a policy matches, shared by create and update. */
const matchArgs = {
  source_networks: networks.optional(),
  source_ips: ips.optional(),
  source_port: portSpec.optional().describe('Source port(s) (tcp/udp only)'),
  destination_networks: networks.optional(),
  destination_ips: ips.optional(),
  destination_port: portSpec.optional().describe('Destination port(s) (tcp/udp only)'),
};

/** Combinations refused before anything is read: networks and addresses on one side. */
function sideIssues(args: {
  source_networks?: string[] | undefined;
  source_ips?: string[] | undefined;
  destination_networks?: string[] | undefined;
  destination_ips?: string[] | undefined;
}): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const side of ['source', 'destination'] as const) {
    if ((args[`${side}_networks`]?.length ?? 0) > 0 && (args[`${side}_ips`]?.length ?? 0) > 0) {
      issues.push({ field: `${side}_ips`, rule: `give ${side}_networks or ${side}_ips, not both` });
    }
  }
  return issues;
}

function addIssues(issues: readonly FieldIssue[], ctx: z.RefinementCtx): void {
  for (const issue of issues) ctx.addIssue({ code: 'custom', path: [issue.field], message: issue.rule });
}

const createFirewallPolicy = defineTool({
  name: 'create_firewall_policy',
  change: firewallPolicyChanges.create_firewall_policy,
  description:
    'Create a zone-based firewall policy from one zone to another (networks, addresses, ports, schedule)',
  access: 'write',
  firewall: 'zone-based',
  example:
    'name="Cameras to NAS" action=ALLOW source_zone="IoT Devices" source_networks=Cameras destination_zone=Internal destination_ips=192.168.1.20 protocol=tcp destination_port=445',
  args: z
    .object({
      site_id: siteId,
      name: text(128).describe('Policy name'),
      action: action.describe('ALLOW, BLOCK or REJECT'),
      source_zone: zoneRef.describe('Zone the traffic comes from (name or id)'),
      destination_zone: zoneRef.describe('Zone the traffic goes to (name or id)'),
      ...matchArgs,
      protocol: protocol.default('all'),
      ip_version: ipVersion.default('BOTH'),
      schedule: schedule.default('always'),
      schedule_days: days.optional().describe('Days for every_week (mon,tue,…)'),
      schedule_time: scheduleTime.optional().describe('Time window HH:MM-HH:MM (default: all day)'),
      enabled: z
        .boolean({ error: 'must be true or false' })
        .default(true)
        .describe('Whether the policy is active'),
      logging: z
        .boolean({ error: 'must be true or false' })
        .default(false)
        .describe('Log the traffic the policy matches'),
      position: position.optional(),
      description: description.optional(),
      confirm,
      dry_run: dryRun,
    })
    .superRefine((args, ctx) => {
      addIssues(
        [
          ...sideIssues(args),
          ...ipIssues('source_ips', args.source_ips, args.ip_version),
          ...ipIssues('destination_ips', args.destination_ips, args.ip_version),
          ...portIssues(args.protocol, [
            { field: 'source_port', value: args.source_port },
            { field: 'destination_port', value: args.destination_port },
          ]),
          ...scheduleIssues(args.schedule, args.schedule_days, args.schedule_time),
        ],
        ctx,
      );
    }),
  async run(args, { gateway }) {
    const s = await loadPolicies(gateway, args.site_id, true);
    const from = await findSiteZone(s, args.source_zone, 'source_zone');
    const to = await findSiteZone(s, args.destination_zone, 'destination_zone');
    const sides = { source: from, destination: to };
    const warnings: string[] = [];
    const ends = Object.fromEntries(
      (['source', 'destination'] as const).map((name) => {
        const given = sideArgs(args, name);
        const ids =
          given.networks === undefined ? undefined : networkIds(s, given.networks, `${name}_networks`);
        warnings.push(...zoneWarnings(s, sides[name], ids));
        const port = given.port === 'any' ? undefined : given.port;
        return [name, endpointBody({ zoneId: sides[name]._id, networkIds: ids, ips: given.ips, port })];
      }),
    );
    const body: Record<string, unknown> = {
      name: args.name,
      description: args.description ?? '',
      enabled: args.enabled,
      action: args.action,
      protocol: args.protocol,
      ip_version: args.ip_version,
      logging: args.logging,
      // Asks for the return-traffic rule; the controller refuses it beside BLOCK or REJECT (unifig ADR-0022).
      create_allow_respond: args.action === 'ALLOW',
      connection_state_type: 'ALL',
      connection_states: [],
      match_ip_sec: false,
      match_opposite_protocol: false,
      icmp_typename: 'ANY',
      icmp_v6_typename: 'ANY',
      schedule: scheduleBody(args.schedule, args.schedule_days, args.schedule_time),
      source: ends.source,
      destination: ends.destination,
    };
    const sent = await sentBody(s, body);
    // The order is read only when a place is asked for.
    const order = args.position === undefined ? undefined : await pairOrder(s, from._id, to._id);
    const last = (order?.before.length ?? 0) + 1;
    if (args.position !== undefined && args.position > last) {
      warnings.push(
        `position ${args.position} is past the end of ${from.name} → ${to.name}: it goes last (${last})`,
      );
    }
    // The controller puts a new policy after the pair's others; an earlier place needs a reorder.
    const moving = order !== undefined && args.position !== undefined && args.position < last;
    const planned = moving ? placedAt(order, NEW_POLICY, args.position ?? last) : undefined;
    const names = planned?.order.before.map((id) => nameIn(s, id, args.name));
    const extras = names ? { position: args.position, order_after: names } : {};
    if (args.dry_run) {
      const preview = { ...(writtenView(s, undefined, body) as FirewallPolicy), id: null };
      // The reorder is sent too: shown with a placeholder where the controller's new id goes.
      const reorder = planned ? reorderRequest(s, from._id, to._id, planned.order) : undefined;
      const shown = { would_send: sent, ...(reorder ? { would_reorder: reorder.body } : {}) };
      return {
        dry_run: true,
        would_create: preview,
        ...shown,
        ...extras,
        ...previewNames(s, [preview, shown]),
        warnings,
      };
    }
    const answer = await writePolicy(s, 'POST', undefined, sent);
    let final = answer;
    if (moving) {
      const id = createdId(s, answer);
      const placement = placedAt(order, id, args.position ?? last);
      const done = [`policy "${args.name}" created (${id}), last in ${from.name} → ${to.name}`];
      final =
        (await place(
          s,
          reorderRequest(s, from._id, to._id, placement.order),
          id,
          done,
          `moving it to position ${placement.position}`,
        )) ?? answer;
    }
    return { success: true, policy: writtenView(s, final, body), ...extras, warnings };
  },
});

/**
 * The schedule an update sends: the stored one unless a schedule argument is given, else the
 * arguments over what the stored schedule keeps (days, times). A problem joins `issues`.
 */
function updatedSchedule(
  args: { schedule?: (typeof SCHEDULES)[number]; schedule_days?: readonly string[]; schedule_time?: string },
  current: FirewallPolicyRecord,
  stored: Record<string, unknown>,
  issues: FieldIssue[],
): unknown {
  if (args.schedule === undefined && args.schedule_days === undefined && args.schedule_time === undefined)
    return stored.schedule ?? { mode: 'ALWAYS' };
  const mode = args.schedule ?? scheduleWord(current.schedule?.mode);
  if (mode === undefined) {
    issues.push({
      field: 'schedule',
      rule: `is required: the stored ${current.schedule?.mode} schedule is not one the tools write`,
    });
    return stored.schedule ?? { mode: 'ALWAYS' };
  }
  const sched = current.schedule;
  const keptDays = args.schedule_days ?? (mode === 'every_week' ? sched?.repeat_on_days : undefined);
  const keptTime =
    args.schedule_time ??
    (mode !== 'always' && sched?.time_all_day === false && sched.time_range_start && sched.time_range_end
      ? `${sched.time_range_start}-${sched.time_range_end}`
      : undefined);
  issues.push(...scheduleIssues(mode, keptDays, args.schedule_time));
  return scheduleBody(mode, keptDays, keptTime);
}

// Deliberately alike: both firewall generations' update tools take the same optional rule fields; each validates and writes its own API's record.
const updateFirewallPolicy = defineTool({
  name: 'update_firewall_policy',
  change: firewallPolicyChanges.update_firewall_policy,
  description: 'Change some fields of a firewall policy, or its place in its zone pair; omitted fields stay',
  access: 'write',
  firewall: 'zone-based',
  example: 'policy_id="Allow Plex from WAN" enabled=true',
  args: z
    .object({
      site_id: siteId,
      policy_id: policyRef,
      name: text(128).optional().describe('New policy name'),
      action: action.optional().describe('New action: ALLOW, BLOCK or REJECT'),
      source_zone: zoneRef.optional(),
      destination_zone: zoneRef.optional(),
      ...matchArgs,
      protocol: protocol.optional(),
      ip_version: ipVersion.optional(),
      schedule: schedule.optional(),
      schedule_days: days.optional(),
      schedule_time: scheduleTime.optional(),
      enabled: z.boolean({ error: 'must be true or false' }).optional().describe('Turn the policy on or off'),
      logging: z
        .boolean({ error: 'must be true or false' })
        .optional()
        .describe('Log the traffic the policy matches'),
      position: position.optional(),
      description: description.optional().describe('New description; empty clears it'),
      confirm,
      dry_run: dryRun,
    })
    .superRefine((args, ctx) => addIssues(sideIssues(args), ctx)),
  async run(args, { gateway }) {
    const s = await loadPolicies(gateway, args.site_id, true);
    const current = await findSitePolicy(s, args.policy_id);
    assertUserPolicy(current, 'changed');
    const stored: Record<string, unknown> = s.raw.find((p) => p._id === current._id) ?? { ...current };
    const zoneOf = async (ref: string | undefined, storedId: string, field: string) => {
      if (ref !== undefined) return findSiteZone(s, ref, field);
      const zone = s.zones.find((z) => z._id === storedId);
      if (zone) return zone;
      throw new NotSupportedError(
        `firewall policy "${current.name}" names zone ${storedId}, which the controller no longer lists`,
      );
    };
    const from = await zoneOf(args.source_zone, current.source.zone_id, 'source_zone');
    const to = await zoneOf(args.destination_zone, current.destination.zone_id, 'destination_zone');
    const protocolNow = args.protocol ?? current.protocol ?? 'all';
    const ipVersionNow = args.ip_version ?? current.ip_version ?? 'BOTH';
    const warnings: string[] = [];
    const sideOf = (side: 'source' | 'destination') =>
      updatedSide(
        s,
        side === 'source' ? from : to,
        side,
        stored[side] as Record<string, unknown>,
        current[side],
        sideArgs(args, side),
        protocolNow,
        warnings,
      );
    const source = sideOf('source');
    const destination = sideOf('destination');
    const issues: FieldIssue[] = [
      ...ipIssues('source_ips', sideIps(source), ipVersionNow),
      ...ipIssues('destination_ips', sideIps(destination), ipVersionNow),
      ...portIssues(protocolNow, [
        { field: 'source_port', value: args.source_port },
        { field: 'destination_port', value: args.destination_port },
      ]),
    ];
    const schedule = updatedSchedule(args, current, stored, issues);
    if (issues.length > 0) throw new ValidationError(issues);

    const body: Record<string, unknown> = { ...stored, schedule, source, destination };
    for (const key of ['name', 'description', 'enabled', 'logging', 'protocol', 'ip_version'] as const) {
      if (args[key] !== undefined) body[key] = args[key];
    }
    if (args.action !== undefined) {
      body.action = args.action;
      // The return-traffic request follows the verdict: refused beside BLOCK/REJECT, wanted with ALLOW.
      body.create_allow_respond = args.action === 'ALLOW';
    }
    const before = view(s, current);
    const { id: _id, index: _index, ...after } = writtenView(s, undefined, body) as FirewallPolicy;
    const changes = fieldChanges({ ...before }, after);
    const policyChanged = Object.keys(changes).length > 0;

    const movedPair = from._id !== current.source.zone_id || to._id !== current.destination.zone_id;
    // The order is read only when a place is asked for (official: `policies/ordering`).
    const order = args.position === undefined ? undefined : await pairOrder(s, from._id, to._id);
    const others = order?.before.filter((id) => id !== current._id) ?? [];
    const last = others.length + 1;
    const at = order?.before.indexOf(current._id) ?? -1;
    const now = movedPair ? null : at >= 0 ? at + 1 : last;
    if (movedPair)
      warnings.push(
        `the policy moves to ${from.name} → ${to.name}, where it goes last unless a position is given`,
      );
    if (args.position !== undefined && args.position > last) {
      warnings.push(
        `position ${args.position} is past the end of ${from.name} → ${to.name}: it goes last (${last})`,
      );
    }
    const wanted = args.position === undefined ? (now ?? last) : Math.min(args.position, last);
    // After a move the controller already puts the policy last; only another place needs a reorder.
    const placement =
      order !== undefined && wanted !== (now ?? last) ? placedAt(order, current._id, wanted) : undefined;
    const reorder = placement ? reorderRequest(s, from._id, to._id, placement.order) : undefined;
    if (args.position !== undefined && wanted !== now) changes.position = { from: now, to: wanted };
    const summary = { policy_id: current._id, name: current.name, changes, warnings };
    const sent = policyChanged ? await sentBody(s, body) : null;
    if (args.dry_run && sent === null && !reorder) return nothingToChange(summary);
    if (args.dry_run) {
      const shown = { would_send: sent, ...(reorder ? { would_reorder: reorder.body } : {}) };
      return { dry_run: true, ...summary, ...shown, ...previewNames(s, [summary, shown]) };
    }
    let answer: unknown;
    if (sent !== null) answer = await writePolicy(s, 'PUT', current._id, sent);
    if (reorder) {
      const done = sent !== null ? [`policy "${current.name}" updated`] : [];
      answer = (await place(s, reorder, current._id, done, `moving it to position ${wanted}`)) ?? answer;
    }
    return {
      success: true,
      ...summary,
      policy: answer === undefined ? before : writtenView(s, answer, body),
    };
  },
});

const deleteFirewallPolicy = defineTool({
  name: 'delete_firewall_policy',
  change: firewallPolicyChanges.delete_firewall_policy,
  description: 'Delete a firewall policy of your own (irreversible)',
  access: 'write',
  firewall: 'zone-based',
  example: 'policy_id="Cameras: no internet"',
  args: z.object({ site_id: siteId, policy_id: policyRef, confirm, dry_run: dryRun }),
  async run({ site_id, policy_id, dry_run }, { gateway }) {
    const s = await loadPolicies(gateway, site_id, true);
    const target = await findSitePolicy(s, policy_id);
    assertUserPolicy(target, 'deleted');
    const shown = view(s, target);
    const warnings = ['deletion is irreversible'];
    if (shown.enabled) {
      warnings.push(
        target.action === 'ALLOW'
          ? `traffic it allows from ${shown.source_zone} to ${shown.destination_zone} falls to the next policy of the pair`
          : `traffic it blocks from ${shown.source_zone} to ${shown.destination_zone} may flow again`,
      );
    }
    return applyDelete({
      dryRun: dry_run,
      preview: shown,
      warnings,
      idField: 'deleted_policy_id',
      id: target._id,
      send: () => writePolicy(s, 'DELETE', target._id),
    });
  },
});

/**
 * Zone-based firewall policies: official `firewall/policies` on Network 10.1+ with an API key, v2
 * `firewall-policies` before; the firewall of migrated consoles.
 */
export const firewallPolicyTools: ToolDefinition[] = [
  listFirewallPolicies,
  getFirewallPolicy,
  createFirewallPolicy,
  updateFirewallPolicy,
  deleteFirewallPolicy,
];
