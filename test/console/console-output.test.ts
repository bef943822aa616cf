import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ConsoleDeps, runInteractiveConsole, runOneShot } from '../../src/console/console.js';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { silentLogger } from '../../src/log.js';
import { defineTool } from '../../src/tools/core/define-tool.js';
import { ToolRegistry } from '../../src/tools/core/registry.js';
import { type FakeServer, startFake } from '../gateway/support.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { startTestBot, type TestBot } from '../helpers/test-bot.js';
import { TextSink } from '../helpers/text-sink.js';
import { fakeSetup } from './fake-registry.js';

const CLIENTS = [
  {
    mac: 'aa:bb:cc:dd:ee:01',
    name: 'Meeting room ceiling display',
    network_id: '6500f0c4e1b2a3000c0ffee1',
    note: 'roams between the two access points of the east wing every few minutes, signal fine',
  },
  {
    mac: 'aa:bb:cc:dd:ee:02',
    name: 'Lab bench',
    network_id: '6500f0c4e1b2a3000c0ffee2',
    note: 'wired',
  },
];
const IDENTIFIERS = CLIENTS.flatMap((c) => [c.mac, c.name, c.network_id]);

/** A stream that says it is a terminal of the given width, as process.stdout does on a TTY. */
class TerminalSink extends TextSink {
  readonly isTTY = true;
  constructor(readonly columns: number) {
    super();
  }
}

function clientsDeps(output: TextSink, columns?: number): ConsoleDeps {
  const listClients = defineTool({
    name: 'list_clients',
    description: 'List clients',
    access: 'read',
    args: z.object({ site_id: z.string() }),
    run: async () => CLIENTS,
  });
  const registry = new ToolRegistry([{ title: 'Clients', tools: [listClients] }], { site: 'default' });
  const context = { gateway: {} as never, logger: silentLogger(), store: new MemoryStore() };
  return {
    registry,
    context,
    input: new PassThrough(),
    output,
    errorOutput: new TextSink(),
    logger: silentLogger(),
    ...(columns === undefined ? {} : { columns }),
  };
}

async function tableLines(output: TextSink, columns?: number): Promise<string[]> {
  const code = await runOneShot(['list_clients'], clientsDeps(output, columns));
  expect(code).toBe(0);
  return output.text.trimEnd().split('\n');
}

describe('console tables fit the terminal', () => {
  it('are unbounded when piped (no TTY, no COLUMNS): nothing is cut', async () => {
    const lines = await tableLines(new TextSink());

    expect(lines.join('\n')).not.toContain('…');
    expect(lines[1]).toContain(CLIENTS[0]?.note);
    expect(lines.some((line) => line.length > 120)).toBe(true);
  });

  it("fit the TTY's width, leaving out the ids first and keeping the names whole", async () => {
    const lines = await tableLines(new TerminalSink(90));

    for (const line of lines) expect(line.length).toBeLessThanOrEqual(90);
    expect(lines[0]).toMatch(/^name\s+note$/);
    expect(lines[1]).toMatch(/^Meeting room ceiling display {2}roams between.*…$/);
    expect(lines.at(-1)).toBe('(2 rows; --ids shows mac, network_id)');
  });

  it('show the ids whole with --ids, cutting the note instead', async () => {
    const output = new TerminalSink(90);
    expect(await runOneShot(['list_clients', '--ids'], clientsDeps(output))).toBe(0);
    const lines = output.text.trimEnd().split('\n');

    for (const line of lines) expect(line.length).toBeLessThanOrEqual(90);
    expect(lines[0]).toMatch(/^mac\s+name\s+network_id\s+note$/);
    for (const id of IDENTIFIERS) expect(lines.join('\n')).toContain(id);
    expect(lines.at(-1)).toBe('(2 rows)');
  });

  it('fit COLUMNS when the shell sets it, over the TTY width', async () => {
    const lines = await tableLines(new TerminalSink(200), 100);

    for (const line of lines) expect(line.length).toBeLessThanOrEqual(100);
    expect(lines[1]?.length).toBe(100);
  });

  it('stay a table at 40 columns, never key: value blocks: the name whole, the note cut', async () => {
    const lines = await tableLines(new TerminalSink(40));

    for (const line of lines) expect(line.length).toBeLessThanOrEqual(40);
    expect(lines[0]).toMatch(/^name\s+note$/);
    expect(lines[1]).toMatch(/^Meeting room ceiling display {2}\S.*…$/);
    expect(lines[2]).toMatch(/^Lab bench\s+wired$/);
    expect(lines.join('\n')).not.toMatch(/^(mac|name|note):/m);
    expect(lines.at(-1)).toBe('(2 rows; --ids shows mac, network_id)');
  });
});

interface JsonError {
  error: { code: string; message: string; fields: { field: string; rule: string }[] };
}

async function oneShot(argv: string[], deps: ConsoleDeps) {
  const code = await runOneShot(argv, deps);
  const stdout = (deps.output as TextSink).text;
  const stderr = (deps.errorOutput as TextSink).text;
  return { code, stdout, stderr };
}

function fakeDeps(): ConsoleDeps {
  const { registry, context } = fakeSetup();
  return {
    registry,
    context,
    input: new PassThrough(),
    output: new TextSink(),
    errorOutput: new TextSink(),
    logger: captureLogger('error').logger,
  };
}

describe('--json errors are JSON on stdout, with the usual exit codes', () => {
  it('gives validation errors with their fields and exit 2, and nothing on stderr', async () => {
    const run = await oneShot(['create_network', 'name=IoT', 'vlan_id=9999', '--json', '--yes'], fakeDeps());

    expect(run.code).toBe(2);
    expect(run.stderr).toBe('');
    const parsed = JSON.parse(run.stdout) as JsonError;
    expect(parsed.error.code).toBe('validation_failed');
    expect(parsed.error.fields).toHaveLength(1);
    expect(parsed.error.fields[0]?.field).toBe('vlan_id');
    expect(parsed.error.message).toBe(`invalid input: vlan_id: ${parsed.error.fields[0]?.rule}`);
  });

  it('gives an unknown tool, an unknown option and a missing command as validation errors, exit 2', async () => {
    const unknown = await oneShot(['frobnicate', '--json'], fakeDeps());
    const option = await oneShot(['vlans', '--json', '--verbose'], fakeDeps());
    const empty = await oneShot(['--json'], fakeDeps());

    expect([unknown.code, option.code, empty.code]).toEqual([2, 2, 2]);
    expect((JSON.parse(unknown.stdout) as JsonError).error.fields).toEqual([
      { field: 'tool', rule: 'unknown tool "frobnicate"; `help` lists them' },
    ]);
    expect((JSON.parse(option.stdout) as JsonError).error.fields).toEqual([
      { field: 'option', rule: 'unknown option --verbose (known: --json, --yes, --help, --ids)' },
    ]);
    expect((JSON.parse(empty.stdout) as JsonError).error).toMatchObject({
      code: 'validation_failed',
      fields: [{ field: 'command', rule: expect.stringContaining('is required (usage: npm start --') }],
    });
    expect(unknown.stderr + option.stderr + empty.stderr).toBe('');
  });

  it('gives a bug as internal_error with exit 1, its stack only in the log', async () => {
    const run = await oneShot(['topology', '--json'], fakeDeps());

    expect(run.code).toBe(1);
    const parsed = JSON.parse(run.stdout) as JsonError;
    expect(parsed.error.code).toBe('internal_error');
    expect(parsed.error.message).toMatch(/^internal error: [0-9a-f]{8}; see the log$/);
    expect(run.stdout).not.toContain('TypeError');
  });

  it('keeps text on stderr without --json', async () => {
    const run = await oneShot(['create_network', 'name=IoT', 'vlan_id=9999', '--yes'], fakeDeps());

    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^invalid input:\n {2}vlan_id: /);
  });

  it('answers a --json line of the interactive console with a JSON error and keeps going', async () => {
    const deps = fakeDeps();
    const done = runInteractiveConsole(deps);
    (deps.input as PassThrough).end('create_network name=IoT vlan_id=9999 --json\nquit\n');
    await done;

    const out = (deps.output as TextSink).text;
    const json = out.slice(out.indexOf('{'), out.lastIndexOf('}') + 1);
    expect((JSON.parse(json) as JsonError).error.code).toBe('validation_failed');
    expect((deps.errorOutput as TextSink).text).toBe('');
  });
});

describe('--json errors from the real tools and gateway', () => {
  let bot: TestBot;
  let nginx: FakeServer;
  let lost: TestBot;

  beforeAll(async () => {
    bot = await startTestBot();
    nginx = await startFake((req, res) => {
      res.writeHead(req.path === '/' ? 200 : 404, { 'content-type': 'text/html' });
      res.end('<html><body>nginx</body></html>');
    });
    lost = await startTestBot({ gateway: { url: nginx.url } });
  });
  afterAll(async () => {
    await bot.close();
    await lost.close();
    await nginx.close();
  });

  function appDeps(target: TestBot): ConsoleDeps {
    return {
      registry: target.app.registry,
      context: target.app.context,
      input: new PassThrough(),
      output: new TextSink(),
      errorOutput: new TextSink(),
      logger: silentLogger(),
    };
  }

  it('gives an unknown network as not_found with exit 1', async () => {
    const run = await oneShot(['get_network_details', 'network_id=Nowhere', '--json'], appDeps(bot));

    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual({
      error: { code: 'not_found', message: 'network Nowhere not found', fields: [] },
    });
  });

  it('gives a URL with no controller behind it as gateway_unavailable with exit 1, saying so', async () => {
    const run = await oneShot(['list_vlans', '--json'], appDeps(lost));

    expect(run.code).toBe(1);
    const parsed = JSON.parse(run.stdout) as JsonError;
    expect(parsed.error.code).toBe('gateway_unavailable');
    expect(parsed.error.message).toMatch(
      new RegExp(
        // With an API key the first read is the console's version (`info`): which API serves networks.
        `^no UniFi Network controller at ${nginx.url}( for the Integration API)?: GET /proxy/network/(api/s/default/rest/networkconf|integration/v1/info) answered HTTP 404 with a web page`,
      ),
    );
    expect(parsed.error.message).not.toContain('not found');
    expect(parsed.error.fields).toEqual([]);
  });

  it('prints the same sentence as text without --json', async () => {
    const run = await oneShot(['list_vlans'], appDeps(lost));

    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(`^no UniFi Network controller at ${nginx.url}( for the Integration API)?: `),
    );
  });
});
