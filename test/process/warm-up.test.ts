import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { spawnBot, stopAllBots } from '../helpers/bot-process.js';
import { type FakeSlack, startFakeSlack } from '../helpers/fake-slack.js';
import { type ClosedPort, closedPort } from '../helpers/ports.js';
import { commandBody, slackHeaders } from '../helpers/slack-requests.js';

// Networks serve as the sample write on their classic path (networkconf routes and faults): a 9.0
// console. Networks through the official API (10.1): tools/networks-official.test.ts.

const SECRET = 'warm-up-signing-secret';

const isListening = (line: { msg: string }) => line.msg.startsWith('listening on port');

let slack: FakeSlack | undefined;
let sim: Simulator | undefined;
let controllerPort: ClosedPort | undefined;

afterEach(async () => {
  await stopAllBots();
  await Promise.all([slack?.close(), sim?.close(), controllerPort?.release()]);
  slack = undefined;
  sim = undefined;
  controllerPort = undefined;
});
afterAll(stopAllBots);

function botEnv(controllerPort: number, apiKey: string): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: 'xoxb-warm-up-test',
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_API_URL: slack?.apiUrl ?? '',
    PORT: '0',
    GATEWAY_URL: `http://127.0.0.1:${controllerPort}`,
    GATEWAY_API_KEY: apiKey,
  };
}

async function listVlans(eventsUrl: string, responseUrl: string) {
  const body = commandBody({ text: 'list_vlans', user_id: 'U1', response_url: responseUrl });
  return fetch(eventsUrl, { method: 'POST', headers: slackHeaders(SECRET, body), body });
}

describe('warm-up at start (`node dist/main.js`, Slack HTTP mode)', () => {
  it('detects the controller and looks the site up before the first command', async () => {
    // Arrange
    slack = await startFakeSlack();
    sim = await startSimulator({ apiVersion: '9.0' });
    const port = Number(new URL(sim.url).port);

    // Act
    const bot = spawnBot(botEnv(port, sim.apiKey));
    await bot.waitForLog(isListening);
    await bot.waitForLog((line) => line.msg === 'detected the controller type');
    const current = sim;
    await slack.waitFor(() => current.requests.some((r) => r.route === '/integration/v1/info'));

    // Assert: nothing but the warm-up has reached the controller, and no command was sent. The
    // warm-up also reads the console's version (which official operations it offers); the three
    // go out together, so their order of arrival is not fixed.
    expect(sim.requests.map((r) => `${r.method} ${r.route}`).sort()).toEqual([
      'GET /',
      'GET /integration/v1/info',
      'GET /integration/v1/sites',
    ]);
  });

  it('starts with the controller unreachable, and answers the first command once it is up', async () => {
    // Arrange: nothing listens on the controller's port yet, and nothing else may take it.
    slack = await startFakeSlack();
    controllerPort = await closedPort();
    const bot = spawnBot(botEnv(controllerPort.port, 'sim-demo-key-0000'));
    const listening = await bot.waitForLog(isListening);
    await bot.waitForLog((line) => line.msg === 'controller warm-up failed; the first command tries again');
    const base = `http://127.0.0.1:${String(listening.port)}`;
    const health = await fetch(`${base}/healthz`);

    // Act: the controller comes up; a user asks.
    sim = await startSimulator({ port: controllerPort.port, apiVersion: '9.0' });
    const responseUrl = slack.responseUrl();
    const ack = await listVlans(`${base}/slack/events`, responseUrl);
    const current = slack;
    await current.waitFor(() => current.responses.some((r) => responseUrl.endsWith(r.path)), 15_000);

    // Assert
    expect(health.status).toBe(200);
    expect(ack.status).toBe(200);
    const answer = JSON.stringify(slack.responses.find((r) => responseUrl.endsWith(r.path))?.body);
    expect(answer).toContain('IoT');
    expect(sim.requests.map((r) => r.route)).toEqual(
      expect.arrayContaining(['/', '/api/s/default/rest/networkconf']),
    );
  });
});
