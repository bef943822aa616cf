import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { pngDimensions } from '../../src/topology/index.js';
import { type BotProcess, slackHttpEnv, spawnListeningBot, stopAllBots } from '../helpers/bot-process.js';
import { type FakeSlack, startFakeSlack } from '../helpers/fake-slack.js';
import { commandBody, slackHeaders } from '../helpers/slack-requests.js';

const SECRET = 'process-test-signing-secret';

afterAll(stopAllBots);

describe('/net top in the built bot', () => {
  let slack: FakeSlack;
  let sim: Simulator;
  let bot: BotProcess;
  let events: string;

  beforeAll(async () => {
    // The controller's counters move every 250 ms; the bot samples every second.
    [slack, sim] = await Promise.all([startFakeSlack(), startSimulator({ trafficIntervalMs: 250 })]);
    ({ bot, events } = await spawnListeningBot({
      ...slackHttpEnv(slack, SECRET, sim),
      TELEMETRY_INTERVAL_SECONDS: '1',
    }));
  });

  afterAll(async () => {
    await bot?.stop('SIGKILL');
    await Promise.all([slack?.close(), sim?.close()]);
  });

  it('answers the table through response_url and uploads a PNG chart of the top clients in three steps', async () => {
    // Until the bot has two samples there is no span to draw. Its samples follow one another (the
    // next starts when the last is stored), so once the simulator has seen a third sample's read
    // (stat/stadpi is read only by the sampler) two are stored: then one `/net top` gets the chart.
    const sampleReads = () => sim.requests.filter((r) => r.route.endsWith('stat/stadpi')).length;
    await slack.waitFor(() => sampleReads() >= 3, 30_000);
    const responseUrl = slack.responseUrl();
    const body = commandBody({ text: 'top', user_id: 'U1', channel_id: 'C5', response_url: responseUrl });
    const response = await fetch(events, { method: 'POST', headers: slackHeaders(SECRET, body), body });
    expect(response.status).toBe(200);
    await slack.waitFor(() => slack.callsOf('files.completeUploadExternal').length > 0, 80_000);

    const table = JSON.stringify(slack.responses.find((r) => responseUrl.endsWith(r.path))?.body ?? {});
    // The demo's heaviest clients by name, not by MAC.
    expect(table).toContain('Living Room');
    expect(table).toContain('current rate');
    // Highest rate first: the demo's TV streams more than the Gaming PC.
    expect(table.indexOf('Living Room')).toBeLessThan(table.indexOf('Gaming PC'));

    const [getUrl] = slack.callsOf('files.getUploadURLExternal');
    expect(getUrl?.args.filename).toBe('top-clients-default.png');
    const [complete] = slack.callsOf('files.completeUploadExternal');
    expect(complete?.args.channel_id).toBe('C5');
    expect(String(complete?.args.initial_comment)).toContain('over the last hour');
    const png = slack.uploads[0]?.bytes ?? Buffer.alloc(0);
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(Number(getUrl?.args.length)).toBe(png.length);
    const { width, height } = pngDimensions(png) ?? { width: 0, height: 0 };
    expect(width).toBeGreaterThan(1000);
    expect(height).toBeGreaterThan(500);
    // Kept for a person to look at (the report describes it).
    writeFileSync(join(tmpdir(), 'netops-top-clients.png'), png);
  }, 120_000);
});
