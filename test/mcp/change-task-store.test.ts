import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  CreateTaskResultSchema,
  ErrorCode,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { ConflictError, ResourceNotFoundError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import { ChangeTaskStore } from '../../src/mcp/change-task-store.js';
import { STALE_MESSAGE_PREFIX } from '../../src/model/change-request.js';
import { type McpBot, textOf, useApprovalMcpBot } from '../helpers/mcp.js';

// MCP tasks over change requests, in process: the SDK's client on an in-memory transport, the
// approvals decided directly (Slack's part is the process test's: process/mcp-tasks.test.ts).

const LAB = { name: 'Lab', vlan_id: 45, subnet: '10.45.0.0/24', confirm: true };

/** A second client of the same front end, as the holder of `label`. */
async function clientAs(bot: McpBot, label: string, name = 'other-assistant'): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name, version: '1.0' });
  await bot.app.mcp?.connect(serverSide, label);
  await client.connect(clientSide);
  return client;
}

/** tools/call with task augmentation: the CreateTaskResult's task. */
async function startTask(client: Client, name: string, args: Record<string, unknown>) {
  const created = await client.request(
    { method: 'tools/call', params: { name, arguments: args, task: { ttl: 60_000 } } },
    CreateTaskResultSchema,
  );
  return created.task;
}

/** A create_network task by `client` for the lab network `name` on VLAN `vlan` (subnet 10.<vlan>.0.0/24). */
function startLabTask(client: Client, name: string, vlan: number) {
  return startTask(client, 'create_network', { ...LAB, name, vlan_id: vlan, subnet: `10.${vlan}.0.0/24` });
}

describe('MCP tasks, MCP_WRITES=approval', () => {
  const { bot, approvals } = useApprovalMcpBot();
  /** The stale-message mark of request `id` in the store's data. */
  const markOf = (id: string) => bot.app.context.store.get(`${STALE_MESSAGE_PREFIX}${id}`);

  it('declares tasks and lists the writes as optionally tasks, saying nobody approves over MCP', async () => {
    expect(bot.client.getServerCapabilities()?.tasks).toEqual({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const { tools } = await bot.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of ['create_network', 'revert_change', 'propose_change_set']) {
      expect(byName.get(name)?.execution).toEqual({ taskSupport: 'optional' });
      expect(byName.get(name)?.description).toContain('There is no approve over MCP');
    }
    expect(byName.get('list_vlans')?.execution).toBeUndefined();
    expect(byName.get('get_change_request')?.execution).toBeUndefined();
  });

  it('a write as a task: working with the approvers named, then completed with the result and verification', async () => {
    const task = await startTask(bot.client, 'create_network', LAB);
    expect(task.taskId).toMatch(/^cr_[a-z2-7]{20}$/);
    expect(task.status).toBe('working');
    expect(task.statusMessage).toMatch(/1 more approval needed \(0 of 1 given\) from U0BOB or U0CAROL/);
    expect(bot.writes()).toEqual([]);
    const stored = await approvals().get(task.taskId);
    expect(stored).toMatchObject({ state: 'pending', requester: { userId: 'mcp:U0AGENT' } });

    const polled = await bot.client.experimental.tasks.getTask(task.taskId);
    expect(polled).toMatchObject({ taskId: task.taskId, status: 'working', ttl: null });

    const outcome = await approvals().approve(task.taskId, { userId: 'U0BOB', name: 'Bob' });
    expect(outcome.kind).toBe('succeeded');
    const done = await bot.client.experimental.tasks.getTask(task.taskId);
    expect(done.status).toBe('completed');
    expect(done.statusMessage).toBe('approved by Bob and run; verified');
    const result = (await bot.client.experimental.tasks.getTaskResult(
      task.taskId,
      CallToolResultSchema,
    )) as CallToolResult;
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({
      success: true,
      network: { name: 'Lab', vlan_id: 45 },
      change_id: task.taskId,
      verification: 'verified',
    });
    expect(textOf(result)).toMatch(/verification: verified/);
  });

  it('the agent cancels its own task: its change request is cancelled as its requester', async () => {
    const task = await startLabTask(bot.client, 'Lab2', 46);
    const cancelled = await bot.client.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.statusMessage).toMatch(
      /^cancelled by “test-assistant 9\.9” via MCP \(token U0AGENT\); not run$/,
    );
    expect(await approvals().get(task.taskId)).toMatchObject({
      state: 'cancelled',
      cancelledBy: { userId: 'mcp:U0AGENT' },
    });
    const result = (await bot.client.experimental.tasks.getTaskResult(
      task.taskId,
      CallToolResultSchema,
    )) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ change_id: task.taskId, state: 'cancelled' });
    // A task that ended cannot be cancelled again.
    await expect(bot.client.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(/terminal status/);
    expect(bot.writes()).toHaveLength(1);
  });

  it('a task that ran can no longer be cancelled', async () => {
    const task = await startLabTask(bot.client, 'Lab3', 47);
    // Approved by the other approver; the agent tries to withdraw it afterwards.
    expect((await approvals().approve(task.taskId, { userId: 'U0CAROL' })).kind).toBe('succeeded');
    await expect(bot.client.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(
      /terminal status: completed/,
    );
  });

  it('a run the controller refuses fails the task with the reason', async () => {
    const task = await startLabTask(bot.client, 'Lab4', 48);
    bot.sim.injectFault({
      kind: 'status',
      status: 400,
      method: 'POST',
      route: /rest\/networkconf|\/networks$/,
    });
    try {
      expect((await approvals().approve(task.taskId, { userId: 'U0BOB' })).kind).toBe('failed');
    } finally {
      bot.sim.clearFaults();
    }
    const failed = await bot.client.experimental.tasks.getTask(task.taskId);
    expect(failed.status).toBe('failed');
    expect(failed.statusMessage).toMatch(/^the run failed: /);
    const result = (await bot.client.experimental.tasks.getTaskResult(
      task.taskId,
      CallToolResultSchema,
    )) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(failed.statusMessage);
  });

  it('an expired change request ends its task cancelled, saying it expired', async () => {
    const task = await startLabTask(bot.client, 'Lab5', 49);
    const expired = await bot.app.store.changes().expireDue(Date.now() + 24 * 3600_000);
    expect(expired.map((r) => r.id)).toContain(task.taskId);
    const ended = await bot.client.experimental.tasks.getTask(task.taskId);
    expect(ended.status).toBe('cancelled');
    expect(ended.statusMessage).toMatch(/^expired at .* before enough people approved it; not run$/);
  });

  it('another token holder finds none of these tasks; a new session of the same token finds them all', async () => {
    const listed = await bot.client.experimental.tasks.listTasks();
    const ids = listed.tasks.map((t) => t.taskId);
    expect(ids.length).toBeGreaterThanOrEqual(5);
    const other = await clientAs(bot, 'U0OTHER');
    const same = await clientAs(bot, 'U0AGENT', 'test-assistant');
    try {
      const id = ids[0] ?? '';
      await expect(other.experimental.tasks.getTask(id)).rejects.toThrow(/not found/i);
      await expect(other.experimental.tasks.getTaskResult(id, CallToolResultSchema)).rejects.toThrow(
        /not found/i,
      );
      await expect(other.experimental.tasks.cancelTask(id)).rejects.toThrow(/not found/i);
      expect((await other.experimental.tasks.listTasks()).tasks).toEqual([]);
      expect((await same.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toEqual(ids);
      expect((await same.experimental.tasks.getTask(id)).taskId).toBe(id);
    } finally {
      await Promise.all([other.close(), same.close()]);
    }
  });

  it('the store itself never lets another token cancel a task, not even an approver’s', async () => {
    const task = await startLabTask(bot.client, 'Lab7', 72);
    const storeOf = (label: string) =>
      new ChangeTaskStore(
        {
          approvals: approvals(),
          logger: silentLogger(),
          writes: 'approval',
          propose: async () => {
            throw new Error('not proposed here');
          },
          taskSupport: () => true,
        },
        () => ({ userId: `mcp:${label}` }),
      );
    // U0BOB is an approver: as a person in Slack they may cancel it, their token may not.
    await expect(storeOf('U0BOB').updateTaskStatus(task.taskId, 'cancelled')).rejects.toBeInstanceOf(
      ResourceNotFoundError,
    );
    expect(await storeOf('U0BOB').getTask(task.taskId)).toBeNull();
    await expect(storeOf('U0AGENT').updateTaskStatus(task.taskId, 'completed')).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect((await approvals().get(task.taskId))?.state).toBe('pending');
    await storeOf('U0AGENT').updateTaskStatus(task.taskId, 'cancelled');
    expect((await approvals().get(task.taskId))?.state).toBe('cancelled');
  });

  it('refuses as JSON-RPC errors what cannot become a change request: a read, a dry run, no confirm', async () => {
    await expect(startTask(bot.client, 'list_vlans', {})).rejects.toMatchObject({
      code: ErrorCode.MethodNotFound,
    });
    await expect(
      startTask(bot.client, 'create_network', { ...LAB, confirm: undefined, dry_run: true }),
    ).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringContaining('dry_run: a dry run answers at once'),
    });
    await expect(
      startTask(bot.client, 'create_network', { ...LAB, confirm: undefined }),
    ).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringContaining('not run: create_network changes the network'),
    });
    await expect(startTask(bot.client, 'create_network', { ...LAB, vlan_id: 'x' })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringContaining('vlan_id'),
    });
  });

  it('a call without a task keeps the change_id answer', async () => {
    const result = await bot.call('create_network', {
      ...LAB,
      name: 'Lab6',
      vlan_id: 71,
      subnet: '10.71.0.0/24',
    });
    expect(result.structuredContent).toMatchObject({
      change_id: expect.stringMatching(/^cr_/),
      state: 'pending',
    });
    expect(result).not.toHaveProperty('task');
  });

  it('cancelled where no Slack runs: a posted request is marked for the Slack bot to edit, an unposted one is not', async () => {
    const posted = await startLabTask(bot.client, 'Lab8', 73);
    await approvals().attachMessage(posted.taskId, { channel: 'C0NETOPS', ts: '1700000000.000100' });
    const unposted = await startLabTask(bot.client, 'Lab9', 74);
    expect(await markOf(posted.taskId)).toBeUndefined();
    for (const task of [posted, unposted]) await bot.client.experimental.tasks.cancelTask(task.taskId);
    expect(await markOf(posted.taskId)).toEqual({ at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(await markOf(unposted.taskId)).toBeUndefined();
    expect((await approvals().staleMessages()).map((m) => m.id)).toContain(posted.taskId);
    expect((await approvals().staleMessages()).map((m) => m.id)).not.toContain(unposted.taskId);
  });

  it('with Slack in the process the message is edited at once and not marked; an edit Slack refuses is marked', async () => {
    const refreshed: string[] = [];
    let refuse = false;
    const store = new ChangeTaskStore(
      {
        approvals: approvals(),
        notifier: {
          announce: async () => undefined,
          link: async () => undefined,
          refresh: async (request) => {
            if (refuse) throw new Error('channel_not_found');
            refreshed.push(`${request.id}:${request.state}`);
          },
        },
        logger: silentLogger(),
        writes: 'approval',
        propose: async () => {
          throw new Error('not proposed here');
        },
        taskSupport: () => true,
      },
      () => ({ userId: 'mcp:U0AGENT' }),
    );
    const edited = await startLabTask(bot.client, 'Lab10', 75);
    const refused = await startLabTask(bot.client, 'Lab11', 76);
    for (const task of [edited, refused])
      await approvals().attachMessage(task.taskId, {
        channel: 'C0NETOPS',
        ts: `1700000000.0002${task.taskId.length}`,
      });
    await store.updateTaskStatus(edited.taskId, 'cancelled');
    expect(refreshed).toEqual([`${edited.taskId}:cancelled`]);
    expect(await markOf(edited.taskId)).toBeUndefined();
    refuse = true;
    await store.updateTaskStatus(refused.taskId, 'cancelled');
    expect((await approvals().get(refused.taskId))?.state).toBe('cancelled');
    expect(await markOf(refused.taskId)).toEqual({ at: expect.any(String) });
  });
});
