import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { type App, createApp } from '../../src/app.js';
import type { Approvals } from '../../src/approvals/approvals.js';
import { loadConfig } from '../../src/config.js';
import type { Consoles } from '../../src/consoles/consoles.js';
import type { GatewayOptions } from '../../src/gateway/index.js';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { type Logger, silentLogger } from '../../src/log.js';
import { mcpKit } from '../../src/mcp/mcp-kit.js';
import { loadPolicy } from '../../src/policy-startup.js';
import { type Simulator, type SimulatorOptions, startSimulator } from '../../src/simulator/index.js';
import { slackKit } from '../../src/slack/slack-kit.js';
import { FileStore } from '../../src/store/file/file-store.js';
import type { Store } from '../../src/store/types.js';
import { type FakeSlack, startFakeSlack } from './fake-slack.js';
import { buttonsOf } from './slack-buttons.js';
import { buttonBody, commandBody, slackHeaders, viewSubmissionBody } from './slack-requests.js';
import { testGateway } from './test-gateway.js';

export const SIGNING_SECRET = 'test-signing-secret';

/** The whole bot in HTTP mode: real Bolt receiver, a fake Slack Web API, the simulator as controller. */
export interface SlackBot {
  app: App;
  approvals: Approvals;
  slack: FakeSlack;
  sim: Simulator;
  dataDir: string;
  port: number;
  /** The `ready` of `start()`: Slack answered auth.test (rejects when it refused the token). */
  ready: Promise<boolean>;
  /** POSTs a raw body to /slack/events, signed unless headers are given. */
  post(body: string, headers?: Record<string, string>): Promise<{ status: number; text: string }>;
  command(
    text: string,
    userId?: string,
    channel?: string,
  ): Promise<{ status: number; text: string; responseUrl: string }>;
  click(
    actionId: 'approve' | 'cancel',
    requestId: string,
    userId: string,
  ): Promise<{ status: number; responseUrl: string }>;
  submit(
    userId: string,
    privateMetadata: string,
    values: Record<string, Record<string, unknown>>,
  ): Promise<{ status: number; text: string }>;
  /**
   * `/net <text>` for a write, by `userId` in C1: waits for its preview and for the request to
   * record its message; the request id and the message ts.
   */
  propose(text: string, userId?: string): Promise<{ id: string; ts: string }>;
  close(): Promise<void>;
}

/**
 * Options: extra environment, a shared data dir (restart tests), a clock, an existing simulator,
 * an opened store (PostgreSQL tests; the bot closes it), or options for a new simulator
 * (`{firewall: 'legacy'}` for the traditional-rule demo site). Default: the file store in the
 * data dir, bot data in memory.
 */
export async function startSlackBot(
  options: {
    env?: Record<string, string>;
    dataDir?: string;
    now?: () => number;
    sim?: Simulator;
    store?: Store;
    simulator?: SimulatorOptions;
    /** Build the MCP front end too (POST /mcp when MCP_TOKEN is in `env`). */
    mcp?: boolean;
    /** auth.test answers this Slack error until the test clears `slack.authTestError`. */
    authTestError?: string;
    /** Gateway options over the test defaults: a session login, or a `url` in front of the simulator. */
    gateway?: Partial<GatewayOptions>;
    /** Where the bot logs (captureLogger() to read the lines); silent by default. */
    logger?: Logger;
    /** A fleet's consoles (CONSOLES_FILE's, built by the test) instead of the one simulator. */
    consoles?: Consoles;
  } = {},
): Promise<SlackBot> {
  const slack = await startFakeSlack();
  if (options.authTestError) slack.authTestError = options.authTestError;
  const sim = options.sim ?? (await startSimulator(options.simulator));
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'netops-slack-'));
  const config = loadConfig({
    SLACK_BOT_TOKEN: 'xoxb-test-token',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    PORT: '0',
    DATA_DIR: dataDir,
    ...options.env,
  });
  const logger = options.logger ?? silentLogger();
  const first = options.consoles?.list()[0]?.name;
  // A fleet's background work runs on its first console, as main.ts wires it.
  const gateway =
    options.consoles && first !== undefined
      ? options.consoles.gateway(first)
      : testGateway(sim, {
          retry: { attempts: 2, budgetMs: 1500, baseDelayMs: 10, maxDelayMs: 50 },
          timeoutMs: 1000,
          ...options.gateway,
        });
  const app = createApp({
    config,
    logger,
    gateway,
    store: options.store ?? new FileStore(dataDir, { data: new MemoryStore() }),
    policy: await loadPolicy(config),
    slackKit,
    ...(options.consoles ? { consoles: options.consoles } : {}),
    ...(options.mcp ? { mcpKit } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  const approvals = app.approvals;
  if (!approvals) throw new Error('a Slack-configured app must own the approvals');
  const started = await app.slack?.start();
  const port = started?.port;
  if (!port || !started) throw new Error('the Slack front end did not start in HTTP mode');
  const events = `http://127.0.0.1:${port}/slack/events`;
  const post = async (body: string, headers?: Record<string, string>) => {
    const response = await fetch(events, {
      method: 'POST',
      headers: headers ?? slackHeaders(SIGNING_SECRET, body),
      body,
    });
    return { status: response.status, text: await response.text() };
  };
  const command: SlackBot['command'] = async (text, userId = 'U1', channel = 'C1') => {
    const responseUrl = slack.responseUrl();
    const result = await post(
      commandBody({ text, user_id: userId, channel_id: channel, response_url: responseUrl }),
    );
    return { ...result, responseUrl };
  };
  return {
    app,
    approvals,
    slack,
    sim,
    dataDir,
    port,
    ready: started.ready,
    post,
    command,
    async click(actionId, requestId, userId) {
      const responseUrl = slack.responseUrl();
      const result = await post(
        buttonBody({ actionId, value: requestId, userId, response_url: responseUrl }),
      );
      return { status: result.status, responseUrl };
    },
    submit: (userId, privateMetadata, values) =>
      post(viewSubmissionBody({ userId, privateMetadata, values })),
    async propose(text, userId = 'U1') {
      const previews = () => slack.callsOf('chat.postMessage').filter((c) => !c.args.thread_ts);
      const before = previews().length;
      await command(text, userId);
      await slack.waitFor(() => previews().length > before);
      const id = buttonsOf(previews().at(-1)).find((x) => x.action_id === 'approve')?.value;
      if (!id) throw new Error(`no Approve button on the preview of "${text}"`);
      await slack.waitFor(async () => (await approvals.get(id))?.message !== undefined);
      return { id, ts: String((await approvals.get(id))?.message?.ts) };
    },
    async close() {
      await app.close();
      await slack.close();
      if (!options.sim) await sim.close();
    },
  };
}

/**
 * Starts the Slack bots a test asks for; after the test each is checked by `check` (what every
 * message it sent must satisfy) and closed, even when the check fails.
 */
export function useSlackBots(
  check?: (bot: SlackBot) => void,
): (options?: Parameters<typeof startSlackBot>[0]) => Promise<SlackBot> {
  const bots: SlackBot[] = [];
  afterEach(async () => {
    for (const b of bots.splice(0)) {
      try {
        check?.(b);
      } finally {
        await b.close();
      }
    }
  });
  return async (options) => {
    const started = await startSlackBot(options);
    bots.push(started);
    return started;
  };
}
