// MCP tasks on the built bot (`node dist/main.js`, environment variables only): an agent proposes a
// write as a task over POST /mcp with the SDK's own client, people decide it in Slack (signed
// clicks to the bot's /slack/events), and the task follows its change request to the end, across a
// restart of the bot.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  CreateTaskResultSchema,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BotProcess, MAIN, slackHttpEnv, spawnBot, stopAllBots } from '../helpers/bot-process.js';
import { textOf } from '../helpers/mcp.js';
import { useTestDatabase } from '../helpers/postgres.js';
import { buttonsOf } from '../helpers/slack-buttons.js';
import { buttonBody, slackHeaders } from '../helpers/slack-requests.js';
import { useSlackRig } from '../helpers/slack-rig.js';

const SIGNING = 'process-mcp-tasks-signing-secret';
const SECRET = 'process-mcp-tasks-agent-0123456789';
const OTHER_SECRET = 'process-mcp-tasks-other-0123456789';
const CHANNEL = 'C0NETOPS';
const TTL_SECONDS = 30;
/** The replicas' lease on PostgreSQL; their sweep runs every third of it (every second). */
const LEASE_SECONDS = 3;

const rig = useSlackRig({ apiVersion: '9.0' });
const dataDir = mkdtempSync(join(tmpdir(), 'netops-mcp-tasks-'));
let bot: BotProcess;
let port: number;

async function startBot(): Promise<void> {
  bot = spawnBot({
    ...slackHttpEnv(rig.slack, SIGNING, rig.sim),
    DATA_DIR: dataDir,
    MCP_TOKEN: `U0AGENT:${SECRET},U0OTHER:${OTHER_SECRET}`,
    MCP_APPROVAL_CHANNEL: CHANNEL,
    APPROVERS: 'U0BOB,U0CAROL',
    APPROVAL_TTL_SECONDS: String(TTL_SECONDS),
  });
  port = await bot.listeningPort(20_000);
}

async function connect(token = SECRET): Promise<Client> {
  const client = new Client({ name: 'tasks-agent', version: '2.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** A signed click on the preview of change `id` in the approval channel, sent to the bot on `at`. */
async function click(
  actionId: 'approve' | 'cancel',
  id: string,
  userId: string,
  at: number = port,
): Promise<void> {
  const body = buttonBody({
    actionId,
    value: id,
    userId,
    channel: CHANNEL,
    response_url: rig.slack.responseUrl(),
  });
  const answer = await fetch(`http://127.0.0.1:${at}/slack/events`, {
    method: 'POST',
    headers: slackHeaders(SIGNING, body),
    body,
  });
  expect(answer.status).toBe(200);
}

/** tools/call create_network with task augmentation: the task it answers with. */
async function proposeTask(client: Client, vlan: number): Promise<Task> {
  const created = await client.request(
    {
      method: 'tools/call',
      params: {
        name: 'create_network',
        arguments: { name: `Lab${vlan}`, vlan_id: vlan, subnet: `10.${vlan}.0.0/24`, confirm: true },
        task: {},
      },
    },
    CreateTaskResultSchema,
  );
  return created.task;
}

/** Polls tasks/get (as a client does, at the task's poll interval) until `done` holds. */
async function pollUntil(client: Client, id: string, done: (task: Task) => boolean): Promise<Task> {
  const until = Date.now() + 20_000;
  for (;;) {
    const task = await client.experimental.tasks.getTask(id);
    if (done(task)) return task;
    if (Date.now() > until) throw new Error(`task ${id} stayed ${task.status}: ${task.statusMessage}`);
    await new Promise((r) => setTimeout(r, Math.min(task.pollInterval ?? 1000, 500)));
  }
}

const previewOf = (id: string) =>
  rig.slack
    .callsOf('chat.postMessage')
    .find(
      (c) => c.args.channel === CHANNEL && !c.args.thread_ts && JSON.stringify(c.args.blocks).includes(id),
    );
const networkPosts = () =>
  rig.sim.requests.filter((r) => r.method === 'POST' && r.route.endsWith('rest/networkconf'));

describe('MCP tasks on the built bot, MCP_WRITES=approval', () => {
  let client: Client;
  // Proposed first and left alone: it expires while the other tests run.
  let expiring: Task;
  beforeAll(async () => {
    await startBot();
    client = await connect();
    expiring = await proposeTask(client, 81);
  }, 40_000);
  afterAll(async () => {
    await client?.close().catch(() => {});
    await stopAllBots();
  });

  it('a write as a task: working with the approvers and the thread named, approved in Slack, completed with the verification', async () => {
    const messages: { type: string; task?: Task; result?: CallToolResult }[] = [];
    let approved = false;
    const stream = client.experimental.tasks.callToolStream(
      {
        name: 'create_network',
        arguments: { name: 'Lab82', vlan_id: 82, subnet: '10.82.0.0/24', confirm: true },
      },
      CallToolResultSchema,
      { task: {} },
    );
    for await (const message of stream) {
      messages.push(message as never);
      if (message.type === 'taskStatus' && !approved) {
        expect(networkPosts()).toEqual([]);
        approved = true;
        await click('approve', message.task.taskId, 'U0BOB');
      }
    }
    const created = messages[0]?.task as Task;
    expect(messages[0]?.type).toBe('taskCreated');
    expect(created.status).toBe('working');
    expect(created.statusMessage).toContain('1 more approval needed (0 of 1 given) from U0BOB or U0CAROL');
    const preview = previewOf(created.taskId);
    expect(preview).toBeDefined();
    expect(created.statusMessage).toContain(
      `thread: https://example.slack.com/archives/${CHANNEL}/p${String(preview?.answer?.ts ?? '').replace('.', '')}`,
    );
    const last = messages.at(-1);
    expect(last?.type).toBe('result');
    expect(last?.result?.structuredContent).toMatchObject({
      success: true,
      network: { name: 'Lab82', vlan_id: 82 },
      change_id: created.taskId,
      verification: 'verified',
    });
    expect(textOf(last?.result as CallToolResult)).toContain('verification: verified');
    const statuses = messages.filter((m) => m.type === 'taskStatus').map((m) => m.task?.status);
    expect(statuses.at(-1)).toBe('completed');
    expect(networkPosts()).toHaveLength(1);
  });

  it('another token holder does not find the task', async () => {
    const tasks = await client.experimental.tasks.listTasks();
    const other = await connect(OTHER_SECRET);
    try {
      expect((await other.experimental.tasks.listTasks()).tasks).toEqual([]);
      await expect(other.experimental.tasks.getTask(tasks.tasks[0]?.taskId ?? '')).rejects.toThrow(
        /not found/i,
      );
    } finally {
      await other.close();
    }
  });

  it('a run the controller refuses ends the task failed, with the reason', async () => {
    const task = await proposeTask(client, 83);
    rig.sim.injectFault({ kind: 'status', status: 400, method: 'POST', route: 'rest/networkconf' });
    try {
      await click('approve', task.taskId, 'U0CAROL');
      const failed = await pollUntil(client, task.taskId, (t) => t.status !== 'working');
      expect(failed.status).toBe('failed');
      expect(failed.statusMessage).toMatch(/^the run failed: /);
    } finally {
      rig.sim.clearFaults();
    }
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ change_id: task.taskId, state: 'failed' });
  });

  it('an approver’s Cancel in Slack ends the task cancelled, naming who', async () => {
    const task = await proposeTask(client, 84);
    await click('cancel', task.taskId, 'U0BOB');
    const cancelled = await pollUntil(client, task.taskId, (t) => t.status !== 'working');
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.statusMessage).toMatch(/^cancelled by .+; not run$/);
  });

  it('the agent cancels its own task: the change request is cancelled and its Slack message loses its buttons', async () => {
    const task = await proposeTask(client, 85);
    const preview = previewOf(task.taskId);
    expect(buttonsOf(preview).map((b) => b.action_id)).toContain('approve');
    const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.statusMessage).toBe('cancelled by “tasks-agent 2.0” via MCP (token U0AGENT); not run');
    await rig.slack.waitFor(
      () =>
        rig.slack
          .callsOf('chat.update')
          .some(
            (c) => c.args.ts === preview?.answer?.ts && buttonsOf(c).every((b) => b.action_id !== 'approve'),
          ),
      10_000,
    );
    // A click on the stale button afterwards runs nothing.
    await click('approve', task.taskId, 'U0BOB');
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('cancelled');
    expect(networkPosts().filter((r) => JSON.stringify(r.body).includes('Lab85'))).toEqual([]);
  });

  it('a task survives a restart of the bot: still working, then approved on the new process and completed', async () => {
    const task = await proposeTask(client, 86);
    await client.close().catch(() => {});
    await bot.stop('SIGKILL');
    await startBot();
    client = await connect();
    const waiting = await client.experimental.tasks.getTask(task.taskId);
    expect(waiting.status).toBe('working');
    expect(waiting.statusMessage).toContain('from U0BOB or U0CAROL');
    await click('approve', task.taskId, 'U0CAROL');
    const done = await pollUntil(client, task.taskId, (t) => t.status !== 'working');
    expect(done.status).toBe('completed');
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.structuredContent).toMatchObject({ change_id: task.taskId, verification: 'verified' });
  }, 40_000);

  it('an unapproved task ends cancelled when its change request expires, saying so', async () => {
    const wait = Date.parse(expiring.createdAt) + TTL_SECONDS * 1000 - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait + 200));
    const ended = await client.experimental.tasks.getTask(expiring.taskId);
    expect(ended.status).toBe('cancelled');
    expect(ended.statusMessage).toMatch(/^expired at \S+ before enough people approved it; not run$/);
  }, 45_000);
});

describe('MCP tasks across two replicas on one PostgreSQL', () => {
  const db = useTestDatabase();
  const replicas: { bot: BotProcess; port: number }[] = [];
  const clients: Client[] = [];
  beforeAll(async () => {
    const env = {
      ...slackHttpEnv(rig.slack, SIGNING, rig.sim),
      DATABASE_URL: db.url,
      MCP_TOKEN: `U0AGENT:${SECRET},U0OTHER:${OTHER_SECRET}`,
      MCP_APPROVAL_CHANNEL: CHANNEL,
      APPROVERS: 'U0BOB,U0CAROL',
      // A sweep every second: what `netops mcp` over stdio leaves for Slack is shown within seconds.
      REPLICA_LEASE_SECONDS: String(LEASE_SECONDS),
    };
    for (const started of await Promise.all(
      [spawnBot(env), spawnBot(env)].map(async (replica) => ({
        bot: replica,
        port: await replica.listeningPort(20_000),
      })),
    ))
      replicas.push(started);
    for (const { port: at } of replicas) clients.push(await connectTo(at));
  }, 40_000);
  afterAll(async () => {
    await Promise.all([...clients, ...(stdio ? [stdio] : [])].map((c) => c.close().catch(() => {})));
    await stopAllBots();
  });
  let stdio: Client | undefined;

  /** An SDK client of the replica listening on `at`. */
  async function connectTo(at: number, token = SECRET): Promise<Client> {
    const client = new Client({ name: 'tasks-agent', version: '2.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${at}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  }

  it('proposed on one replica, followed and approved on the other, completed on both', async () => {
    const [onA, onB] = clients as [Client, Client];
    const [, second] = replicas as [unknown, { port: number }];
    const task = await proposeTask(onA, 91);
    const seenOnB = await onB.experimental.tasks.getTask(task.taskId);
    expect(seenOnB.status).toBe('working');
    expect(seenOnB.statusMessage).toContain('from U0BOB or U0CAROL');
    await click('approve', task.taskId, 'U0BOB', second.port);
    const done = await pollUntil(onA, task.taskId, (t) => t.status !== 'working');
    expect(done.status).toBe('completed');
    const result = await onB.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.structuredContent).toMatchObject({
      network: { name: 'Lab91', vlan_id: 91 },
      change_id: task.taskId,
      verification: 'verified',
    });
  });

  it('cancelled by its agent on the other replica; another token finds it on neither', async () => {
    const [onA, onB] = clients as [Client, Client];
    const task = await proposeTask(onA, 92);
    expect((await onB.experimental.tasks.cancelTask(task.taskId)).status).toBe('cancelled');
    expect((await onA.experimental.tasks.getTask(task.taskId)).statusMessage).toMatch(
      /^cancelled by .+ via MCP \(token U0AGENT\); not run$/,
    );
    for (const { port: at } of replicas) {
      const other = await connectTo(at, OTHER_SECRET);
      try {
        await expect(other.experimental.tasks.getTask(task.taskId)).rejects.toThrow(/not found/i);
      } finally {
        await other.close();
      }
    }
  });

  it('cancelled by its agent over stdio, where no Slack runs: the Slack message loses its buttons within a sweep', async () => {
    // `netops mcp` over stdio: a process of its own on the replicas' PostgreSQL, without Slack.
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN, 'mcp'],
      env: {
        DATA_DIR: mkdtempSync(join(tmpdir(), 'netops-mcp-tasks-stdio-')),
        DATABASE_URL: db.url,
        GATEWAY_URL: rig.sim.url,
        GATEWAY_API_KEY: rig.sim.apiKey,
        MCP_WRITES: 'approval',
        MCP_APPROVAL_CHANNEL: CHANNEL,
        APPROVERS: 'U0BOB,U0CAROL',
      },
      stderr: 'pipe',
    });
    stdio = new Client({ name: 'tasks-agent', version: '2.0' });
    await stdio.connect(transport);
    const task = await proposeTask(stdio, 93);
    // Nobody posts it in that process: a replica's sweep does.
    await rig.slack.waitFor(() => previewOf(task.taskId) !== undefined, 15_000);
    const preview = previewOf(task.taskId);
    expect(buttonsOf(preview).map((b) => b.action_id)).toContain('approve');
    // The replica records its message right after Slack's answer: cancelled before, it would be
    // posted as cancelled; this case is the message already showing the buttons.
    await rig.slack.waitFor(async () => {
      const found = (await stdio?.callTool({
        name: 'get_change_request',
        arguments: { change_request_id: task.taskId },
      })) as CallToolResult | undefined;
      return 'slack_message' in (found?.structuredContent ?? {});
    }, 5_000);
    const editsOf = () => rig.slack.callsOf('chat.update').filter((c) => c.args.ts === preview?.answer?.ts);
    expect(editsOf()).toEqual([]);
    expect((await stdio.experimental.tasks.cancelTask(task.taskId)).status).toBe('cancelled');
    // The sweep runs every LEASE_SECONDS / 3; two of them, and the edit has been made.
    await rig.slack.waitFor(
      () => editsOf().some((c) => buttonsOf(c).every((b) => b.action_id !== 'approve')),
      (LEASE_SECONDS * 1000 * 2) / 3 + 2_000,
    );
    const edited = editsOf().find((c) => buttonsOf(c).every((b) => b.action_id !== 'approve'));
    expect(JSON.stringify(edited?.args.blocks)).toMatch(/[Cc]ancelled/);
    // Edited once its mark is found, then the mark is gone: later sweeps edit it no more.
    const edits = editsOf().length;
    await new Promise((r) => setTimeout(r, (LEASE_SECONDS * 1000 * 2) / 3 + 500));
    expect(editsOf()).toHaveLength(edits);
    // A click on a stale copy of its buttons runs nothing.
    await click('approve', task.taskId, 'U0BOB', (replicas[0] as { port: number }).port);
    expect(networkPosts().filter((r) => JSON.stringify(r.body).includes('Lab93'))).toEqual([]);
  }, 40_000);
});
