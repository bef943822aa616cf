import type { CreateTaskOptions, TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { CallToolResult, CreateTaskResult, Result, Task } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { Approvals } from '../approvals/approvals.js';
import type { ChangeNotifier } from '../approvals/notifier.js';
import type { Actor, ChangeRequest } from '../approvals/types.js';
import type { McpWriteMode } from '../config.js';
import {
  ConflictError,
  isBotError,
  NotAuthorizedError,
  ResourceNotFoundError,
  ValidationError,
} from '../errors.js';
import { redactSecrets } from '../lib/redact.js';
import type { Logger } from '../log.js';
import { type TaskContext, taskOf, taskResultOf, taskStatusOf } from './change-task-view.js';
import { mcpError, mcpErrorText, ProtocolError } from './error-text.js';

/** One page of tasks/list. */
const PAGE = 50;
/** Permalinks kept per session: a message's link never changes, and a poll should not cost a Slack call. */
const LINKS_KEPT = 64;

const CHANGE_ID = /^cr_[a-z2-7]{20}$/;

/** What the task store of one MCP session works with. */
export interface ChangeTaskDeps {
  approvals: Approvals;
  /** Slack in this process: the thread's permalink, and the message edited when a task is cancelled. */
  notifier?: ChangeNotifier;
  logger: Logger;
  writes: McpWriteMode;
  /** Proposes a write as a change request (McpTools.proposeForTask). */
  propose: (name: string, args: Record<string, unknown>, requester: Actor) => Promise<ChangeRequest>;
  /** Whether a tool runs as a task (a write in approval mode). */
  taskSupport: (name: string) => boolean;
}

/**
 * The SDK's TaskStore over the change requests in the store: a task is the change request a
 * write proposed, found by its id, and read from the store at every call (no state in memory).
 * Tasks belong to the token, not to the MCP session: the same holder finds its task again from a
 * new session, after a restart, or on another replica; any other caller is told it does not exist.
 * Tasks are only created by tools/call (`start`), because the change request's id is the task's id.
 */
export class ChangeTaskStore implements TaskStore {
  private readonly links = new Map<string, string>();

  constructor(
    private readonly deps: ChangeTaskDeps,
    /** Who is asking: the session's requester (`mcp:<token label>`). */
    private readonly caller: () => Actor,
  ) {}

  /**
   * tools/call with a `task`: the write proposed as a change request, answered as the task that
   * follows it. What fails before a request exists (bad arguments, the gate refusing the asker)
   * is a JSON-RPC error with the same words a tool error has.
   */
  async start(name: string, args: Record<string, unknown>): Promise<CreateTaskResult> {
    if (!this.deps.taskSupport(name)) {
      throw new ProtocolError(
        ErrorCode.MethodNotFound,
        `${name} does not run as a task: only writes do, with MCP_WRITES=approval; call it without a task`,
      );
    }
    let request: ChangeRequest;
    try {
      request = await this.deps.propose(name, args, this.caller());
    } catch (error) {
      const described = mcpError(error, this.deps.logger, this.deps.writes);
      const code = !isBotError(error)
        ? ErrorCode.InternalError
        : described.code === 'validation_failed' || described.code === 'confirmation_required'
          ? ErrorCode.InvalidParams
          : ErrorCode.InvalidRequest;
      throw new ProtocolError(code, mcpErrorText(described), { error: described });
    }
    return { task: await this.view(request) };
  }

  async createTask(_options: CreateTaskOptions): Promise<Task> {
    throw new ConflictError('a task starts only as a write proposed through tools/call');
  }

  async getTask(taskId: string): Promise<Task | null> {
    const request = await this.own(taskId);
    return request ? this.view(request) : null;
  }

  async storeTaskResult(taskId: string): Promise<void> {
    throw new ConflictError(
      `the result of task ${taskId} is its change request's outcome, recorded by the run`,
    );
  }

  async getTaskResult(taskId: string): Promise<Result> {
    const request = await this.own(taskId);
    if (!request) throw new ProtocolError(ErrorCode.InvalidParams, `task ${taskId} not found`).onTheWire();
    // tasks/get and tasks/result are answered by the SDK's protocol layer: redacted here, as every answer is.
    return redactSecrets(taskResultOf(request, await this.context(request))) as CallToolResult;
  }

  /**
   * Only tasks/cancel changes a task: its change request is cancelled as its requester, through
   * the gate as a Slack Cancel is. A request already approved cannot be cancelled any more.
   */
  async updateTaskStatus(taskId: string, status: Task['status']): Promise<void> {
    if (status !== 'cancelled')
      throw new ConflictError(`task ${taskId} moves with its change request, not by request`);
    // Asked here too, not only by the SDK before it: an approver's token must not cancel others' tasks.
    if (!(await this.own(taskId))) throw new ResourceNotFoundError('task', taskId);
    const outcome = await this.deps.approvals.cancel(taskId, this.caller());
    if (outcome.kind === 'not_found') throw new ResourceNotFoundError('task', taskId);
    if (outcome.kind === 'refused') throw new NotAuthorizedError(`not cancelled: ${outcome.reason}`);
    if (outcome.kind === 'already') {
      const { statusMessage } = taskStatusOf(outcome.request, await this.context(outcome.request));
      throw new ConflictError(
        `not cancelled: change request ${taskId} is ${outcome.request.state} (${statusMessage})`,
      );
    }
    this.deps.logger.info(
      { id: taskId, by: this.caller().userId },
      'change request cancelled by its MCP task',
    );
    await this.showSettled(outcome.request);
  }

  /**
   * The Slack message loses its buttons, as after a Cancel click. Without Slack in this process
   * (`netops mcp` over stdio), or when Slack refuses the edit, the message is marked stale and the
   * Slack bot's sweep edits it. A request no message shows yet needs no mark: a cancelled one is
   * never posted, and the process posting it meanwhile edits it once it records its message.
   */
  private async showSettled(request: ChangeRequest): Promise<void> {
    if (!request.message) return;
    const notifier = this.deps.notifier;
    if (notifier?.refresh) {
      try {
        await notifier.refresh(request);
        return;
      } catch (error) {
        this.deps.logger.warn(
          { err: error, id: request.id },
          'could not edit the message of a cancelled change request; the next sweep does',
        );
      }
    }
    await this.deps.approvals.markMessageStale(request.id).catch((error: unknown) => {
      this.deps.logger.warn(
        { err: error, id: request.id },
        'could not mark the message of a cancelled change request for the Slack bot to edit',
      );
    });
  }

  async listTasks(cursor?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    const offset = cursor === undefined ? 0 : Number(cursor);
    if (!Number.isSafeInteger(offset) || offset < 0)
      throw new ValidationError([{ field: 'params.cursor', rule: 'must be a cursor tasks/list gave' }]);
    const page = await this.deps.approvals.list({
      requester: this.caller().userId,
      withoutSetSteps: true,
      limit: PAGE + 1,
      offset,
    });
    const tasks = await Promise.all(page.slice(0, PAGE).map((request) => this.view(request)));
    return { tasks, ...(page.length > PAGE ? { nextCursor: String(offset + PAGE) } : {}) };
  }

  /** The caller's own change request; another holder's, or none, is not found. */
  private async own(taskId: string): Promise<ChangeRequest | undefined> {
    if (!CHANGE_ID.test(taskId)) return undefined;
    const request = await this.deps.approvals.get(taskId);
    return request && request.requester.userId === this.caller().userId ? request : undefined;
  }

  private async view(request: ChangeRequest): Promise<Task> {
    return redactSecrets(taskOf(request, await this.context(request))) as Task;
  }

  /** The permalink of the request's message, asked of Slack once per session. */
  private async link(request: ChangeRequest): Promise<string | undefined> {
    const message = request.message;
    if (!message || !this.deps.notifier) return undefined;
    const key = `${message.channel}/${message.ts}`;
    const known = this.links.get(key);
    if (known) return known;
    const link = await this.deps.notifier.link(message).catch(() => undefined);
    if (link) {
      this.links.set(key, link);
      if (this.links.size > LINKS_KEPT) this.links.delete(this.links.keys().next().value ?? key);
    }
    return link;
  }

  private async context(request: ChangeRequest): Promise<TaskContext> {
    const link = request.state === 'pending' ? await this.link(request) : undefined;
    return {
      now: this.deps.approvals.now(),
      approvers: this.deps.approvals.policy.approvers,
      ...(link ? { link } : {}),
    };
  }
}
