/**
 * What the one redaction of tool output costs on a big result:
 * `node --import tsx bench/redact.ts`. Every tool result passes through redactSecrets, so a
 * 50,000-client topology and its GraphML text are the worst cases the bot produces.
 */
import { redactSecrets } from '../src/lib/redact.js';
import { setConfiguredSecrets } from '../src/lib/secret-text.js';

setConfiguredSecrets([
  'sim-demo-key-0000',
  'xoxb-bench-0000-0000',
  'bench-signing-secret-0123',
  'bench-mcp-secret-0123456789',
]);

const clients = Array.from({ length: 50_000 }, (_, i) => ({
  mac: `00:11:32:${(i >> 16).toString(16).padStart(2, '0')}:${((i >> 8) & 255).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}`,
  name: `client-${i} <&> "quoted"`,
  hostname: `host-${i}.example.internal`,
  ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
  network_id: '65b3c8e1f4a9d20c7e5a1012',
  uplink_mac: '00:11:32:8a:bc:04',
  port: i % 48,
  is_wired: i % 3 === 0,
  rx_bytes: i * 1000,
  tx_bytes: i * 900,
  last_seen: 1_700_000_000 + i,
  essid: 'Home',
  vlan: 20,
  oui: 'Synology',
  depth: 3,
}));
const result = { site: 'default', devices: [], clients, stats: { clients: clients.length } };
const graphml = clients
  .map((c) => `<node id="${c.mac}"><data key="name">${c.name}</data><data key="ip">${c.ip}</data></node>`)
  .join('\n');

function time(what: string, run: () => unknown): void {
  run();
  const runs: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    const started = performance.now();
    run();
    runs.push(performance.now() - started);
  }
  runs.sort((a, b) => a - b);
  console.log(
    `${what}: median ${runs[2]?.toFixed(1)} ms (min ${runs[0]?.toFixed(1)}, max ${runs[4]?.toFixed(1)})`,
  );
}

console.log(
  `objects: ${clients.length} clients × 15 fields; GraphML ${(graphml.length / 1e6).toFixed(1)} MB`,
);
time('redactSecrets(50,000-client result)', () => redactSecrets(result));
time('redactSecrets(GraphML text)', () => redactSecrets(graphml));
time('JSON.stringify(same result), for scale', () => JSON.stringify(result));
