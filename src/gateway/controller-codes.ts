/** What a sentence may mention about the refused request. */
export interface CodeContext {
  site?: string;
  /** What the path names, e.g. `networkconf` and its id. */
  resource?: string;
  id?: string;
  /** The request body, read for a value worth naming (a VLAN id); never echoed whole. */
  body?: unknown;
  /** The controller's own message, when it sent one. */
  message?: string;
}

type Sentence = (ctx: CodeContext) => string;

const onSite = (ctx: CodeContext) => (ctx.site ? ` on site ${ctx.site}` : '');

function numberField(body: unknown, key: string): string | undefined {
  if (typeof body !== 'object' || body === null || !(key in body)) return undefined;
  const value: unknown = Reflect.get(body, key);
  return typeof value === 'number' || (typeof value === 'string' && /^\d+$/.test(value))
    ? String(value)
    : undefined;
}

function textField(body: unknown, key: string): string | undefined {
  if (typeof body !== 'object' || body === null || !(key in body)) return undefined;
  const value: unknown = Reflect.get(body, key);
  return typeof value === 'string' && /^[A-Za-z0-9_]{1,32}$/.test(value) ? value : undefined;
}

// Each ruleset family's index blocks, the IPv6 twins sharing them (terraform-provider-unifi #142, PR #191).
const INDEX_BLOCKS: Record<string, string> = {
  LAN: '2000–2999 or 20000–29999',
  WAN: '3000–3999 or 30000–39999',
  GUEST: '4000–4999 or 40000–49999',
};

const SENTENCES: Record<string, Sentence> = {
  IdInvalid: (ctx) => `no ${ctx.resource ?? 'object'} with id ${ctx.id || '(none)'} exists${onSite(ctx)}`,
  NotFound: (ctx) => `the controller has no ${ctx.resource ?? 'such resource'}${onSite(ctx)}`,
  VlanUsed: (ctx) => {
    const vlan = numberField(ctx.body, 'vlan');
    return `VLAN ${vlan ?? 'id'} is already used by another network${onSite(ctx)}; pick a free VLAN`;
  },
  SubnetOverlapped: (ctx) => `the subnet overlaps the subnet of another network${onSite(ctx)}`,
  IncorrectIPSubnetSpec: () =>
    'the subnet is not in the form the controller accepts: give the gateway address with its prefix, e.g. 10.30.0.1/24',
  InvalidDHCPRange: () =>
    'the DHCP range must lie inside the subnet, with the start address at or below the stop address',
  InvalidPayload: () =>
    'the controller rejected the request body as invalid (a field is missing or has the wrong form)',
  FirewallRuleIndexOutOfRange: (ctx) => {
    const ruleset = textField(ctx.body, 'ruleset');
    const family = ruleset ? /^(WAN|LAN|GUEST)/.exec(ruleset)?.[1] : undefined;
    const index = numberField(ctx.body, 'rule_index');
    const rule =
      family && INDEX_BLOCKS[family]
        ? `rule_index ${index ?? ''} is outside ${ruleset}'s block: ${family} rulesets take ${INDEX_BLOCKS[family]}`
        : `the rule index is outside its ruleset's block: LAN rulesets take ${INDEX_BLOCKS.LAN}, WAN ${INDEX_BLOCKS.WAN}, GUEST ${INDEX_BLOCKS.GUEST} (the v6 twins the same)`;
    return `${rule}; a console on the zone-based firewall refuses every traditional rule`;
  },
  FirewallRuleIndexExisted: (ctx) => {
    const ruleset = textField(ctx.body, 'ruleset');
    const index = numberField(ctx.body, 'rule_index');
    return `rule_index ${index ?? ''} is already used by another rule${ruleset ? ` of ${ruleset}` : ''}; pick a free index`;
  },
  ShouldIncludeFirewallPolicyInBatchUpdate: () =>
    'a reorder of firewall policies must name every policy of the zone pair',
  'firewall.zone-based-firewall-not-configured': (ctx) =>
    `site${ctx.site ? ` ${ctx.site}` : ''} uses the traditional firewall: it has no firewall zones (the zone-based firewall is not configured)`,
  FirewallRuleNetworkConfTypeRequired: () =>
    'a firewall rule that names a network also needs that network’s type: NETv4 for the whole subnet, ADDRv4 for the gateway address',
  NoSiteContext: (ctx) =>
    `unknown site${ctx.site ? ` "${ctx.site}"` : ''}: the controller has no site by that name`,
  NoPermission: () =>
    'the controller account lacks permission for this (a read-only or limited admin cannot make changes)',
  InvalidObject: () =>
    'the controller does not accept this object: the body is malformed, or this controller version lacks the resource',
  NetworkIsolationAppliedOnNonCorporateNetwork: () =>
    'network isolation can only be turned on for corporate networks',
  InvalidDestinationNetwork: () => 'the destination network is not valid for this rule',
  LoginRequired: () =>
    'the controller wants a login: the session expired or the credentials do not reach this API',
  Invalid: () => 'the controller rejected the input as invalid',
  ServerError: () => 'the Network application failed with an internal error',
  Ubic2faTokenRequired: () =>
    'the account needs two-factor authentication, which the bot cannot supply: use an API key (GATEWAY_API_KEY)',
  // Integration API codes.
  'resource-not-found': (ctx) =>
    `${ctx.resource ?? 'the object'} ${ctx.id ?? ''} does not exist${onSite(ctx)}`,
  'rate-limit.exceeded': () => 'the controller is rate-limiting requests',
  'authentication.missing-credentials': () => 'the controller did not receive an API key',
};

/** The key a code is looked up by: `api.err.VlanUsed` → `VlanUsed`, `api.resource-not-found` → `resource-not-found`. */
export function shortCode(code: string): string {
  return code.replace(/^api\.err\./, '').replace(/^api\./, '');
}

/**
 * A plain sentence for a controller code. The code itself is not in it: it travels on the error
 * (GatewayRejectedError.controllerCode) and each front end shows it once, so an admin can search
 * for it. Unknown codes still produce a sentence: the controller's own message, if it sent one.
 */
export function describeControllerCode(code: string, ctx: CodeContext = {}): string {
  const sentence = SENTENCES[shortCode(code)];
  if (sentence !== undefined) return sentence(ctx).replace(/\s+/g, ' ').trim();
  const detail = ctx.message?.trim();
  return detail ? detail : 'the controller gave no reason';
}
