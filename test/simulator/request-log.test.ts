import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { checkRequestLog, describeProblems } from '../helpers/request-log-check.js';
import { I, networkBase } from './support.js';

// The suite-wide check of Integration requests: simulators log the bot's Integration requests; the
// end of the run checks every logged request against the 10.1.85 document
// (test/global/request-log.ts).

const root = mkdtempSync(join(tmpdir(), 'netops-request-log-test-'));
const fileDir = join(root, encodeURIComponent('test/some/file.test.ts'));
let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ requestLog: fileDir });
});
afterAll(async () => {
  await sim.close();
  rmSync(root, { recursive: true, force: true });
});

function send(route: string, method: string, body: unknown, agent: string) {
  return fetch(`${networkBase(sim)}${route}`, {
    method,
    headers: { 'user-agent': agent, 'x-api-key': sim.apiKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

describe('the simulator request log and its check', () => {
  it('logs the bot’s Integration requests (2xx or not), and neither other senders nor other APIs', async () => {
    await send(`${I}/firewall/zones`, 'POST', { name: 'Lab', networkIds: [] }, 'netops-bot');
    // A malformed body a test sends on purpose (its own agent): the simulator refuses it, unlogged.
    expect((await send(`${I}/firewall/zones`, 'POST', { name: 7 }, 'attack-test')).status).toBe(400);
    await send('/api/s/default/rest/networkconf', 'GET', undefined, 'netops-bot');
    const files = readdirSync(fileDir);
    expect(files).toEqual([`${process.pid}.jsonl`]);
    const lines = readFileSync(join(fileDir, files[0] ?? ''), 'utf8')
      .trim()
      .split('\n');
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      { method: 'POST', route: `${I}/firewall/zones`, query: {}, body: { name: 'Lab', networkIds: [] } },
    ]);
    expect(checkRequestLog(root)).toEqual({ problems: [], requests: 1 });
  });

  it('names each request that breaks the document, with its test file (the check can fail)', async () => {
    // What a bot bug would send: a zone without networkIds, a query the operation does not take.
    await send(`${I}/firewall/zones`, 'POST', { name: 'Lab' }, 'netops-bot');
    await send(`${I}/acl-rules?sort=name`, 'GET', undefined, 'netops-bot');
    await send(`${I}/acl-rules?sort=name`, 'GET', undefined, 'netops-bot');
    const { problems, requests } = checkRequestLog(root);
    expect(requests).toBe(4);
    expect(describeProblems(problems)).toEqual([
      expect.stringMatching(/^test\/some\/file\.test\.ts: POST .*\/firewall\/zones: body .*networkIds/),
      `test/some/file.test.ts: GET ${I}/acl-rules: query parameter sort is not in getAclRulePage (2 requests)`,
    ]);
  });
});
