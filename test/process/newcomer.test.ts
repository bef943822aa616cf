// Issue 19 (items 2–6): what a newcomer met, checked on the built program as it ships:
// `node dist/main.js` one-shot and interactive, and `node dist/main.js mcp` with the SDK's client.
import { afterAll, describe, expect, it } from 'vitest';
import { runBot, stopAllBots } from '../helpers/bot-process.js';

afterAll(stopAllBots);

describe.concurrent('issue 19: tables keep ids, names, MACs and addresses whole', () => {
  it('routes at 160 columns shows the client MAC, the network and the destination whole', async () => {
    const run = await runBot(['routes'], { env: { COLUMNS: '160' } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('client 00:11:32:8a:bc:04');
    expect(run.stdout).toContain('network IoT (VLAN 20)');
    expect(run.stdout).toContain('destination_ip=198.51.100.50');
    expect(run.stdout).not.toContain('…');
  });

  it('list_firewall_policies at 80 and 160 columns keeps addresses and headers whole', async () => {
    for (const columns of ['80', '160']) {
      const run = await runBot(['list_firewall_policies'], { env: { COLUMNS: columns } });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('Internal: 192.168.1.20 port 32400');
      expect(run.stdout).not.toMatch(/enabl…|prede…/);
      for (const line of run.stdout.trimEnd().split('\n')) {
        if (!/192\.168|[0-9a-f]{24}/.test(line))
          expect(line.length, line).toBeLessThanOrEqual(Number(columns));
      }
    }
  });
});
