import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FaultSpec, SiteState } from '../../src/simulator/index.js';
import { messageProblems } from '../../src/slack/blocks/limits.js';
import type { SlackBot } from '../helpers/slack-bot.js';
import { commandBody } from '../helpers/slack-requests.js';
import * as kit from './fuzz-bot.js';

/** Every read tool once, with arguments that work on the demo site (the tools' own examples). */
const READS = [
  'list_vlans',
  'list_vlans limit=3',
  'get_network_details network_id=IoT',
  'get_subnet_info network_id=Guest',
  'get_network_statistics',
  'list_firewall_zones',
  'get_zone_networks zone_id="IoT Devices"',
  'list_firewall_policies limit=10',
  'get_firewall_policy policy_id="Block IoT to Internal"',
  'list_acl_rules limit=10',
  'get_acl_rule acl_rule_id="Block IoT to NAS"',
  'list_traffic_matching_lists',
  'get_traffic_matching_list list_id="Web Ports"',
  'list_traffic_routes',
  'get_dpi_statistics time_range=7d',
  'list_top_applications limit=5',
  'get_client_dpi client_mac=00:11:32:8a:bc:04',
  'get_network_topology',
  'export_topology format=dot',
  'export_topology format=json',
  'get_device_connections device_id="Core Switch"',
  'get_port_mappings device_id="Core Switch"',
  'get_topology_statistics',
];

// DPI statistics and the topology make many requests or draw a lot: a real case, but a slow one.
const SLOW = /dpi_statistics|topology|statistics/;
const read = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...READS.filter((r) => !SLOW.test(r))) },
  { weight: 1, arbitrary: fc.constantFrom(...READS.filter((r) => SLOW.test(r))) },
);

/** The routes those reads fetch (prefix stripped), as the simulator matches them. */
const ROUTES: (string | RegExp)[] = [
  'rest/networkconf',
  'stat/sta',
  'stat/device',
  'stat/sitedpi',
  'stat/stadpi',
  'firewall-policies',
  'firewall/zone',
  'firewall/zones',
  'acl-rules',
  'traffic-matching-lists',
  'trafficrules',
  'dpi/categories',
  'dpi/applications',
  'site-feature-migration',
  /\/integration\/v1\/sites$/,
  /./,
];

/** Controller data chosen to break things: markup, backticks, bidi and zero-width characters, wrong types. */
const nasty = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...kit.MARKUP_STRINGS) },
  { weight: 2, arbitrary: fc.constantFrom(...kit.NASTY_STRINGS) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom(...kit.MARKUP_STRINGS), fc.constantFrom('IoT', 'Core Switch', 'Guest'))
      .map(([a, b]) => `${b}${a}`),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
);
const junkValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: nasty },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, -1, 0, 1e15, 3.5, true, [], {}, '', '999999999999') },
);

const COLLECTIONS = [
  'networks',
  'devices',
  'clients',
  'zones',
  'firewallPolicies',
  'aclRules',
  'trafficMatchingLists',
  'trafficRoutes',
  'trafficRules',
] as const satisfies readonly (keyof SiteState)[];

/** Odd records in the controller's own data: fields replaced or removed, junk records, huge lists. */
const edit = fc.record({
  record: fc.nat(),
  field: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('name', 'name', 'hostname', 'desc', 'description') },
    { weight: 2, arbitrary: fc.nat() },
  ),
  value: fc.option(junkValue, { freq: 8, nil: undefined }),
});

/** Edits in every list (so whichever the command reads is odd), plus junk and copies in one of them. */
const stateJunk = fc.record({
  kind: fc.constant('state' as const),
  collection: fc.constantFrom(...COLLECTIONS),
  edits: fc.tuple(...COLLECTIONS.map(() => fc.array(edit, { minLength: 1, maxLength: 4 }))),
  extra: fc.oneof(
    { weight: 6, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 42, 'record', [], { name: '<!channel>' }) },
  ),
  copies: fc.oneof(
    { weight: 20, arbitrary: fc.constant(0) },
    { weight: 1, arbitrary: fc.integer({ min: 200, max: 2000 }) },
  ),
});

const envelope = (data: unknown) =>
  fc.constantFrom(
    { meta: { rc: 'ok' }, data },
    { offset: 0, limit: 200, count: 1, totalCount: 1, data },
    data,
    { meta: { rc: 'error', msg: String(kit.NASTY_STRINGS[0]) }, data: [] },
    { data: { data } },
  );

/** Whole answers a controller (or what stands in for one) can give instead of the data. */
const faultJunk = fc.record({
  kind: fc.constant('fault' as const),
  route: fc.constantFrom(...ROUTES),
  status: fc.constantFrom(200, 200, 200, 200, 400, 401, 403, 404, 409, 429, 500, 502, 503),
  body: fc.oneof(
    {
      weight: 3,
      arbitrary: fc
        .array(
          fc.dictionary(
            fc.constantFrom('_id', 'id', 'name', 'vlan', 'mac', 'purpose', 'enabled', 'x'),
            junkValue,
          ),
          { maxLength: 5 },
        )
        .chain(envelope),
    },
    { weight: 2, arbitrary: fc.constantFrom<unknown>(null, 42, 'ok', true, [], {}, [null], [1, 2]) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '<html><body><h1>502 Bad Gateway</h1></body></html>',
        '<!DOCTYPE html><title>UniFi OS</title><a href="https://evil.example">login</a>',
        'Service Unavailable',
        '',
      ),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(fc.jsonValue({ maxDepth: 3 }), fc.nat()).map(([value, cut]) => {
        const text = JSON.stringify({ meta: { rc: 'ok' }, data: [value] });
        return { truncated: text.slice(0, cut % Math.max(1, text.length)) };
      }),
    },
  ),
});

const junk = fc.oneof({ weight: 1, arbitrary: stateJunk }, { weight: 1, arbitrary: faultJunk });
type Junk = typeof junk extends fc.Arbitrary<infer T> ? T : never;

/** Serves the junk; returns how to put the controller back. */
function serve(bot: SlackBot, what: Junk): () => void {
  if (what.kind === 'fault') {
    const truncated = typeof what.body === 'object' && what.body !== null && 'truncated' in what.body;
    const fault: FaultSpec = {
      route: what.route,
      kind: 'status',
      status: what.status,
      times: Number.POSITIVE_INFINITY,
      ...(truncated
        ? {
            body: (what.body as { truncated: string }).truncated,
            contentType: 'application/json; charset=utf-8',
          }
        : { body: what.body }),
    };
    bot.sim.injectFault(fault);
    return () => bot.sim.clearFaults();
  }
  const site = bot.sim.state.site('default');
  if (!site) throw new Error('no default site');
  const lists = site as unknown as Record<string, unknown[]>;
  // Only these lists change, so only they are restored (a full reset costs more than most cases).
  const saved = COLLECTIONS.map((name) => structuredClone(lists[name] ?? []));
  const restore = () => {
    COLLECTIONS.forEach((name, index) => {
      lists[name] = saved[index] ?? [];
    });
  };
  COLLECTIONS.forEach((name, index) => {
    const records = lists[name] ?? [];
    for (const edit of what.edits[index] ?? []) {
      if (records.length === 0) break;
      const record = records[edit.record % records.length];
      if (typeof record !== 'object' || record === null) continue;
      const keys = Object.keys(record);
      const field = typeof edit.field === 'string' ? edit.field : (keys[edit.field % keys.length] ?? 'name');
      if (edit.value === undefined) delete (record as Record<string, unknown>)[field];
      else (record as Record<string, unknown>)[field] = edit.value;
    }
  });
  const records = lists[what.collection] ?? [];
  if (what.extra !== undefined) records.push(what.extra);
  const first = records[0];
  for (let i = 0; i < what.copies && first !== undefined; i++) records.push(structuredClone(first));
  return restore;
}

const fuzz = kit.useFuzzBot('random controller responses');

function outcomeOf(answer: kit.Answer): string {
  if (answer.calls.some((c) => c.method === 'files.completeUploadExternal')) return 'file';
  const reply = JSON.stringify(answer.responses);
  if (reply.includes(':boom:')) return 'internal error';
  return /:warning:|:mag:|:no_entry|:electric_plug:|:key:|:turtle:/.test(reply) ? 'clear error' : 'result';
}

describe('random controller responses', () => {
  it(
    `are answered with a result or a clear error, and controller markup never reaches Slack (${kit.FUZZ_RUNS} cases)`,
    async () => {
      await fc.assert(
        fc.asyncProperty(read, junk, async (command, what) => {
          const restore = serve(fuzz.bot, what);
          const channel = `C${kit.nextCase()}`;
          const responseUrl = fuzz.bot.slack.responseUrl();
          let answer: Awaited<ReturnType<typeof kit.send>>;
          try {
            answer = await kit.send(
              fuzz.bot,
              commandBody({ text: command, channel_id: channel, response_url: responseUrl }),
              (calls, responses) =>
                responses.length > 0 ||
                calls.some(
                  (c) => c.method === 'files.completeUploadExternal' && c.args.channel_id === channel,
                ),
              { timeoutMs: 15_000 },
            );
          } finally {
            restore();
          }
          const outcome = outcomeOf(answer);
          fuzz.timing.add(answer.ms, outcome);
          const seen = `${command} with ${JSON.stringify(what).slice(0, 300)}`;

          expect(answer.status).toBe(200);
          expect(answer.answered, `no answer: ${seen}`).toBe(true);
          expect(outcome, `${seen}: ${JSON.stringify(answer.responses).slice(0, 400)}`).not.toBe(
            'internal error',
          );
          expect(kit.writesOf(fuzz.bot.sim)).toEqual([]);
          expect(kit.textProblemsOf(fuzz.bot, answer, what), seen).toEqual([]);
          expect(kit.shownJson(answer), seen).not.toMatch(kit.INJECTED_MARKUP);
          for (const r of answer.responses) expect(messageProblems(r), seen).toEqual([]);
        }),
        kit.fuzzParameters(),
      );
    },
    kit.fuzzTimeoutMs(),
  );
});
