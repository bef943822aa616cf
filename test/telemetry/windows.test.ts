import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClientTraffic } from '../../src/simulator/index.js';
import type { TopClientsAnswer } from '../../src/tools/clients/top-clients.js';
import { startTestBot, type TestBot } from '../helpers/test-bot.js';

// Windows are computed from samples. The simulator's counters move by known amounts
// between ticks driven by hand on the app's clock; rates and ordering follow from those amounts.

const GAMING_PC = 'd8:bb:c1:02:77:05'; // desktop: its first DPI application is Steam
const NAS = '00:11:32:8a:bc:04'; // server: Dropbox
const IPHONE = 'a4:83:e7:11:22:01'; // phone: Instagram
const SPEAKER = '48:a6:b8:77:20:14'; // on IoT: Spotify

const MINUTE = 60_000;
const T0 = Date.parse('2026-11-26T12:00:00Z');

let bot: TestBot;
let clock: number;

/** One minute of traffic: the counters move, the clock moves, the bot samples. */
async function minute(clients: Record<string, ClientTraffic>): Promise<void> {
  bot.sim.advanceTraffic({ seconds: 60, clients });
  clock += MINUTE;
  await bot.app.telemetry.tick();
}

const top = async (args: Record<string, unknown>) => (await bot.run('top_clients', args)) as TopClientsAnswer;

beforeEach(async () => {
  clock = T0;
  bot = await startTestBot({ env: { TELEMETRY_INTERVAL_SECONDS: '60' }, now: () => clock });
  clock += MINUTE;
  await bot.app.telemetry.tick(); // the first sample: no span yet
  // Five minutes: the Gaming PC receives 6 MB a minute, the NAS sends 9 MB in the first three
  // minutes only, the iPhone 1.2 MB, the speaker 0.6 MB, every minute.
  for (let i = 0; i < 5; i += 1) {
    await minute({
      [GAMING_PC]: { rx: 6_000_000, tx: 600_000 },
      [NAS]: i < 3 ? { rx: 0, tx: 9_000_000 } : { rx: 0, tx: 0 },
      [IPHONE]: { rx: 1_200_000, tx: 0 },
      [SPEAKER]: { rx: 600_000, tx: 0 },
    });
  }
});

afterEach(async () => {
  await bot.close();
});

describe('top_clients over a window of samples', () => {
  it('ranks clients by their rate over the last 5 minutes, from the bytes they moved', async () => {
    const answer = await top({ window: '5m' });

    expect(answer.source).toBe('samples');
    expect(answer.covers).toBe('last 5 min');
    expect(answer.coverage).toMatchObject({ seconds: 300, complete: true });
    expect(answer.clients.map((c) => [c.name, c.rx_bytes_per_s, c.tx_bytes_per_s])).toEqual([
      ['Gaming PC', 100_000, 10_000], // 30 MB and 3 MB over 300 s
      ['Synology NAS', 0, 90_000], // 27 MB over 300 s
      ["Zoë's iPhone", 20_000, 0],
      ['Küche Lautsprecher', 10_000, 0],
    ]);
    expect(answer.clients[0]).toMatchObject({
      rank: 1,
      rx_bytes: 30_000_000,
      tx_bytes: 3_000_000,
      online: true,
    });
    expect(answer.total_clients).toBe(4);
  });

  it('follows the traffic as it changes: the window slides past the NAS’s burst', async () => {
    // Two more minutes: the iPhone starts a 12 MB-a-minute download, the NAS stays idle.
    for (let i = 0; i < 2; i += 1) {
      await minute({ [GAMING_PC]: { rx: 6_000_000, tx: 600_000 }, [IPHONE]: { rx: 12_000_000, tx: 0 } });
    }
    const answer = await top({ window: '5m', limit: 3 });

    // Minutes 3–7: the iPhone 3 × 1.2 + 2 × 12 MB, the NAS only its last 9 MB burst.
    expect(answer.clients.map((c) => [c.name, c.rx_bytes_per_s + c.tx_bytes_per_s])).toEqual([
      ['Gaming PC', 110_000],
      ["Zoë's iPhone", 92_000],
      ['Synology NAS', 30_000],
    ]);
  });

  it('answers a window older than the samples with what there is, and says so', async () => {
    const hour = await top({ window: '1h' });
    const day = await top({ window: '24h' });

    // The bot started 6 minutes ago; its first sample was a minute later, so 5 minutes are covered.
    expect(hour.covers).toBe('last 5 min: the bot started 6 min ago');
    expect(hour.coverage).toMatchObject({ window: '1h', seconds: 300, complete: false });
    expect(day.covers).toBe('last 5 min: the bot started 6 min ago');
    // The rates are over the covered 5 minutes, never spread over the hour asked for.
    expect(hour.clients[0]).toMatchObject({ name: 'Gaming PC', rx_bytes_per_s: 100_000 });
  });

  it('filters to a network by name', async () => {
    const answer = await top({ window: '5m', network_id: 'IoT' });

    expect(answer.network).toBe('IoT');
    expect(answer.clients.map((c) => c.name)).toEqual(['Küche Lautsprecher']);
  });

  it('answers now from the controller’s current rate', async () => {
    const answer = await top({});

    expect(answer.window).toBe('now');
    expect(answer.source).toBe('controller current rate');
    // The last minute: NAS idle, the Gaming PC 6.6 MB over 60 s.
    expect(answer.clients.map((c) => [c.name, c.rx_bytes_per_s + c.tx_bytes_per_s])).toEqual([
      ['Gaming PC', 110_000],
      ["Zoë's iPhone", 20_000],
      ['Küche Lautsprecher', 10_000],
    ]);
  });
});

describe('DPI time_range from samples', () => {
  it('get_dpi_statistics counts only what moved in the window, per application', async () => {
    const stats = (await bot.run('get_dpi_statistics', { time_range: '1h' })) as {
      counters: string;
      covers: string;
      applications: { application: string; rx_bytes: number; tx_bytes: number }[];
      total_bytes: number;
    };

    expect(stats.counters).toBe('window');
    expect(stats.covers).toBe('last 5 min: the bot started 6 min ago');
    expect(stats.applications.map((a) => [a.application, a.rx_bytes, a.tx_bytes])).toEqual([
      ['Valve Steam', 30_000_000, 3_000_000],
      ['Dropbox', 0, 27_000_000],
      ['Instagram', 6_000_000, 0],
      ['Spotify', 3_000_000, 0],
    ]);
    expect(stats.total_bytes).toBe(69_000_000);
  });

  it('list_top_applications and get_client_dpi apply the same window', async () => {
    const topApps = (await bot.run('list_top_applications', { time_range: '1h', limit: 1 })) as {
      applications: { application: string }[];
    };
    const client = (await bot.run('get_client_dpi', { client_mac: GAMING_PC, time_range: '24h' })) as {
      counters: string;
      covers: string;
      total_bytes: number;
    };

    expect(topApps.applications.map((a) => a.application)).toEqual(['Valve Steam']);
    expect(client).toMatchObject({
      counters: 'window',
      covers: 'last 5 min: the bot started 6 min ago',
      total_bytes: 33_000_000,
    });
  });
});
