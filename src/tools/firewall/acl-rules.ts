import { z } from 'zod';
import { NotSupportedError, ResourceNotFoundError, ValidationError } from '../../errors.js';
import { invalidResponse } from '../../gateway/envelopes.js';
import type { Gateway } from '../../gateway/types.js';
import { findByIdOrName } from '../../lib/find-by-id-or-name.js';
import { isIpv4 } from '../../lib/ip.js';
import { normalizeMac } from '../../lib/mac.js';
import { type AclRuleRecord, aclOrderingSchema, aclRuleRecordSchema } from '../../records/acl-rule-record.js';
import { clientRecordSchema } from '../../records/client-record.js';
import { deviceRecordSchema } from '../../records/device-record.js';
import {
  confirm,
  dryRun,
  idOrName,
  intInRange,
  ipv4OrCidr,
  limit,
  offset,
  port,
  refusingValues,
  siteId,
  text,
} from '../core/arg-types.js';
import {
  applyDelete,
  fieldChanges,
  namesIn,
  nothingToChange,
  parseEach,
  replacementBody,
  sameJson,
  withStateLeft,
} from '../core/crud-model.js';
import { defineTool, type ToolDefinition } from '../core/define-tool.js';
import {
  clientLabel,
  deviceLabel,
  liveClientSchema,
  readLiveClients,
  readLiveDevices,
} from '../core/live-targets.js';
import { MISSING_PARAMS } from '../core/missing-values.js';
import { NetworkDirectory } from '../networks/network-ids.js';
import { toControllerFilter } from './acl-filter.js';
import {
  ACL_ACTIONS,
  ACL_ENDPOINT_TYPES,
  ACL_PROTOCOLS,
  type AclRule,
  DEFAULT_PRIORITY,
  decodeEndpoint,
  type Endpoint,
  encodeEndpoint,
  endpointIssues,
  ICMP_REFUSAL,
  type Ipv4Endpoint,
  placeInOrdering,
  positionFor,
  priorityOf,
  type Side,
  sortAclRules,
  toAclRule,
  toControllerAction,
  toProtocolFilter,
  withoutNulls,
} from './acl-rule-model.js';
import { aclRuleChanges } from './changes.js';
import { descriptionArg } from './firewall-args.js';

const ACL = 'acl-rules';
const ORDERING = 'acl-rules/ordering';
// Read-only on the controller: `index` is deprecated on write (the ordering decides), the others are its own.
const READ_ONLY_FIELDS = /^(id|index|metadata)$/;

const storedRuleSchema = z.looseObject({ id: z.string().min(1) });

const ruleRef = idOrName('ACL rule');
const endpointType = z.enum(ACL_ENDPOINT_TYPES, { error: `must be one of ${ACL_ENDPOINT_TYPES.join(', ')}` });
const endpointRef = idOrName('network, device or client').describe(
  'network: its id or name; device: a device or client by MAC, IP address or name',
);
const protocol = refusingValues(
  z.enum(ACL_PROTOCOLS, { error: `must be one of ${ACL_PROTOCOLS.join(', ')}` }),
  { icmp: { rule: ICMP_REFUSAL, note: 'refused: ACL rules match TCP and UDP only' } },
);
const priority = intInRange(1, 10000).describe(
  'Position in the evaluation order, 1 first (past the end: last)',
);
const description = descriptionArg('Free text shown with the rule');

/** Every create_acl_rule field but site_id, optional (update takes them all that way). */
const ruleFields = {
  name: text(128).describe('Rule name'),
  action: z
    .enum(ACL_ACTIONS, { error: `must be one of ${ACL_ACTIONS.join(', ')}` })
    .describe('allow or deny the traffic matched'),
  enabled: z.boolean({ error: 'must be true or false' }).describe('Whether the rule is active'),
  source_type: endpointType.describe('What the source is: network, device, ip or any'),
  source_id: endpointRef,
  source_network: ipv4OrCidr.describe('Source address or CIDR (source_type ip)'),
  destination_type: endpointType.describe('What the destination is: network, device, ip or any'),
  destination_id: endpointRef,
  destination_network: ipv4OrCidr.describe('Destination address or CIDR (destination_type ip)'),
  protocol: protocol.describe('tcp, udp, tcp_udp (both) or all; icmp is refused'),
  src_port: port.describe('Source port (tcp or udp)'),
  dst_port: port.describe('Destination port (tcp or udp)'),
  priority,
  description,
};

/** What one side of a rule is given as, in the spec's argument names. */
interface SideArgs {
  type?: string | undefined;
  id?: string | undefined;
  network?: string | undefined;
  port?: number | undefined;
}

/** The spec's endpoint arguments, as both create and update take them. */
interface EndpointArguments {
  source_type?: string | undefined;
  source_id?: string | undefined;
  source_network?: string | undefined;
  src_port?: number | undefined;
  destination_type?: string | undefined;
  destination_id?: string | undefined;
  destination_network?: string | undefined;
  dst_port?: number | undefined;
}

function sideArgs(args: EndpointArguments, side: Side): SideArgs {
  return side === 'source'
    ? { type: args.source_type, id: args.source_id, network: args.source_network, port: args.src_port }
    : {
        type: args.destination_type,
        id: args.destination_id,
        network: args.destination_network,
        port: args.dst_port,
      };
}

/**
 * The spec's combination rules for both sides, as zod issues so the registry refuses them before
 * any request. `complete`: the arguments are all there is (create; an absent type means any).
 */
function refuseEndpointCombinations(complete: boolean) {
  return (args: EndpointArguments, ctx: z.RefinementCtx) => {
    for (const side of ['source', 'destination'] as const) {
      const given = sideArgs(args, side);
      if (!complete && given.type === undefined) continue;
      const issues = endpointIssues(
        side,
        { type: given.type ?? 'any', id: given.id !== undefined, network: given.network !== undefined },
        complete,
      );
      for (const issue of issues) {
        ctx.addIssue({
          code: 'custom',
          path: [issue.field],
          message: issue.rule,
          ...(issue.missing ? { params: MISSING_PARAMS } : {}),
        });
      }
    }
  };
}

/** The site's rules (raw and parsed), their order, and the classic id of every network UUID they name. */
interface AclSite {
  gateway: Gateway;
  site: string;
  rules: { raw: z.output<typeof storedRuleSchema>; record: AclRuleRecord }[];
  ordering: string[];
  networks: NetworkDirectory;
  ids: Map<string, string>;
  /** Network UUIDs and MACs (lower case) to the names people know them by. */
  names: Map<string, string>;
}

/**
 * The names of the clients and devices MAC rules point at: online clients, known ones that are
 * not online (`rest/user`), and devices; read only when a rule has a MAC filter.
 */
async function macNames(gateway: Gateway, site: string, fresh: boolean): Promise<Map<string, string>> {
  const [devices, online, known] = await Promise.all([
    readLiveDevices({ gateway, site }, { fresh }),
    readLiveClients({ gateway, site }, { fresh }),
    gateway.classicRead(site, 'rest/user', liveClientSchema, { fresh }),
  ]);
  const names = new Map<string, string>();
  for (const c of [...known.items, ...online]) names.set(c.mac.toLowerCase(), clientLabel(c));
  for (const d of devices) names.set(d.mac.toLowerCase(), deviceLabel(d));
  return names;
}

async function loadAcl(gateway: Gateway, site: string, fresh: boolean, filter?: string): Promise<AclSite> {
  // Started with the rest so a listing stays within two round trips; awaited only when a rule has
  // a MAC filter (a failure of these reads then matters, not otherwise).
  const macsRead = macNames(gateway, site, fresh);
  macsRead.catch(() => undefined);
  const [raw, ordering, networks] = await Promise.all([
    gateway.integrationList(site, ACL, storedRuleSchema, { fresh, ...(filter ? { filter } : {}) }),
    gateway.integrationGet(site, ORDERING, aclOrderingSchema, { fresh }),
    NetworkDirectory.load(gateway, site, { fresh, withIntegration: true, official: true }),
  ]);
  const rules = parseEach(raw.items, aclRuleRecordSchema);
  const uuids = new Set(
    rules.flatMap(({ record }) =>
      [record.sourceFilter, record.destinationFilter].flatMap((f) => f?.networkIds ?? []),
    ),
  );
  const hasMacs = rules.some(({ record }) =>
    [record.sourceFilter, record.destinationFilter].some((f) => f?.type === 'MAC_ADDRESSES'),
  );
  const [described, macs] = await Promise.all([
    networks.describeAll([...uuids]),
    hasMacs ? macsRead : new Map<string, string>(),
  ]);
  const ids = new Map(described.map((n) => [n.uuid, n.id]));
  const names = new Map(macs);
  for (const n of described) if (n.name) names.set(n.uuid, n.name);
  return { gateway, site, rules, ordering: ordering.orderedAclRuleIds, networks, ids, names };
}

/** Where a new rule stands in a previewed ordering: its id is the controller's to give. */
const NEW_RULE = '(the new rule)';

/** `{names}` of the rules and networks an ACL preview refers to by id, when it refers to any. */
function aclNames(acl: AclSite, preview: unknown): { names?: Record<string, string> } {
  const known = new Map<string, string>();
  for (const { record } of acl.rules) known.set(record.id, record.name);
  for (const network of acl.networks.records) {
    known.set(network._id, network.name);
    if (network.external_id) known.set(network.external_id, network.name);
  }
  const names = namesIn(preview, (id) => known.get(id));
  return Object.keys(names).length > 0 ? { names } : {};
}

function view(acl: AclSite, record: AclRuleRecord, priorityNow: number | null): AclRule {
  return toAclRule(record, priorityNow, {
    classicId: (uuid) => acl.ids.get(uuid) ?? uuid,
    nameOf: (key) => acl.names.get(key) ?? acl.names.get(key.toLowerCase()),
  });
}

function findRule(acl: AclSite, ref: string) {
  return findByIdOrName(acl.rules, ref, {
    resource: 'ACL rule',
    field: 'acl_rule_id',
    id: (r) => r.record.id,
    name: (r) => r.record.name,
  });
}

function assertUserDefined(record: AclRuleRecord): void {
  const origin = record.metadata?.origin;
  if (origin !== undefined && origin !== 'USER_DEFINED') {
    throw new NotSupportedError(
      `ACL rule "${record.name}" is ${origin} (not user-defined): only user-defined rules can be changed or deleted`,
    );
  }
}

/** Something a `device` endpoint may name: an adopted device or an active client. */
interface Endpointable {
  kind: 'device' | 'client';
  id: string | undefined;
  mac: string;
  ip: string | undefined;
  names: string[];
  label: string;
}

async function endpointables(acl: AclSite): Promise<Endpointable[]> {
  const [devices, clients] = await Promise.all([
    acl.gateway.classicRead(acl.site, 'stat/device', deviceRecordSchema, { fresh: true }),
    acl.gateway.classicRead(acl.site, 'stat/sta', clientRecordSchema, { fresh: true }),
  ]);
  return [
    ...devices.items.map(
      (d): Endpointable => ({
        kind: 'device',
        id: d._id,
        mac: d.mac.toLowerCase(),
        ip: d.ip || undefined,
        names: d.name ? [d.name] : [],
        label: `${d.name || d.mac} (${d.mac})`,
      }),
    ),
    ...clients.items.map(
      (c): Endpointable => ({
        kind: 'client',
        id: typeof c._id === 'string' ? c._id : undefined,
        mac: c.mac.toLowerCase(),
        ip: c.ip || undefined,
        names: [c.name, c.hostname].filter((n): n is string => Boolean(n)),
        label: `${c.name || c.hostname || c.mac} (${c.mac})`,
      }),
    ),
  ];
}

/**
 * The network device or active client a `device` endpoint names: by MAC (any notation), by IP,
 * by `_id`, or by name (a client's alias or hostname). A name several of them share is refused.
 */
function findEndpointable(candidates: readonly Endpointable[], ref: string, field: string): Endpointable {
  const wanted = ref.trim();
  const mac = normalizeMac(wanted);
  const byKey = mac
    ? candidates.filter((c) => c.mac === mac)
    : isIpv4(wanted)
      ? candidates.filter((c) => c.ip === wanted)
      : candidates.filter((c) => c.id === wanted);
  const byName =
    byKey.length > 0
      ? byKey
      : candidates.filter((c) => c.names.some((n) => n.toLowerCase() === wanted.toLowerCase()));
  const [only] = byName;
  if (byName.length === 1 && only) return only;
  if (byName.length > 1) {
    throw new ValidationError([
      {
        field,
        rule: `"${ref}" names ${byName.length} devices or clients; use a MAC (${byName.map((c) => c.mac).join(', ')})`,
      },
    ]);
  }
  throw new ResourceNotFoundError(
    'device or client',
    ref,
    `no network device or active client matches "${ref}" (give its MAC, IP address, name or id)`,
  );
}

/** A network device or an active client, matched by its current address (a /32). */
async function deviceEndpoint(acl: AclSite, side: Side, ref: string, ports: number[] | null) {
  const field = `${side}_id`;
  const target = findEndpointable(await endpointables(acl), ref, field);
  if (!target.ip) {
    throw new ValidationError([{ field, rule: `${target.kind} ${target.label} has no IP address to match` }]);
  }
  const endpoint: Ipv4Endpoint = { type: 'ip', addresses: [`${target.ip}/32`], ports };
  const advice = target.kind === 'client' ? '; a fixed IP (DHCP reservation) keeps it matched' : '';
  const warning =
    `the ${side} ${target.kind} ${target.label} is matched by its current address ${target.ip}/32 ` +
    `(the controller’s ACL rules take addresses, not ${target.kind}s): if its address changes, the rule no longer matches it${advice}`;
  return { endpoint, warnings: [warning] };
}

/**
 * One side of a rule as a controller endpoint. An absent id or address keeps the current one
 * (updates), which the combination check has already made sure exists.
 */
async function resolveEndpoint(
  acl: AclSite,
  side: Side,
  given: SideArgs & { type: string },
  ports: number[] | null,
  current?: Endpoint,
): Promise<{ endpoint: Ipv4Endpoint; warnings: string[] }> {
  const none = { warnings: [] as string[] };
  if (given.type === 'device' && given.id !== undefined) return deviceEndpoint(acl, side, given.id, ports);
  if (given.type === 'network') {
    if (given.id === undefined && current?.type === 'network') {
      return { ...none, endpoint: { type: 'network', networkUuids: current.networkUuids, ports } };
    }
    const network = await acl.networks.resolve(given.id ?? '', `${side}_id`);
    acl.ids.set(network.uuid, network.id);
    if (network.name) acl.names.set(network.uuid, network.name);
    return { ...none, endpoint: { type: 'network', networkUuids: [network.uuid], ports } };
  }
  if (given.type === 'ip') {
    const addresses =
      given.network !== undefined ? [given.network] : current?.type === 'ip' ? current.addresses : [];
    return { ...none, endpoint: { type: 'ip', addresses, ports } };
  }
  return { ...none, endpoint: { type: 'any', ports } };
}

/** The new endpoint of one side for an update, or undefined when the update does not touch it. */
async function updatedEndpoint(acl: AclSite, side: Side, current: Endpoint, given: SideArgs) {
  const touched = given.type !== undefined || given.id !== undefined || given.network !== undefined;
  if (!touched && given.port === undefined) return undefined;
  if (current.type === 'mac' || current.type === 'other') {
    const kind = current.type === 'mac' ? 'MAC address' : current.name;
    throw new NotSupportedError(
      `the ${side} of this rule is a ${kind} filter, which these tools do not edit`,
    );
  }
  const ports = given.port !== undefined ? [given.port] : current.ports;
  const type = given.type ?? current.type;
  const keeps = type === current.type;
  const issues = endpointIssues(side, {
    type,
    id: given.id !== undefined || (keeps && type === 'network'),
    network: given.network !== undefined || (keeps && type === 'ip'),
  });
  if (issues.length > 0) throw new ValidationError(issues);
  return resolveEndpoint(acl, side, { ...given, type }, ports, current);
}

/**
 * Puts a rule at the position its priority asks for, when that changes the order. Returns the
 * order after the call (unchanged when no PUT was needed).
 */
async function applyPriority(acl: AclSite, ruleId: string, wanted: number, ordering: readonly string[]) {
  const next = placeInOrdering(ordering, ruleId, wanted);
  if (!sameJson(next, ordering)) {
    await acl.gateway.integrationWrite(acl.site, 'PUT', ORDERING, { orderedAclRuleIds: next });
  }
  return next;
}

function parsedRule(answer: unknown, path: string): AclRuleRecord {
  const parsed = aclRuleRecordSchema.safeParse(answer);
  if (!parsed.success) throw invalidResponse('the ACL rule has no id', path);
  return parsed.data;
}

function positionWarning(wanted: number, position: number): string[] {
  return wanted > position
    ? [`priority ${wanted} is past the last rule: the rule goes last, at position ${position}`]
    : [];
}

// Deliberately alike: the tools below are defineTool declarations, whose shape the framework fixes; each differs in args and run.
const listAclRules = defineTool({
  name: 'list_acl_rules',
  description: 'List the ACL rules by priority; filter_expr narrows them (Integration filter syntax)',
  access: 'read',
  example: 'limit=10',
  args: z.object({
    site_id: siteId,
    limit: limit(100),
    offset,
    filter_expr: text(1000)
      .optional()
      .describe(
        "Integration filter over the result fields, e.g. and(action.eq('deny'), source_type.eq('network'))",
      ),
  }),
  async run({ site_id, limit, offset, filter_expr }, { gateway }) {
    let directory: Promise<NetworkDirectory> | undefined;
    const networkUuid = async (ref: string, field: string) => {
      directory ??= NetworkDirectory.load(gateway, site_id, { official: true });
      try {
        return (await (await directory).resolve(ref, field)).uuid;
      } catch (error) {
        if (!(error instanceof ResourceNotFoundError)) throw error;
        throw new ValidationError([
          { field, rule: `no network on site ${site_id} is named or has id ${ref}` },
        ]);
      }
    };
    const filter = filter_expr === undefined ? undefined : await toControllerFilter(filter_expr, networkUuid);
    const acl = await loadAcl(gateway, site_id, false, filter);
    const rules = acl.rules.map(({ record }) => view(acl, record, priorityOf(record, acl.ordering)));
    return sortAclRules(rules).slice(offset, offset + limit);
  },
});

// Deliberately alike: one-object get tools: defineTool fixes the declaration's shape; the read and the view are each tool's own.
const getAclRule = defineTool({
  name: 'get_acl_rule',
  description: 'One ACL rule',
  access: 'read',
  example: 'acl_rule_id="Block IoT to NAS"',
  args: z.object({ site_id: siteId, acl_rule_id: ruleRef }),
  async run({ site_id, acl_rule_id }, { gateway }) {
    const acl = await loadAcl(gateway, site_id, false);
    const { record } = findRule(acl, acl_rule_id);
    return view(acl, record, priorityOf(record, acl.ordering));
  },
});

const createAclRule = defineTool({
  name: 'create_acl_rule',
  change: aclRuleChanges.create_acl_rule,
  description: 'Create an ACL rule (TCP/UDP only) and put it at its priority',
  access: 'write',
  example:
    'name="Block IoT to Cameras" action=deny source_type=network source_id=IoT destination_type=network destination_id=Cameras',
  args: z
    .object({
      site_id: siteId,
      name: ruleFields.name.describe('Rule name'),
      action: ruleFields.action,
      enabled: ruleFields.enabled.default(true),
      source_type: ruleFields.source_type.optional().describe('network, device, ip or any (default any)'),
      source_id: ruleFields.source_id.optional(),
      source_network: ruleFields.source_network.optional(),
      destination_type: ruleFields.destination_type
        .optional()
        .describe('network, device, ip or any (default any)'),
      destination_id: ruleFields.destination_id.optional(),
      destination_network: ruleFields.destination_network.optional(),
      protocol: ruleFields.protocol
        .optional()
        .describe('tcp, udp, tcp_udp (both) or all (default all); icmp is refused'),
      src_port: ruleFields.src_port.optional(),
      dst_port: ruleFields.dst_port.optional(),
      priority: ruleFields.priority.default(DEFAULT_PRIORITY),
      description: ruleFields.description.optional(),
      confirm,
      dry_run: dryRun,
    })
    .superRefine(refuseEndpointCombinations(true)),
  async run(args, { gateway }) {
    const acl = await loadAcl(gateway, args.site_id, true);
    const resolveSide = (side: Side) => {
      const given = sideArgs(args, side);
      const ports = given.port === undefined ? null : [given.port];
      return resolveEndpoint(acl, side, { ...given, type: given.type ?? 'any' }, ports);
    };
    const [source, destination] = await Promise.all([resolveSide('source'), resolveSide('destination')]);
    // Every device enforces it (no enforcingDeviceFilter); null filters are left out (withoutNulls).
    const body = withoutNulls({
      type: 'IPV4',
      enabled: args.enabled,
      name: args.name,
      ...(args.description ? { description: args.description } : {}),
      action: toControllerAction(args.action),
      sourceFilter: encodeEndpoint(source.endpoint),
      destinationFilter: encodeEndpoint(destination.endpoint),
      protocolFilter: toProtocolFilter(args.protocol ?? 'all'),
    });
    const position = positionFor(acl.ordering, args.priority);
    const warnings = [
      ...source.warnings,
      ...destination.warnings,
      ...positionWarning(args.priority, position),
    ];
    if (args.dry_run) {
      const { id: _id, ...wouldCreate } = view(acl, parsedRule({ ...body, id: 'new' }, ACL), position);
      // The controller puts a new rule last; any other position takes an ordering PUT after the create.
      const reorder =
        position <= acl.ordering.length ? placeInOrdering(acl.ordering, NEW_RULE, args.priority) : null;
      const preview = { would_create: wouldCreate, would_send: body, would_reorder: reorder };
      return { dry_run: true, ...preview, ...aclNames(acl, preview), warnings };
    }
    const created = parsedRule(await gateway.integrationWrite(args.site_id, 'POST', ACL, body), ACL);
    let ordering: string[];
    try {
      const now = await gateway.integrationGet(args.site_id, ORDERING, aclOrderingSchema, { fresh: true });
      ordering = await applyPriority(acl, created.id, args.priority, now.orderedAclRuleIds);
    } catch (error) {
      throw withStateLeft(
        error,
        [`ACL rule "${created.name}" was created (${created.id})`],
        `putting it at priority ${args.priority}`,
      );
    }
    return { success: true, acl_rule: view(acl, created, ordering.indexOf(created.id) + 1), warnings };
  },
});

const updateAclRule = defineTool({
  name: 'update_acl_rule',
  change: aclRuleChanges.update_acl_rule,
  description: 'Change some fields of an ACL rule; omitted fields stay as they are',
  access: 'write',
  example: 'acl_rule_id="Block guest SSH" enabled=true',
  args: z
    .object({
      site_id: siteId,
      acl_rule_id: ruleRef,
      ...z.object(ruleFields).partial().shape,
      description: ruleFields.description.optional().describe('New description; empty clears it'),
      confirm,
      dry_run: dryRun,
    })
    // Before the stored rule is read, only contradictions can be caught: an absent id may be kept.
    .superRefine(refuseEndpointCombinations(false)),
  async run(args, { gateway }) {
    const acl = await loadAcl(gateway, args.site_id, true);
    const { raw, record: current } = findRule(acl, args.acl_rule_id);
    assertUserDefined(current);
    if (current.type === 'MAC' && args.protocol !== undefined) {
      throw new NotSupportedError('a MAC rule has no protocol filter');
    }
    const set: Record<string, unknown> = {};
    const warnings: string[] = [];
    for (const side of ['source', 'destination'] as const) {
      const filter = side === 'source' ? current.sourceFilter : current.destinationFilter;
      const next = await updatedEndpoint(acl, side, decodeEndpoint(filter), sideArgs(args, side));
      if (!next) continue;
      set[side === 'source' ? 'sourceFilter' : 'destinationFilter'] = encodeEndpoint(next.endpoint);
      warnings.push(...next.warnings);
    }
    if (args.name !== undefined) set.name = args.name;
    if (args.action !== undefined) set.action = toControllerAction(args.action);
    if (args.enabled !== undefined) set.enabled = args.enabled;
    if (args.description) set.description = args.description;
    if (args.protocol !== undefined) set.protocolFilter = toProtocolFilter(args.protocol);
    const body = withoutNulls(replacementBody(raw, READ_ONLY_FIELDS, set));
    // An empty description clears it: the PUT is a full replace, so the field is left out.
    if (args.description === '') delete body.description;
    const ruleChanged = !sameJson(body, withoutNulls(replacementBody(raw, READ_ONLY_FIELDS, {})));
    const priorityNow = priorityOf(current, acl.ordering);
    const order =
      args.priority === undefined ? acl.ordering : placeInOrdering(acl.ordering, current.id, args.priority);
    const reorder = !sameJson(order, acl.ordering);
    const after = parsedRule({ ...body, id: current.id, metadata: current.metadata }, ACL);
    const priorityAfter =
      args.priority === undefined ? priorityNow : positionFor(acl.ordering, args.priority, current.id);
    if (args.priority !== undefined && priorityAfter !== null)
      warnings.push(...positionWarning(args.priority, priorityAfter));
    const changes = fieldChanges(
      { ...view(acl, current, priorityNow) },
      { ...view(acl, after, priorityAfter) },
    );
    const summary = { acl_rule_id: current.id, name: current.name, changes, warnings };
    if (args.dry_run && !ruleChanged && !reorder) return nothingToChange(summary);
    if (args.dry_run) {
      const preview = {
        dry_run: true,
        ...summary,
        would_send: ruleChanged ? body : null,
        would_reorder: reorder ? order : null,
      };
      return { ...preview, ...aclNames(acl, preview) };
    }
    let answer: unknown;
    if (ruleChanged)
      answer = await gateway.integrationWrite(args.site_id, 'PUT', `${ACL}/${current.id}`, body);
    if (reorder) {
      try {
        await gateway.integrationWrite(args.site_id, 'PUT', ORDERING, { orderedAclRuleIds: order });
      } catch (error) {
        const done = ruleChanged ? [`the fields of ACL rule "${current.name}" were updated`] : [];
        throw withStateLeft(error, done, `moving it to priority ${args.priority}`);
      }
    }
    // The write has happened: an answer we cannot read falls back to what was sent, never to an error.
    const written = aclRuleRecordSchema.safeParse(answer);
    const record = ruleChanged ? (written.success ? written.data : after) : current;
    return { success: true, ...summary, acl_rule: view(acl, record, priorityAfter) };
  },
});

const deleteAclRule = defineTool({
  name: 'delete_acl_rule',
  change: aclRuleChanges.delete_acl_rule,
  description: 'Delete an ACL rule (user-defined rules only)',
  access: 'write',
  example: 'acl_rule_id="Block guest SSH"',
  args: z.object({ site_id: siteId, acl_rule_id: ruleRef, confirm, dry_run: dryRun }),
  async run({ site_id, acl_rule_id, dry_run }, { gateway }) {
    const acl = await loadAcl(gateway, site_id, true);
    const { record } = findRule(acl, acl_rule_id);
    assertUserDefined(record);
    // Deliberately alike: delete tools end in applyDelete with their own id field and API path, then list the file's tools for the registry.
    return applyDelete({
      dryRun: dry_run,
      preview: view(acl, record, priorityOf(record, acl.ordering)),
      warnings: ['deletion is irreversible'],
      idField: 'deleted_acl_rule_id',
      id: record.id,
      send: () => gateway.integrationWrite(site_id, 'DELETE', `${ACL}/${record.id}`),
    });
  },
});

/** Spec 4.5: ACL rules (Integration `acl-rules`, order through `acl-rules/ordering`). */
export const aclRuleTools: ToolDefinition[] = [
  listAclRules,
  getAclRule,
  createAclRule,
  updateAclRule,
  deleteAclRule,
];
