import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsolesFileError, parseConsolesFile } from '../../src/fleet/consoles-file.js';
import {
  DiscoveryError,
  discoverConsoles,
  discoveredProblems,
  hostsOf,
  listAll,
  readPage,
  type SiteManagerGet,
  siteManagerFetch,
} from '../../src/fleet/discovery.js';
import { mergeDiscovered } from '../../src/fleet/resolve.js';

const FILE = `cloud: { api_key_env: CLOUD_KEY }
discover: site_manager
consoles:
  - name: hq
    connector: { console_id: H2 }
    labels: { customer: acme }
    sites: [default]
  - name: oslo
    labels: { region: eu }
channels:
  C0HQ: { console: hq }
  C0GONE: { console: gone }
  C0OSLO: { console: oslo, site: lab }
`;
const file = parseConsolesFile(FILE, '/etc/netops/consoles.yaml');

const host = (id: string, name: string) => ({ id, type: 'console', reportedState: { name, hostname: name } });
const site = (hostId: string, name: string) => ({ siteId: `${hostId}-${name}`, hostId, meta: { name } });

describe('reading Site Manager lists', () => {
  it('follows nextToken to the last page', async () => {
    const asked: Record<string, string>[] = [];
    const get: SiteManagerGet = async (_route, query) => {
      asked.push({ ...query });
      if (query.nextToken === undefined) return { data: [1, 2], nextToken: 'p2', httpStatusCode: 200 };
      if (query.nextToken === 'p2') return { data: [3], nextToken: 'p3' };
      return { data: [4], nextToken: '' };
    };
    expect(await listAll(get, '/v1/hosts', 'https://cloud')).toEqual([1, 2, 3, 4]);
    expect(asked.map((q) => q.nextToken)).toEqual([undefined, 'p2', 'p3']);
  });

  it('refuses an answer that is not the envelope, and a list that never ends', async () => {
    await expect(listAll(async () => ({ hosts: [] }), '/v1/hosts', 'https://cloud')).rejects.toThrow(
      /Site Manager at https:\/\/cloud did not list the consoles: \/v1\/hosts did not answer/,
    );
    await expect(
      listAll(async () => ({ data: [], nextToken: 'again' }), '/v1/sites', 'https://cloud'),
    ).rejects.toBeInstanceOf(DiscoveryError);
  });

  it('reads the recorded Site Manager answers: a console named by its hostname, its sites by host id', () => {
    const fixture = (name: string) =>
      JSON.parse(readFileSync(new URL(`../fixtures/unifi/site-manager/${name}`, import.meta.url), 'utf8'));
    const hostsPage = readPage(fixture('hosts.json'));
    const sitesPage = readPage(fixture('sites.json'));
    if (!hostsPage || !sitesPage) throw new Error('the recorded answers are Site Manager envelopes');
    // The recorded last page carries an empty nextToken: no further page is asked for.
    expect(hostsPage.nextToken).toBeUndefined();
    const { hosts, skipped } = hostsOf(hostsPage.data, sitesPage.data);
    expect(skipped).toBe(0);
    expect(hosts).toEqual([
      {
        id: '942A6FCE26520000000008A62C8000000000091C92E70000000067801E31:392959371',
        name: 'example-console',
      },
    ]);
    expect(mergeDiscovered(file, hosts).consoles.map((c) => c.name)).toEqual(['example-console']);
  });

  it('names each host from its reported name, hostname or id, with its sites; odd records are counted', () => {
    const { hosts, skipped } = hostsOf(
      [
        host('H1', 'Oslo'),
        { id: 'H2', reportedState: { hostname: 'hq-udm' } },
        { id: 'H3' },
        { name: 'no id' },
      ],
      [site('H1', 'default'), site('H1', 'lager'), site('H3', 'default'), { hostId: 'H1' }],
    );
    expect(hosts).toEqual([
      { id: 'H1', name: 'Oslo', sites: ['default', 'lager'] },
      { id: 'H2', name: 'hq-udm' },
      { id: 'H3', name: 'H3', sites: ['default'] },
    ]);
    expect(skipped).toBe(2);
  });
});

describe('merging discovered hosts with the file', () => {
  it('names a host by the entry of its id, others by slug, and adds each entry’s labels', () => {
    const { consoles, unmatched } = mergeDiscovered(file, [
      { id: 'H1', name: 'Oslo' },
      { id: 'H2', name: 'Head Office' },
      // Its slug is the name the id entry took: it is numbered, not merged into it.
      { id: 'H3', name: 'HQ' },
    ]);
    expect(consoles.map((c) => [c.name, c.connection, c.labels, c.sites])).toEqual([
      ['oslo', { kind: 'connector', consoleId: 'H1' }, { region: 'eu' }, undefined],
      ['hq', { kind: 'connector', consoleId: 'H2' }, { customer: 'acme' }, ['default']],
      ['hq-2', { kind: 'connector', consoleId: 'H3' }, {}, undefined],
    ]);
    expect(unmatched).toEqual([]);
    expect(mergeDiscovered(file, [{ id: 'H9', name: 'Riga' }]).unmatched).toEqual(['hq', 'oslo']);
  });

  // Deliberately alike: discovered hosts written out as test data; read-round-trips lists its consoles the same way.
  it('keeps only the consoles include names, by name or host id, with * as a wildcard', () => {
    const including = parseConsolesFile(
      'cloud: { api_key_env: K }\ndiscover: site_manager\ninclude: [oslo, "H2", "ber*", nowhere]\n',
      'i.yaml',
    );
    const hosts = [
      { id: 'H1', name: 'Oslo' },
      { id: 'H2', name: 'Head Office' },
      { id: 'H3', name: 'Berlin Mitte' },
      { id: 'H4', name: 'Riga' },
    ];
    const merged = mergeDiscovered(including, hosts);
    expect(merged.consoles.map((c) => c.name)).toEqual(['oslo', 'head-office', 'berlin-mitte']);
    expect(merged.unusedInclude).toEqual(['nowhere']);
  });

  it('refuses include without discovery, on its line', () => {
    expect(() =>
      parseConsolesFile(
        'include: [oslo]\nconsoles:\n  - name: a\n    url: http://a\n    api_key_env: K\n',
        'x.yaml',
      ),
    ).toThrow(/line 1, include: include picks among discovered consoles/);
  });
});

describe('checking the file against what was discovered', () => {
  const hosts = [
    { id: 'H1', name: 'Oslo', sites: ['default'] },
    { id: 'H2', name: 'HQ', sites: ['lager'] },
  ];

  it('names the line of an entry asking for a site its console does not have; warns of a binding to no console', () => {
    const { problems, warnings } = discoveredProblems(file, mergeDiscovered(file, hosts).matches);
    expect(problems).toEqual([
      { line: 4, path: 'consoles[0].sites', rule: 'hq has no site default (Site Manager lists lager)' },
    ]);
    expect(warnings).toEqual([
      'channel C0GONE is bound to gone, which discovery did not serve',
      'channel C0OSLO is bound to site lab of oslo, which Site Manager does not list',
    ]);
  });

  it('discovers from both lists, throwing the file error before serving anything', async () => {
    const get: SiteManagerGet = async (route) =>
      route === '/v1/hosts'
        ? { data: [host('H1', 'Oslo'), host('H2', 'HQ')] }
        : { data: [site('H1', 'default'), site('H2', 'lager')] };
    await expect(discoverConsoles(file, 'https://cloud', get)).rejects.toThrow(
      /line 4, consoles\[0\]\.sites: hq has no site default/,
    );
    const fixed: SiteManagerGet = async (route, query) =>
      route === '/v1/sites' ? { data: [site('H2', 'default')] } : get(route, query);
    const found = await discoverConsoles(file, 'https://cloud', fixed);
    expect(found.consoles.map((c) => c.name)).toEqual(['oslo', 'hq']);
    expect(found.warnings).toContain('channel C0GONE is bound to gone, which discovery did not serve');
  });

  it('refuses a fleet of none: include leaving out every console, on include’s line', async () => {
    const none = parseConsolesFile(
      'cloud: { api_key_env: K }\ndiscover: site_manager\ninclude: [riga]\n',
      'n.yaml',
    );
    const get: SiteManagerGet = async (route) =>
      route === '/v1/hosts' ? { data: [host('H1', 'Oslo')] } : { data: [] };
    await expect(discoverConsoles(none, 'https://cloud', get)).rejects.toThrow(
      /line 3, include: include leaves out every one of the 1 consoles/,
    );
  });
});

describe('asking Site Manager over HTTP', () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  async function serve(
    answers: { status: number; body?: unknown }[],
  ): Promise<{ url: string; keys: string[] }> {
    const keys: string[] = [];
    const listening = createServer((req, res) => {
      keys.push(String(req.headers['x-api-key']));
      const answer = answers.shift() ?? { status: 500 };
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.body ?? { code: 'SERVER_ERROR', httpStatusCode: answer.status }));
    });
    server = listening;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(listening.address() as AddressInfo).port}`, keys };
  }
  const policy = { timeoutMs: 1000, retries: 2, backoffMs: 5 };

  it('sends the key as X-API-KEY and retries a 503 until the answer comes', async () => {
    const { url, keys } = await serve([{ status: 503 }, { status: 200, body: { data: [1] } }]);
    const get = siteManagerFetch(file, { url, apiKey: 'cloud-secret-1' }, policy);
    expect(await get('/v1/hosts', { pageSize: '5' })).toEqual({ data: [1] });
    expect(keys).toEqual(['cloud-secret-1', 'cloud-secret-1']);
  });

  it('says a refused key is the file’s cloud key, on its line, without quoting it', async () => {
    const { url } = await serve([{ status: 401 }]);
    const get = siteManagerFetch(file, { url, apiKey: 'cloud-secret-2' }, policy);
    const error = await get('/v1/hosts', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConsolesFileError);
    expect(String((error as Error).message)).toMatch(
      /line 1, cloud\.api_key_env: Site Manager refused the key \(HTTP 401\): check CLOUD_KEY/,
    );
    expect(String((error as Error).message)).not.toContain('cloud-secret-2');
  });

  it('gives up on a Site Manager that does not answer, after its retries', async () => {
    const { url } = await serve([]);
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    server = undefined;
    const get = siteManagerFetch(file, { url, apiKey: 'cloud-secret-3' }, policy);
    const error = await get('/v1/hosts', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DiscoveryError);
    expect((error as Error).message).toBe(
      `Site Manager at ${url} did not list the consoles: connection failed (after 3 tries)`,
    );
  });
});
