import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Face, type Intent, type IntentKind, routeLine, routeWords } from '../../src/commands/router.js';
import { ValidationError } from '../../src/errors.js';
import { defineTool } from '../../src/tools/core/define-tool.js';
import { ToolRegistry } from '../../src/tools/core/registry.js';
import { fakeSetup } from '../console/fake-registry.js';

const CHANGE = 'cr_abcdefghijklmnopqrst';

/** The console's fake tools, and keep_change (the tool `keep <id>` stands for). */
function setup() {
  const fake = fakeSetup();
  const keepChange = defineTool({
    name: 'keep_change',
    description: 'Cancel a pending automatic revert',
    access: 'write',
    args: z.object({ change_id: z.string(), confirm: z.boolean().optional() }),
    run: async (args) => ({ kept: args.change_id }),
  });
  const registry = new ToolRegistry([...fake.registry.groups, { title: 'Changes', tools: [keepChange] }], {
    site: 'default',
  });
  return { registry, gateway: fake.context.gateway, calls: fake.calls };
}

async function route(line: string, face: Face, digest = false): Promise<Intent> {
  const { registry, gateway } = setup();
  return (await routeLine(line, { face, registry, gateway, digest })).intent;
}

async function refusal(line: string, face: Face): Promise<{ field: string; rule: string }[]> {
  const refused = await route(line, face).then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(refused instanceof ValidationError)) throw new Error(`expected "${line}" to be refused`);
  return refused.issues.map(({ field, rule }) => ({ field, rule }));
}

/** One line per intent both faces answer, with the intent both must get. */
const SHARED: [string, Intent][] = [
  ['help', { kind: 'help' }],
  ['/net help vlans', { kind: 'help', tool: 'list_vlans' }],
  ['topology', { kind: 'picture', command: { command: 'topology', positionals: [], args: {} } }],
  [
    'changes state=failed page=2',
    {
      kind: 'history',
      command: { command: 'changes', positionals: [], args: { state: 'failed', page: '2' } },
    },
  ],
  [`change ${CHANGE}`, { kind: 'history', command: { command: 'change', positionals: [CHANGE], args: {} } }],
  [`revert ${CHANGE}`, { kind: 'revert', changeId: CHANGE }],
  [`revert_change change_id=${CHANGE}`, { kind: 'revert', changeId: CHANGE }],
  ['plan title="Lab move"', { kind: 'plan', options: { title: 'Lab move' }, lines: [] }],
  ['vlans limit=2', { kind: 'read', tool: 'list_vlans', args: { limit: '2' }, ids: false }],
  ['network IoT', { kind: 'read', tool: 'get_network_details', args: { network_id: 'IoT' }, ids: false }],
  [
    'create_network name=Lab vlan_id=40 dry_run=true',
    { kind: 'dry_run', tool: 'create_network', args: { name: 'Lab', vlan_id: '40', dry_run: 'true' } },
  ],
  [
    'Create_Network name="My Lab" vlan_id=40',
    { kind: 'write', tool: 'create_network', args: { name: 'My Lab', vlan_id: '40' } },
  ],
];

describe('routeLine: one line, one intent, whichever face it was typed at', () => {
  it.each(SHARED)('%s', async (line, intent) => {
    const slack = await route(line, 'slack');
    const console = await route(line, 'console');

    expect(slack).toEqual(intent);
    expect(console).toEqual(slack);
  });

  it('refuses an unknown verb in the same words at both faces, naming the nearest tool', async () => {
    const slack = await refusal('create_netwrk name=Lab', 'slack');
    const console = await refusal('create_netwrk name=Lab', 'console');

    expect(slack).toEqual([
      { field: 'tool', rule: 'unknown tool "create_netwrk"; did you mean create_network?' },
    ]);
    expect(console).toEqual(slack);
  });

  it("offers the face's own words and the shortcuts when a verb is mistyped", async () => {
    expect((await refusal('qit', 'console'))[0]?.rule).toBe('unknown tool "qit"; did you mean quit?');
    expect((await refusal('chnages', 'slack'))[0]?.rule).toBe(
      'unknown tool "chnages"; did you mean changes?',
    );
    expect((await refusal('vlasn', 'slack'))[0]?.rule).toMatch(
      /^unknown tool "vlasn"; did you mean vlans[,?]/,
    );
    // A word near nothing names where the list is.
    expect((await refusal('frobnicate', 'console'))[0]?.rule).toBe(
      'unknown tool "frobnicate"; /net help lists them',
    );
  });

  it("refuses the other face's own words as unknown verbs", async () => {
    expect(await refusal(`keep ${CHANGE}`, 'slack')).toEqual([
      { field: 'tool', rule: expect.stringMatching(/^unknown tool "keep"; did you mean keep_change/) },
    ]);
    expect((await refusal('form create_network', 'console'))[0]?.rule).toMatch(/^unknown tool "form"/);
    expect((await refusal('quit', 'slack'))[0]?.rule).toMatch(/^unknown tool "quit"/);
    const { registry, gateway } = setup();
    await expect(routeWords(['quit'], { face: 'one-shot', registry, gateway })).rejects.toThrow(
      'unknown tool "quit"',
    );
  });
});

describe('routeLine: what one face alone offers', () => {
  it('Slack: `form <write tool>` with its typed values; a read tool has no form', async () => {
    expect(await route('form create_network name=Lab', 'slack')).toEqual({
      kind: 'form',
      tool: 'create_network',
      args: { name: 'Lab' },
    });
    expect(await refusal('form list_vlans', 'slack')).toEqual([
      { field: 'tool', rule: '"/net form <tool>" opens a form for a write tool' },
    ]);
  });

  it('Slack: `digest` posts the digest only while the watch runs; with words it is the read', async () => {
    expect(await route('digest', 'slack', true)).toEqual({ kind: 'digest' });
    expect((await refusal('digest', 'slack'))[0]?.rule).toBe(
      '"digest" runs get_digest, which is not available in this build',
    );
    expect((await refusal('digest today', 'slack'))[0]?.rule).toContain('get_digest');
    // One console's site digest is the read, even while the watch runs (a fleet posts one digest).
    const named = await route('digest console=berlin', 'slack', true).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(named).toBeInstanceOf(ValidationError);
    expect((named as ValidationError).issues[0]?.rule).toContain('get_digest');
  });

  it('Slack: a plan takes the lines after it; `ids` ends a read and shows the id columns', async () => {
    expect(await route('plan on_failure=stop\ncreate_network name=A vlan_id=41\n', 'slack')).toEqual({
      kind: 'plan',
      options: { on_failure: 'stop' },
      lines: ['create_network name=A vlan_id=41', ''],
    });
    expect(await route('network IoT ids', 'slack')).toEqual({
      kind: 'read',
      tool: 'get_network_details',
      args: { network_id: 'IoT' },
      ids: true,
    });
  });

  it('Slack: a typed confirm is dropped (the Approve button supplies it); the console keeps it', async () => {
    const line = 'update_traffic_route route_id=r1 enabled=false confirm=true';

    expect(await route(line, 'slack')).toEqual({
      kind: 'write',
      tool: 'update_traffic_route',
      args: { route_id: 'r1', enabled: 'false' },
    });
    expect(await route(line, 'console')).toEqual({
      kind: 'write',
      tool: 'update_traffic_route',
      args: { route_id: 'r1', enabled: 'false', confirm: 'true' },
    });
  });

  it('Slack checks a revert id whole; the console takes any word and names a missing one', async () => {
    expect((await refusal('revert abc', 'slack'))[0]?.field).toBe('change_id');
    expect(await route('revert abc', 'console')).toEqual({ kind: 'revert', changeId: 'abc' });
    expect(await refusal('revert', 'console')).toEqual([
      { field: 'change_id', rule: 'is required: revert <change id>' },
    ]);
  });

  it('console: `keep <id>` is keep_change, a write; quit, exit, clear and cls are the loop’s', async () => {
    expect(await route(`keep ${CHANGE}`, 'console')).toEqual({
      kind: 'keep',
      tool: 'keep_change',
      args: { change_id: CHANGE },
    });
    expect(await refusal('keep', 'console')).toEqual([
      { field: 'change_id', rule: 'is required: keep <change id>' },
    ]);
    for (const word of ['quit', 'exit', 'QUIT'])
      expect(await route(word, 'console')).toEqual({ kind: 'quit' });
    for (const word of ['clear', 'cls']) expect(await route(word, 'console')).toEqual({ kind: 'clear' });
  });

  it('console: flags come off the line wherever they are typed; `<tool> --help` is that tool’s help', async () => {
    const { registry, gateway } = setup();
    const routed = await routeLine('--json vlans --ids', { face: 'console', registry, gateway });

    expect(routed.intent).toEqual({ kind: 'read', tool: 'list_vlans', args: {}, ids: false });
    expect([...routed.flags].sort()).toEqual(['--ids', '--json']);
    expect(await route('create_network --help', 'console')).toEqual({ kind: 'help', tool: 'create_network' });
    expect(await refusal('vlans --yes', 'console')).toEqual([
      { field: 'option', rule: 'unknown option --yes (known: --json, --help, --ids)' },
    ]);
  });

  it('one-shot: shell words are not tokenized again; no command is the usage, --yes is a flag', async () => {
    const { registry, gateway } = setup();
    const context = { face: 'one-shot' as const, registry, gateway };
    const write = await routeWords(['create_network', 'name=My "Lab"', 'vlan_id=40', '--yes'], context);

    expect(write.intent).toEqual({
      kind: 'write',
      tool: 'create_network',
      args: { name: 'My "Lab"', vlan_id: '40' },
    });
    expect([...write.flags]).toEqual(['--yes']);
    expect((await routeWords([], context)).intent).toEqual({ kind: 'usage' });
    expect((await routeWords(['--help'], context)).intent).toEqual({ kind: 'help' });
    expect((await routeWords(['plan', 'steps.txt'], context)).intent).toEqual({
      kind: 'plan',
      options: {},
      file: 'steps.txt',
      lines: [],
    });
  });

  it('breakglass: a write and its reason; a read, a missing or short reason are refused by field', async () => {
    expect(
      await route('breakglass update_traffic_route route_id=r1 enabled=false reason="uplink down"', 'slack'),
    ).toEqual({
      kind: 'breakglass',
      tool: 'update_traffic_route',
      args: { route_id: 'r1', enabled: 'false' },
      reason: 'uplink down',
    });
    expect(await refusal('breakglass update_traffic_route route_id=r1', 'slack')).toEqual([
      { field: 'reason', rule: 'is required: reason="why this cannot wait for the usual approvals"' },
    ]);
    expect(await refusal('breakglass update_traffic_route route_id=r1 reason=x', 'console')).toEqual([
      { field: 'reason', rule: 'must say why, in at least 3 characters' },
    ]);
    expect((await refusal('breakglass vlans reason="just looking"', 'slack'))[0]?.field).toBe('command');
    expect((await refusal('breakglass nosuchtool reason="just looking"', 'slack'))[0]?.field).toBe('tool');
  });

  it('routes every intent kind some face answers, and nothing reaches the controller', async () => {
    const { registry, gateway, calls } = setup();
    const seen = new Set<IntentKind>();
    const lines: [string, Face, boolean][] = [
      ...SHARED.map(([line]): [string, Face, boolean] => [line, 'console', false]),
      ['form create_network', 'slack', false],
      ['digest', 'slack', true],
      [`keep ${CHANGE}`, 'console', false],
      ['breakglass update_traffic_route route_id=r1 enabled=false reason="uplink down"', 'slack', false],
      ['quit', 'console', false],
      ['clear', 'console', false],
      ['rollout create_network name=Lab vlan_id=40 subnet=10.40.0.0/24 sites=* waves=1,rest', 'slack', false],
    ];
    for (const [line, face, digest] of lines) {
      seen.add((await routeLine(line, { face, registry, gateway, digest })).intent.kind);
    }
    seen.add((await routeWords([], { face: 'one-shot', registry, gateway })).intent.kind);

    // A Record over IntentKind: a kind added to the router and left out here fails to compile.
    const every: Record<IntentKind, true> = {
      help: true,
      usage: true,
      form: true,
      picture: true,
      digest: true,
      history: true,
      revert: true,
      plan: true,
      breakglass: true,
      rollout: true,
      read: true,
      dry_run: true,
      write: true,
      keep: true,
      quit: true,
      clear: true,
    };
    expect([...seen].sort()).toEqual(Object.keys(every).sort());
    expect(calls.gatewayTouches).toEqual([]);
    expect(calls.createNetwork).toEqual([]);
  });
});
