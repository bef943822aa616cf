import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pngDimensions } from '../../src/topology/index.js';
import { type BotProcess, slackHttpEnv, spawnListeningBot, stopAllBots } from '../helpers/bot-process.js';
import { commandBody, slackHeaders } from '../helpers/slack-requests.js';
import { useSlackRig } from '../helpers/slack-rig.js';

const SECRET = 'process-test-signing-secret';

afterAll(stopAllBots);

describe('/net top in the built bot', () => {
  const rig = useSlackRig({ trafficIntervalMs: 250 });
  let bot: BotProcess;
  let events: string;

  beforeAll(async () => {
    // The controller's counters move every 250 ms; the bot samples every second.
    ({ bot, events } = await spawnListeningBot({
      ...slackHttpEnv(rig.slack, SECRET, rig.sim),
      TELEMETRY_INTERVAL_SECONDS: '1',
    }));
  });

  afterAll(async () => {
    await bot?.stop('SIGKILL');
  });

  it('answers the table through response_url and uploads a PNG chart of the top clients in three steps', async () => {
    // Until the bot has two samples there is no span to draw. Its samples follow one another (the
    // next starts when the last is stored), so once the simulator has seen a third sample's read
    // (stat/stadpi is read only by the sampler) two are stored: then one `/net top` gets the chart.
    const sampleReads = () => rig.sim.requests.filter((r) => r.route.endsWith('stat/stadpi')).length;
    await rig.slack.waitFor(() => sampleReads() >= 3, 30_000);
    const responseUrl = rig.slack.responseUrl();
    const body = commandBody({ text: 'top', user_id: 'U1', channel_id: 'C5', response_url: responseUrl });
    const response = await fetch(events, { method: 'POST', headers: slackHeaders(SECRET, body), body });
    expect(response.status).toBe(200);
    await rig.slack.waitFor(() => rig.slack.callsOf('files.completeUploadExternal').length > 0, 80_000);

    const table = JSON.stringify(rig.slack.responses.find((r) => responseUrl.endsWith(r.path))?.body ?? {});
    // The demo's heaviest clients by name, not by MAC.
    expect(table).toContain('Living Room');
    expect(table).toContain('current rate');
    // Highest rate first: the demo's TV streams more than the Gaming PC.
    expect(table.indexOf('Living Room')).toBeLessThan(table.indexOf('Gaming PC'));

    const [getUrl] = rig.slack.callsOf('files.getUploadURLExternal');
    expect(getUrl?.args.filename).toBe('top-clients-default.png');
    const [complete] = rig.slack.callsOf('files.completeUploadExternal');
    expect(complete?.args.channel_id).toBe('C5');
    expect(String(complete?.args.initial_comment)).toContain('over the last hour');
    const png = rig.slack.uploads[0]?.bytes ?? Buffer.alloc(0);
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(Number(getUrl?.args.length)).toBe(png.length);
    const { width, height } = pngDimensions(png) ?? { width: 0, height: 0 };
    expect(width).toBeGreaterThan(1000);
    expect(height).toBeGreaterThan(500);
    // Kept for a person to look at (the report describes it).
    writeFileSync(join(tmpdir(), 'netops-top-clients.png'), png);
  }, 120_000);
});
