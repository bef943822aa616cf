import { z } from 'zod';
import { type FieldIssue, NotSupportedError, ValidationError } from '../errors.js';
import { invalidResponse } from '../gateway/envelopes.js';
import {
  type FirewallPolicyRecord,
  firewallPolicyRecordSchema,
  type V2ZoneRecord,
  v2ZoneRecordSchema,
} from '../gateway/records/firewall-policy-record.js';
import type { Gateway } from '../gateway/types.js';
import { isIpv4OrCidr, isIpv6OrCidr } from '../lib/ip.js';
import { confirm, dryRun, idOrName, intInRange, limit, offset, siteId, text } from './arg-types.js';
import { applyDelete, fieldChanges, namesIn, parseEach, withStateLeft } from './crud-model.js';
import { defineTool, type ToolDefinition } from './define-tool.js';
import { requireZoneBasedFirewall } from './firewall-generation.js';
import {
  DAYS,
  endpointBody,
  type FirewallPolicy,
  findPolicy,
  findPolicyZone,
  IP_VERSIONS,
  ipIssues,
  isBeforeGenerated,
  POLICY_ACTIONS,
  POLICY_PROTOCOLS,
  type PolicyNames,
  pairPolicies,
  portIssues,
  portsApply,
  reorderBody,
  SCHEDULES,
  scheduleBody,
  scheduleIssues,
  scheduleWord,
  sortPolicies,
  toFirewallPolicy,
  toPolicyRow,
} from './firewall-policy-model.js';
import { NetworkDirectory } from './network-ids.js';
import { findNetwork } from './network-model.js';

const POLICIES = 'firewall-policies';
const REORDER = 'firewall-policies/batch-reorder';
// aiounifi and go-unifi read the singular form.
const ZONES = 'firewall/zone';

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
const description = z
  .string({ error: 'must be text' })
  .trim()
  .max(256, { error: 'must be at most 256 characters' })
  .describe('Free text shown with the policy');

/** Where a new policy stands in a previewed reorder: its id is the controller's to give. */
const NEW_POLICY = '(the new policy)';

/** Stored policies exactly as sent: a PUT is a full replace, so untouched fields go back unchanged. */
const storedPolicySchema = z.looseObject({ _id: z.string().min(1) });
type StoredPolicy = z.output<typeof storedPolicySchema>;

/** Spec §5 applies as to zones: the cloud connector does not forward the v2 API these tools use. */
function requireLocal(gateway: Gateway): void {
  if (gateway.apiType !== 'local') {
    throw new NotSupportedError(
      'firewall policy tools need GATEWAY_API_TYPE=local: they use the console’s v2 API, which the cloud connector does not forward',
    );
  }
}

/** The site's policies, zones and networks, read together. */
interface PolicySite {
  raw: StoredPolicy[];
  policies: FirewallPolicyRecord[];
  zones: V2ZoneRecord[];
  networks: NetworkDirectory;
  names: PolicyNames;
}

async function loadPolicies(gateway: Gateway, site: string, fresh: boolean): Promise<PolicySite> {
  requireLocal(gateway);
  await requireZoneBasedFirewall(gateway, site);
  const [stored, zones, networks] = await Promise.all([
    gateway.v2Read(site, POLICIES, storedPolicySchema, { fresh }),
    gateway.v2Read(site, ZONES, v2ZoneRecordSchema, { fresh }),
    NetworkDirectory.load(gateway, site, { fresh }),
  ]);
  const parsed = parseEach(stored.items, firewallPolicyRecordSchema);
  return {
    raw: parsed.map((pair) => pair.raw),
    policies: parsed.map((pair) => pair.record),
    zones: zones.items,
    networks,
    names: {
      zone: (id) => zones.items.find((zone) => zone._id === id)?.name ?? null,
      zoneId: (id) => zones.items.find((zone) => zone._id === id)?.external_id || id,
      network: (id) => networks.records.find((network) => network._id === id)?.name ?? null,
    },
  };
}

/** `{names}` for a preview: every zone, network and policy id in it, so each shows with its name. */
function previewNames(s: PolicySite, preview: unknown): { names?: Record<string, string> } {
  const names = namesIn(
    preview,
    (id) => s.names.zone(id) ?? s.names.network(id) ?? s.policies.find((p) => p._id === id)?.name ?? null,
  );
  return Object.keys(names).length > 0 ? { names } : {};
}

function view(s: PolicySite, record: FirewallPolicyRecord): FirewallPolicy {
  return toFirewallPolicy(record, s.names);
}

/** The view of a written policy, from the controller's answer or, failing that, what was sent. */
function writtenView(
  s: PolicySite,
  answer: unknown,
  sent: Record<string, unknown>,
): FirewallPolicy | unknown {
  const parsed = firewallPolicyRecordSchema.safeParse(answer);
  if (parsed.success) return view(s, parsed.data);
  const fallback = firewallPolicyRecordSchema.safeParse({ _id: '(not returned)', ...sent });
  return fallback.success ? view(s, fallback.data) : answer;
}

/** Refuses a change to a policy the controller generates (it answers FirewallPolicyNotFound to its id). */
function assertUserPolicy(policy: FirewallPolicyRecord, change: 'changed' | 'deleted'): void {
  if (policy.predefined === true) {
    throw new NotSupportedError(
      `firewall policy "${policy.name}" is generated by the controller for its zone pair and cannot be ${change}; ` +
        'add a policy of your own to the same zones to override it',
    );
  }
}

/** Network arguments as classic ids (policies name networkconf `_id`s). */
function networkIds(s: PolicySite, refs: readonly string[], field: string): string[] {
  return refs.map((ref) => findNetwork(s.networks.records, ref, field)._id);
}

/** Warns about matched networks that are not in the side's zone: such a policy never sees their traffic. */
function zoneWarnings(s: PolicySite, zone: V2ZoneRecord, ids: readonly string[] | undefined): string[] {
  return (ids ?? [])
    .filter((id) => !zone.network_ids.includes(id))
    .map(
      (id) =>
        `network ${s.names.network(id) ?? id} is not in zone "${zone.name}": the policy never matches its traffic`,
    );
}

/** What the arguments say about one side: networks or addresses (undefined: not given), and a port. */
interface SideArgs {
  networks?: string[] | undefined;
  ips?: string[] | undefined;
  port?: string | undefined;
}

function sideArgs(args: Record<string, unknown>, side: 'source' | 'destination'): SideArgs {
  return {
    networks: args[`${side}_networks`] as string[] | undefined,
    ips: args[`${side}_ips`] as string[] | undefined,
    port: args[`${side}_port`] as string | undefined,
  };
}

/**
 * One side of an updated policy. Untouched parts stay exactly as stored (a PUT replaces the whole
 * policy, and the UI may have set fields the tools do not write); a new target is written afresh.
 */
function updatedSide(
  s: PolicySite,
  zone: V2ZoneRecord,
  name: 'source' | 'destination',
  stored: Record<string, unknown>,
  current: FirewallPolicyRecord['source'],
  given: SideArgs,
  protocol: string,
  warnings: string[],
): Record<string, unknown> {
  let port = current.port_matching_type === 'SPECIFIC' ? current.port : undefined;
  if (given.port !== undefined) port = given.port === 'any' ? undefined : given.port;
  else if (port !== undefined && !portsApply(protocol)) {
    warnings.push(`the ${name} port ${port} is dropped: ports apply to tcp and udp only`);
    port = undefined;
  }
  if (given.networks !== undefined || given.ips !== undefined) {
    const ids = given.networks === undefined ? undefined : networkIds(s, given.networks, `${name}_networks`);
    warnings.push(...zoneWarnings(s, zone, ids));
    return endpointBody({ zoneId: zone._id, networkIds: ids, ips: given.ips, port });
  }
  if (zone._id !== current.zone_id && current.matching_target === 'NETWORK') {
    warnings.push(...zoneWarnings(s, zone, current.network_ids));
  }
  const kept: Record<string, unknown> = { ...stored, zone_id: zone._id };
  if (port === undefined) {
    kept.port_matching_type = 'ANY';
    delete kept.port;
  } else {
    Object.assign(kept, { port_matching_type: 'SPECIFIC', port });
  }
  return kept;
}

/** The addresses a written side matches, for the IP version check. */
function sideIps(side: Record<string, unknown>): string[] | undefined {
  return side.matching_target === 'IP' && Array.isArray(side.ips) ? (side.ips as string[]) : undefined;
}

/** The id of a policy the controller answered with, or an error that says the policy was still created. */
function createdId(answer: unknown): string {
  const id = (answer as { _id?: unknown } | undefined)?._id;
  if (typeof id === 'string' && id !== '') return id;
  throw invalidResponse('the created policy has no _id, so it cannot be placed', POLICIES);
}

/** Puts a policy at its place in its zone pair; a failure says the policy itself was written. */
async function place(
  gateway: Gateway,
  site: string,
  body: Record<string, unknown>,
  id: string,
  done: string[],
  step: string,
): Promise<unknown> {
  try {
    const answer = await gateway.v2Write(site, 'PUT', REORDER, body);
    return Array.isArray(answer) ? answer.find((p) => (p as { _id?: unknown })?._id === id) : undefined;
  } catch (error) {
    throw withStateLeft(error, done, step);
  }
}

/** The zone pair's user policies placed before the controller's own. */
function placedIn(pair: readonly FirewallPolicyRecord[]): FirewallPolicyRecord[] {
  return pair.filter(isBeforeGenerated);
}

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

const getFirewallPolicy = defineTool({
  name: 'get_firewall_policy',
  description: 'One firewall policy, with its zones and networks by name',
  access: 'read',
  firewall: 'zone-based',
  example: 'policy_id="Block IoT to Internal"',
  args: z.object({ site_id: siteId, policy_id: policyRef }),
  async run({ site_id, policy_id }, { gateway }) {
    const s = await loadPolicies(gateway, site_id, false);
    return view(s, findPolicy(s.policies, policy_id));
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
    const from = findPolicyZone(s.zones, args.source_zone, 'source_zone');
    const to = findPolicyZone(s.zones, args.destination_zone, 'destination_zone');
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
    const pair = pairPolicies(s.policies, from._id, to._id);
    const placed = placedIn(pair);
    const last = placed.length + 1;
    if (args.position !== undefined && args.position > last) {
      warnings.push(
        `position ${args.position} is past the end of ${from.name} → ${to.name}: it goes last (${last})`,
      );
    }
    // The controller puts a new policy after the pair's others; an earlier place needs a reorder.
    const moving = args.position !== undefined && args.position < last;
    const planned = moving
      ? reorderBody(pair, NEW_POLICY, args.position ?? last, from._id, to._id)
      : undefined;
    const order = planned?.order.map((id) => pair.find((p) => p._id === id)?.name ?? args.name);
    const extras = order ? { position: args.position, order_after: order } : {};
    if (args.dry_run) {
      const preview = { ...(writtenView(s, undefined, body) as FirewallPolicy), id: null };
      // The reorder is sent too: shown with a placeholder where the controller's new id goes.
      const sent = { would_send: body, ...(planned ? { would_reorder: planned.body } : {}) };
      return {
        dry_run: true,
        would_create: preview,
        ...sent,
        ...extras,
        ...previewNames(s, [preview, sent]),
        warnings,
      };
    }
    const answer = await gateway.v2Write(args.site_id, 'POST', POLICIES, body);
    let final = answer;
    if (moving) {
      const id = createdId(answer);
      const reorder = reorderBody(pair, id, args.position ?? last, from._id, to._id);
      const done = [`policy "${args.name}" created (${id}), last in ${from.name} → ${to.name}`];
      final =
        (await place(
          gateway,
          args.site_id,
          reorder.body,
          id,
          done,
          `moving it to position ${reorder.position}`,
        )) ?? answer;
    }
    return { success: true, policy: writtenView(s, final, body), ...extras, warnings };
  },
});

const updateFirewallPolicy = defineTool({
  name: 'update_firewall_policy',
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
    const current = findPolicy(s.policies, args.policy_id);
    assertUserPolicy(current, 'changed');
    const stored: Record<string, unknown> = s.raw.find((p) => p._id === current._id) ?? { ...current };
    const zoneOf = (ref: string | undefined, storedId: string, field: string) => {
      if (ref !== undefined) return findPolicyZone(s.zones, ref, field);
      const zone = s.zones.find((z) => z._id === storedId);
      if (zone) return zone;
      throw new NotSupportedError(
        `firewall policy "${current.name}" names zone ${storedId}, which the controller no longer lists`,
      );
    };
    const from = zoneOf(args.source_zone, current.source.zone_id, 'source_zone');
    const to = zoneOf(args.destination_zone, current.destination.zone_id, 'destination_zone');
    const protocolNow = args.protocol ?? current.protocol ?? 'all';
    const ipVersionNow = args.ip_version ?? current.ip_version ?? 'BOTH';
    const warnings: string[] = [];
    const source = updatedSide(
      s,
      from,
      'source',
      stored.source as Record<string, unknown>,
      current.source,
      sideArgs(args, 'source'),
      protocolNow,
      warnings,
    );
    const destination = updatedSide(
      s,
      to,
      'destination',
      stored.destination as Record<string, unknown>,
      current.destination,
      sideArgs(args, 'destination'),
      protocolNow,
      warnings,
    );
    const issues: FieldIssue[] = [
      ...ipIssues('source_ips', sideIps(source), ipVersionNow),
      ...ipIssues('destination_ips', sideIps(destination), ipVersionNow),
      ...portIssues(protocolNow, [
        { field: 'source_port', value: args.source_port },
        { field: 'destination_port', value: args.destination_port },
      ]),
    ];
    let schedule: unknown = stored.schedule ?? { mode: 'ALWAYS' };
    if (args.schedule !== undefined || args.schedule_days !== undefined || args.schedule_time !== undefined) {
      const mode = args.schedule ?? scheduleWord(current.schedule?.mode);
      if (mode === undefined) {
        issues.push({
          field: 'schedule',
          rule: `is required: the stored ${current.schedule?.mode} schedule is not one the tools write`,
        });
      } else {
        const sched = current.schedule;
        const keptDays = args.schedule_days ?? (mode === 'every_week' ? sched?.repeat_on_days : undefined);
        const keptTime =
          args.schedule_time ??
          (mode !== 'always' &&
          sched?.time_all_day === false &&
          sched.time_range_start &&
          sched.time_range_end
            ? `${sched.time_range_start}-${sched.time_range_end}`
            : undefined);
        issues.push(...scheduleIssues(mode, keptDays, args.schedule_time));
        schedule = scheduleBody(mode, keptDays, keptTime);
      }
    }
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
    const pair = pairPolicies(s.policies, from._id, to._id).filter((p) => p._id !== current._id);
    const last = placedIn(pair).length + 1;
    const now = movedPair
      ? null
      : placedIn(pair).filter((p) => (p.index ?? 0) < (current.index ?? 0)).length + 1;
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
    const reorder =
      wanted !== (now ?? last)
        ? reorderBody([...pair, current], current._id, wanted, from._id, to._id)
        : undefined;
    if (args.position !== undefined && wanted !== now) changes.position = { from: now, to: wanted };
    const summary = { policy_id: current._id, name: current.name, changes, warnings };
    if (args.dry_run) {
      const sent = {
        would_send: policyChanged ? body : null,
        ...(reorder ? { would_reorder: reorder.body } : {}),
      };
      return { dry_run: true, ...summary, ...sent, ...previewNames(s, [summary, sent]) };
    }
    let answer: unknown;
    if (policyChanged)
      answer = await gateway.v2Write(args.site_id, 'PUT', `${POLICIES}/${current._id}`, body);
    if (reorder) {
      const done = policyChanged ? [`policy "${current.name}" updated`] : [];
      answer =
        (await place(
          gateway,
          args.site_id,
          reorder.body,
          current._id,
          done,
          `moving it to position ${wanted}`,
        )) ?? answer;
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
  description: 'Delete a firewall policy of your own (irreversible)',
  access: 'write',
  firewall: 'zone-based',
  example: 'policy_id="Cameras: no internet"',
  args: z.object({ site_id: siteId, policy_id: policyRef, confirm, dry_run: dryRun }),
  async run({ site_id, policy_id, dry_run }, { gateway }) {
    const s = await loadPolicies(gateway, site_id, true);
    const target = findPolicy(s.policies, policy_id);
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
      send: () => gateway.v2Write(site_id, 'DELETE', `${POLICIES}/${target._id}`),
    });
  },
});

/** Zone-based firewall policies (v2 `firewall-policies`): the firewall of migrated consoles. */
export const firewallPolicyTools: ToolDefinition[] = [
  listFirewallPolicies,
  getFirewallPolicy,
  createFirewallPolicy,
  updateFirewallPolicy,
  deleteFirewallPolicy,
];
