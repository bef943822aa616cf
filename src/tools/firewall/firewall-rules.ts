import { z } from 'zod';
import { ConflictError, type FieldIssue, NotSupportedError, ValidationError } from '../../errors.js';
import type { Gateway } from '../../gateway/types.js';
import { findByIdOrName } from '../../lib/find-by-id-or-name.js';
import { isIpv4OrCidr, isIpv6OrCidr } from '../../lib/ip.js';
import { type FirewallRuleRecord, firewallRuleRecordSchema } from '../../records/firewall-rule-record.js';
import { confirm, dryRun, idOrName, limit, nonEmpty, offset, port, siteId, text } from '../core/arg-types.js';
import {
  applyCreate,
  applyDelete,
  applyUpdate,
  fieldChanges,
  parseEach,
  replacementBody,
} from '../core/crud-model.js';
import { defineTool, type ToolDefinition } from '../core/define-tool.js';
import {
  refuseEmptyRulesOfUnknownGeneration,
  requireTraditionalFirewall,
} from '../core/firewall-generation.js';
import { NetworkDirectory } from '../networks/network-ids.js';
import { findNetwork } from '../networks/network-model.js';
import { firewallRuleChanges } from './changes.js';
import {
  addressIssue,
  buildRulePayload,
  describeIndexBlocks,
  indexFitsRuleset,
  indexRangeRule,
  indexTakenMessage,
  newRuleWarnings,
  nextFreeIndex,
  planRuleUpdate,
  RULE_ACTIONS,
  RULE_PROTOCOLS,
  RULESETS,
  ruleArgumentIssues,
  ruleHoldingIndex,
  sortRules,
  toFirewallRule,
} from './firewall-rule-model.js';

const RULES = 'rest/firewallrule';
// Fields the controller owns; a PUT never sends them back.
const READ_ONLY_FIELDS = /^(_id|site_id|attr_.*)$/;

const ruleRef = idOrName('firewall rule');
const networkRef = idOrName('network');
const action = z.enum(RULE_ACTIONS, { error: `must be one of ${RULE_ACTIONS.join(', ')}` });
const protocol = z.enum(RULE_PROTOCOLS, { error: `must be one of ${RULE_PROTOCOLS.join(', ')}` });
const networkconfType = z.enum(['NETv4', 'ADDRv4'], {
  error: 'must be NETv4 (the whole subnet) or ADDRv4 (the gateway address)',
});
const flag = (fallback: boolean) => z.boolean({ error: 'must be true or false' }).default(fallback);
const wholeNumber = z.number({ error: 'must be a whole number' }).int({ error: 'must be a whole number' });
// Which IP version an address must be depends on the ruleset, so it is checked with the ruleset.
const address = nonEmpty('must be an IP address or CIDR');
const anyAddress = address.refine((v) => isIpv4OrCidr(v, true) || isIpv6OrCidr(v, true), {
  error: 'must be an IPv4 or IPv6 address or CIDR such as 10.0.0.0/24 or 2001:db8::/64',
});

/** Stored records exactly as the controller sent them, for a PUT that carries untouched fields unchanged. */
const storedRecordSchema = z.looseObject({ _id: z.string().min(1) });

/** The site's rules, raw and parsed, read in one request. */
async function readRules(gateway: Gateway, site: string, fresh: boolean) {
  const raw = (await gateway.classicRead(site, RULES, storedRecordSchema, { fresh })).items;
  return { raw, rules: parseEach(raw, firewallRuleRecordSchema).map((pair) => pair.record) };
}

function findRule(rules: readonly FirewallRuleRecord[], ref: string): FirewallRuleRecord {
  return findByIdOrName(rules, ref, {
    resource: 'firewall rule',
    field: 'rule_id',
    id: (r) => r._id,
    name: (r) => r.name,
  });
}

/** Adds field issues as zod issues, so the registry refuses them before any request. */
function addIssues(issues: readonly (FieldIssue | undefined)[], ctx: z.RefinementCtx): void {
  for (const issue of issues) {
    if (issue) ctx.addIssue({ code: 'custom', path: [issue.field], message: issue.rule });
  }
}

/** Addresses not of the ruleset's IP version. */
function addressIssues(
  ruleset: string,
  args: { src_address?: string | undefined; dst_address?: string | undefined },
) {
  return (['src_address', 'dst_address'] as const).map((field) => {
    const value = args[field];
    return value === undefined ? undefined : addressIssue(ruleset, field, value);
  });
}

// Deliberately alike: the tools below are defineTool declarations, whose shape the framework fixes; each differs in args and run.
const listFirewallRules = defineTool({
  name: 'list_firewall_rules',
  description: 'List the traditional firewall rules, by ruleset then rule_index',
  access: 'read',
  firewall: 'legacy',
  example: 'limit=10',
  args: z.object({ site_id: siteId, limit: limit(100), offset }),
  async run({ site_id, limit, offset }, { gateway }) {
    await requireTraditionalFirewall(gateway, site_id);
    const [{ rules }, networks] = await Promise.all([
      readRules(gateway, site_id, false),
      NetworkDirectory.load(gateway, site_id),
    ]);
    if (rules.length === 0) await refuseEmptyRulesOfUnknownGeneration(gateway, site_id);
    const views = rules.map((r) => toFirewallRule(r, (id) => networks.nameOf(id)));
    return sortRules(views).slice(offset, offset + limit);
  },
});

const createFirewallRule = defineTool({
  name: 'create_firewall_rule',
  change: firewallRuleChanges.create_firewall_rule,
  description: 'Create a traditional firewall rule (inter-VLAN: source and destination networks, LAN_IN)',
  access: 'write',
  firewall: 'legacy',
  example:
    'name="Block Guest to IoT" action=drop ruleset=LAN_IN rule_index=20010 src_networkconf_id=Guest dst_networkconf_id=IoT',
  args: z
    .object({
      site_id: siteId,
      name: text(128).describe('Rule name'),
      action: action.describe('accept, drop or reject'),
      ruleset: z
        .enum(RULESETS, {
          error: 'must be a ruleset such as WAN_IN, WAN_OUT, LAN_IN, LAN_OUT, LAN_LOCAL, GUEST_IN',
        })
        .default('WAN_IN')
        .describe(
          'Where the rule applies: traffic in from the WAN (WAN_IN), between LANs (LAN_IN), to the gateway (LAN_LOCAL)…',
        ),
      rule_index: wholeNumber
        .optional()
        .describe(
          "Position in the ruleset, lower first, within its family's block (LAN 20000s, WAN 30000s, GUEST 40000s, or 2000s/3000s/4000s); default: after the ruleset's last rule",
        ),
      src_address: address.optional().describe('Source IP or CIDR (IPv6 in the v6 rulesets)'),
      dst_address: address.optional().describe('Destination IP or CIDR (IPv6 in the v6 rulesets)'),
      protocol: protocol.optional().describe('Protocol matched (default: all)'),
      port: port.optional().describe('Destination port (tcp or udp only)'),
      src_networkconf_id: networkRef
        .optional()
        .describe('Source network (id or name), instead of src_address'),
      src_networkconf_type: networkconfType
        .default('NETv4')
        .describe(
          "How the source network matches: NETv4 (its whole subnet) or ADDRv4 (the gateway's address in it)",
        ),
      dst_networkconf_id: networkRef.optional().describe('Destination network (id or name)'),
      dst_networkconf_type: networkconfType
        .default('NETv4')
        .describe(
          "How the destination network matches: NETv4 (its whole subnet) or ADDRv4 (the gateway's address in it)",
        ),
      state_established: flag(false).describe('Match packets of established connections'),
      state_related: flag(false).describe('Match packets related to established connections'),
      state_new: flag(false).describe('Match packets that open a new connection'),
      state_invalid: flag(false).describe('Match packets that belong to no known connection'),
      logging: flag(false).describe("Log the packets the rule matches in the controller's syslog"),
      enabled: flag(true).describe('Whether the rule is active'),
      confirm,
      dry_run: dryRun,
    })
    .superRefine((args, ctx) => {
      addIssues(ruleArgumentIssues(args), ctx);
      if (args.rule_index !== undefined && !indexFitsRuleset(args.ruleset, args.rule_index)) {
        addIssues([{ field: 'rule_index', rule: indexRangeRule(args.ruleset) }], ctx);
      }
      addIssues(addressIssues(args.ruleset, args), ctx);
    }),
  async run(args, { gateway }) {
    await requireTraditionalFirewall(gateway, args.site_id);
    const [{ rules }, networks] = await Promise.all([
      readRules(gateway, args.site_id, true),
      NetworkDirectory.load(gateway, args.site_id, { fresh: true }),
    ]);
    const ruleIndex = args.rule_index ?? nextFreeIndex(rules, args.ruleset);
    if (ruleIndex === undefined) {
      throw new ConflictError(
        `${args.ruleset} has no free index left in ${describeIndexBlocks(args.ruleset)}`,
      );
    }
    // The controller answers FirewallRuleIndexExisted; said here, with the way out, before sending.
    const holder = ruleHoldingIndex(rules, args.ruleset, ruleIndex);
    if (holder) throw new ConflictError(indexTakenMessage(holder, args.ruleset, ruleIndex, rules));
    const classicId = (ref: string | undefined, field: string) =>
      ref === undefined ? undefined : findNetwork(networks.records, ref, field)._id;
    const rule = {
      ...args,
      rule_index: ruleIndex,
      src_networkconf_id: classicId(args.src_networkconf_id, 'src_networkconf_id'),
      dst_networkconf_id: classicId(args.dst_networkconf_id, 'dst_networkconf_id'),
    };
    const payload = buildRulePayload(rule);
    return applyCreate({
      dryRun: args.dry_run,
      payload,
      warnings: newRuleWarnings(rule),
      nameOf: (id) => networks.nameOf(id),
      send: async () => (await gateway.classicWrite(args.site_id, 'POST', RULES, payload))[0],
      result(answer) {
        const record = firewallRuleRecordSchema.safeParse(answer);
        return { rule: record.success ? toFirewallRule(record.data, (id) => networks.nameOf(id)) : answer };
      },
    });
  },
});

const updateFirewallRule = defineTool({
  name: 'update_firewall_rule',
  change: firewallRuleChanges.update_firewall_rule,
  description: 'Change some fields of a firewall rule; omitted fields stay as they are',
  access: 'write',
  firewall: 'legacy',
  example: 'rule_id="Allow Plex to NAS" enabled=true',
  args: z
    .object({
      site_id: siteId,
      rule_id: ruleRef,
      name: text(128).optional().describe('New rule name'),
      action: action.optional().describe('New action: accept, drop or reject'),
      rule_index: wholeNumber.optional().describe("New position in the rule's ruleset, within its block"),
      src_address: anyAddress.optional().describe('IPv4, or IPv6 for a rule of a v6 ruleset'),
      dst_address: anyAddress.optional().describe('IPv4, or IPv6 for a rule of a v6 ruleset'),
      protocol: protocol.optional().describe('New protocol matched'),
      port: port.optional().describe('Destination port (tcp or udp only)'),
      enabled: z.boolean({ error: 'must be true or false' }).optional().describe('Turn the rule on or off'),
      confirm,
      dry_run: dryRun,
    })
    // Only a protocol given here can be checked before the stored rule is read.
    .superRefine((args, ctx) => {
      if (args.protocol !== undefined) addIssues(ruleArgumentIssues(args), ctx);
    }),
  async run(args, { gateway }) {
    await requireTraditionalFirewall(gateway, args.site_id);
    const [{ raw, rules }, networks] = await Promise.all([
      readRules(gateway, args.site_id, true),
      NetworkDirectory.load(gateway, args.site_id),
    ]);
    const current = findRule(rules, args.rule_id);
    if (current.attr_no_edit === true) {
      throw new NotSupportedError(`firewall rule "${current.name}" is a system rule and cannot be edited`);
    }
    const ruleset = current.ruleset ?? '';
    const { set, warnings, protocol: finalProtocol } = planRuleUpdate(current, args);
    const issues = [
      ...ruleArgumentIssues({ protocol: finalProtocol, port: args.port }),
      ...addressIssues(ruleset, args).filter((issue) => issue !== undefined),
    ];
    const moving = args.rule_index !== undefined && args.rule_index !== current.rule_index;
    if (moving && args.rule_index !== undefined && !indexFitsRuleset(ruleset, args.rule_index)) {
      issues.push({ field: 'rule_index', rule: indexRangeRule(ruleset) });
    }
    if (issues.length > 0) throw new ValidationError(issues);
    if (moving && args.rule_index !== undefined) {
      const others = rules.filter((r) => r._id !== current._id);
      const holder = ruleHoldingIndex(others, ruleset, args.rule_index);
      if (holder) throw new ConflictError(indexTakenMessage(holder, ruleset, args.rule_index, others));
    }
    const stored = raw.find((r) => r._id === current._id) ?? current;
    const changes = fieldChanges(stored, set);
    const body = replacementBody(
      stored,
      READ_ONLY_FIELDS,
      Object.fromEntries(Object.entries(changes).map(([key, change]) => [key, change.to])),
    );
    const view = (record: FirewallRuleRecord) => toFirewallRule(record, (id) => networks.nameOf(id));
    return applyUpdate({
      dryRun: args.dry_run,
      subject: { rule_id: current._id, name: current.name },
      changes,
      body,
      warnings,
      nameOf: (id) => networks.nameOf(id),
      send: async () => (await gateway.classicWrite(args.site_id, 'PUT', `${RULES}/${current._id}`, body))[0],
      result(answer) {
        if (answer === undefined) return { rule: view(current) };
        const record = firewallRuleRecordSchema.safeParse(answer);
        return { rule: record.success ? view(record.data) : answer };
      },
    });
  },
});

const deleteFirewallRule = defineTool({
  name: 'delete_firewall_rule',
  change: firewallRuleChanges.delete_firewall_rule,
  description: 'Delete a firewall rule (irreversible)',
  access: 'write',
  firewall: 'legacy',
  example: 'rule_id="Drop Telnet from WAN"',
  args: z.object({ site_id: siteId, rule_id: ruleRef, confirm, dry_run: dryRun }),
  async run({ site_id, rule_id, dry_run }, { gateway }) {
    await requireTraditionalFirewall(gateway, site_id);
    const [{ rules }, networks] = await Promise.all([
      readRules(gateway, site_id, true),
      NetworkDirectory.load(gateway, site_id),
    ]);
    const target = findRule(rules, rule_id);
    if (target.attr_no_delete === true) {
      throw new NotSupportedError(`firewall rule "${target.name}" is a system rule and cannot be deleted`);
    }
    // Deliberately alike: delete tools end in applyDelete with their own id field and API path, then list the file's tools for the registry.
    return applyDelete({
      dryRun: dry_run,
      preview: toFirewallRule(target, (id) => networks.nameOf(id)),
      warnings: ['deletion is irreversible'],
      idField: 'deleted_rule_id',
      id: target._id,
      send: () => gateway.classicWrite(site_id, 'DELETE', `${RULES}/${target._id}`),
    });
  },
});

/** Spec 4.4: traditional (classic) firewall rules. */
export const firewallRuleTools: ToolDefinition[] = [
  listFirewallRules,
  createFirewallRule,
  updateFirewallRule,
  deleteFirewallRule,
];
