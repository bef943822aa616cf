import { GatewayAuthError, NotSupportedError, ResourceNotFoundError } from '../../errors.js';
import type { Gateway } from '../../gateway/types.js';
import { siteFeatureRecordSchema } from '../../records/site-feature-record.js';

/** Which firewall a site runs: zones and policies, or the traditional rulesets. */
export type FirewallGeneration = 'zone-based' | 'legacy';

/** The tools that work on each generation, named in refusals so the admin knows where to go. */
export const RULE_TOOL_NAMES = [
  'list_firewall_rules',
  'create_firewall_rule',
  'update_firewall_rule',
  'delete_firewall_rule',
] as const;
export const POLICY_TOOL_NAMES = [
  'list_firewall_policies',
  'get_firewall_policy',
  'create_firewall_policy',
  'update_firewall_policy',
  'delete_firewall_policy',
] as const;

/**
 * What help says about a tool that works on one generation only: where it works, and what to use
 * on the other, in the refusals' words.
 */
export function generationNote(generation: FirewallGeneration): string {
  return generation === 'legacy'
    ? 'Firewall: traditional rules, on consoles not migrated to the zone-based firewall. ' +
        `A zone-based console refuses it: use the firewall policy tools there (${POLICY_TOOL_NAMES.join(', ')}).`
    : 'Firewall: zone-based consoles only. A console with the traditional firewall has no zones ' +
        `or policies: use the firewall rule tools there (${RULE_TOOL_NAMES.join(', ')}).`;
}

// Art-of-WiFi/UniFi-API-client #259: the feature's presence in this list means the site was migrated.
const MIGRATIONS = 'site-feature-migration';
const ZONE_BASED_FEATURE = 'ZONE_BASED_FIREWALL';
// The migration is one-way, so a zone-based answer is kept for good; a legacy one is looked at
// again after a while, in case the admin migrates the site while the bot runs.
const LEGACY_RECHECK_MS = 10 * 60_000;

interface Detection {
  answer: Promise<FirewallGeneration | undefined>;
  at: number;
  value?: FirewallGeneration | undefined;
}

const detections = new WeakMap<Gateway, Map<string, Detection>>();

async function detect(gateway: Gateway, site: string): Promise<FirewallGeneration | undefined> {
  try {
    const { items } = await gateway.v2Read(site, MIGRATIONS, siteFeatureRecordSchema, { fresh: true });
    return items.some((item) => item.feature === ZONE_BASED_FEATURE) ? 'zone-based' : 'legacy';
  } catch (error) {
    // Controllers before Network 9 have no such route: they predate the zone-based firewall.
    if (error instanceof ResourceNotFoundError) return 'legacy';
    // On some consoles an API key reaches only the Integration API: the zone tools must still work
    // there, so the generation stays unknown and each tool meets the controller's own answer.
    if (error instanceof GatewayAuthError) return undefined;
    throw error;
  }
}

/**
 * The site's firewall generation, asked once per gateway and site (concurrent callers share the
 * request; a failure is not remembered). Undefined when it cannot be asked: in cloud mode (the
 * connector does not forward the v2 route that tells) or when the credential does not reach v2.
 */
export function firewallGeneration(
  gateway: Gateway,
  site: string,
  now: number = Date.now(),
): Promise<FirewallGeneration | undefined> {
  if (gateway.apiType !== 'local') return Promise.resolve(undefined);
  let sites = detections.get(gateway);
  if (!sites) {
    sites = new Map();
    detections.set(gateway, sites);
  }
  const known = sites.get(site);
  if (known && !(known.value === 'legacy' && now - known.at > LEGACY_RECHECK_MS)) return known.answer;
  const entry: Detection = { answer: detect(gateway, site), at: now };
  const cache = sites;
  entry.answer.then(
    (value) => {
      entry.value = value;
    },
    () => {
      if (cache.get(site) === entry) cache.delete(site);
    },
  );
  cache.set(site, entry);
  return entry.answer;
}

/** Refuses a traditional-rule tool on a zone-based site, where the controller lists no rules and takes none. */
export async function requireTraditionalFirewall(gateway: Gateway, site: string): Promise<void> {
  if ((await firewallGeneration(gateway, site)) !== 'zone-based') return;
  throw new NotSupportedError(
    `site ${site} uses the zone-based firewall: its traffic is governed by firewall policies between zones, ` +
      'not by traditional firewall rules (the controller lists none and refuses new ones). ' +
      `Use the firewall policy tools (${POLICY_TOOL_NAMES.join(', ')}) and the firewall zone tools`,
  );
}

/**
 * An empty traditional rule list where the generation could not be asked (cloud mode; a key that
 * does not reach v2): a zone-based console lists no rules either, so "no rules" is not an answer
 * the bot can give. It says what it cannot tell and where the policies would be instead.
 */
export async function refuseEmptyRulesOfUnknownGeneration(gateway: Gateway, site: string): Promise<void> {
  if ((await firewallGeneration(gateway, site)) !== undefined) return;
  const why =
    gateway.apiType === 'local'
      ? 'the credential does not reach the v2 route that tells'
      : 'in cloud mode (the connector does not forward the v2 route that tells)';
  throw new NotSupportedError(
    `site ${site} lists no traditional firewall rules, and the bot cannot tell its firewall generation ${why}. ` +
      'A console migrated to the zone-based firewall lists none either: its traffic is governed by firewall policies. ' +
      'See them with list_firewall_policies (GATEWAY_API_TYPE=local with a key that reaches the v2 API) or in UniFi Network; ' +
      'if the console runs the traditional firewall, the site has no user-defined rules',
  );
}

/** Refuses a zone or policy tool on a site that still runs the traditional firewall: it has no zones. */
export async function requireZoneBasedFirewall(gateway: Gateway, site: string): Promise<void> {
  if ((await firewallGeneration(gateway, site)) !== 'legacy') return;
  throw new NotSupportedError(
    `site ${site} uses the traditional firewall (not migrated to the zone-based firewall): ` +
      'it has no firewall zones and no firewall policies. ' +
      `Use the firewall rule tools (${RULE_TOOL_NAMES.join(', ')}), or migrate the site to the ` +
      'zone-based firewall in UniFi Network first',
  );
}
