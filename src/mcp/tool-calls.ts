import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Approvals } from '../approvals/approvals.js';
import { deadlineLine, guardrailFields, guardrailLines, verdictLine } from '../approvals/guardrail-view.js';
import type { ChangeNotifier } from '../approvals/notifier.js';
import type { Actor, ChangeRequest, MessageRef } from '../approvals/types.js';
import { stepLines } from '../changes/change-set.js';
import { timingText, verificationText } from '../changes/describe.js';
import { splitMetaArgs } from '../changes/meta-args.js';
import type { McpWriteMode } from '../config.js';
import { ConfirmationRequiredError, ConflictError, NotAuthorizedError, ValidationError } from '../errors.js';
import { render } from '../format/plain-text.js';
import { isRecord } from '../lib/is-record.js';
import { type Logger, scrubSecrets } from '../log.js';
import type { ToolContext } from '../tools/core/define-tool.js';
import type { ToolRegistry } from '../tools/core/registry.js';
import {
  changeRequestIdOf,
  changeRequestTool,
  changeRequestView,
  GET_CHANGE_REQUEST,
  PROPOSE_CHANGE_SET,
  proposeChangeSetTool,
  REVERT_CHANGE,
  requireRequest,
  revertArgsOf,
  revertChangeTool,
  setArgsOf,
} from './change-request-tool.js';
import { mcpError, toolErrorResult } from './error-text.js';
import { registryToolsFor } from './tool-catalog.js';

/** What the MCP front end works with; app.ts builds it from the same parts as the other front ends. */
export interface McpDeps {
  registry: ToolRegistry;
  context: ToolContext;
  logger: Logger;
  defaultSite: string;
  writes: McpWriteMode;
  /** Change requests and the journal: every write through MCP is recorded (unless writes are off). */
  approvals?: Approvals;
  /** MCP_APPROVAL_CHANNEL: where change requests from MCP clients are posted (approval mode). */
  approvalChannel?: string;
  /**
   * Slack in this process (POST /mcp inside the bot): posts a proposal at once. Over stdio there
   * is none, and the Slack bot's sweep posts it.
   */
  notifier?: ChangeNotifier;
}

/** Meta key of the change request that journals a write run in confirm mode. */
export const CHANGE_REQUEST_META = 'netops/change_request_id';

/** A result as MCP returns it: structured (an object as is, anything else under `result`) and as text. */
export function toolResult(result: unknown, meta?: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: 'text', text: render(result) }],
    structuredContent: isRecord(result) ? result : { result: result ?? null },
    ...(meta ? { _meta: meta } : {}),
  };
}

/** What a write listed in approval mode adds: it runs as a task, and nobody approves over MCP. */
const TASK_NOTE =
  'Called as an MCP task, it stays working while it waits for approval in Slack and while it runs, then completes with the result and its verification (tasks/get, tasks/result); tasks/cancel withdraws it while it waits. There is no approve over MCP: an agent can never approve its own change.';

/** A tool as listed when it may run as a task. */
function asTaskTool(tool: Tool): Tool {
  return { ...tool, description: `${tool.description} ${TASK_NOTE}`, execution: { taskSupport: 'optional' } };
}

/** The registry's tools over MCP: listing, and calls with the write mode's rules. */
export class McpTools {
  private readonly catalog: Tool[];
  /** A fleet's console names, which every call must choose among; undefined with one console. */
  readonly fleetConsoles: readonly string[] | undefined;

  constructor(private readonly deps: McpDeps) {
    if (deps.writes !== 'off' && !deps.approvals) {
      throw new Error(
        `MCP_WRITES=${deps.writes} journals every write: the MCP front end needs the approvals`,
      );
    }
    if (deps.writes === 'approval' && !deps.approvalChannel) {
      throw new Error('MCP_WRITES=approval needs MCP_APPROVAL_CHANNEL');
    }
    const port = deps.context.consoles;
    this.fleetConsoles = port?.fleet === true ? port.list().map((each) => each.name) : undefined;
    const tools = registryToolsFor(deps.registry, {
      defaultSite: deps.defaultSite,
      writes: deps.writes,
      ...(this.fleetConsoles ? { consoles: this.fleetConsoles } : {}),
    });
    this.catalog =
      deps.writes === 'approval'
        ? [...tools, changeRequestTool, revertChangeTool, proposeChangeSetTool].map((tool) =>
            this.taskSupport(tool.name) ? asTaskTool(tool) : tool,
          )
        : deps.writes === 'confirm'
          ? [...tools, revertChangeTool, proposeChangeSetTool]
          : tools;
  }

  /** Whether `name` may be called as an MCP task: a write (or revert, or set) in approval mode. */
  taskSupport(name: string): boolean {
    if (this.deps.writes !== 'approval') return false;
    if (name === REVERT_CHANGE || name === PROPOSE_CHANGE_SET) return true;
    return this.deps.registry.get(name)?.access === 'write';
  }

  /**
   * A write called as an MCP task: the change request it becomes, posted when Slack is in this
   * process (withdrawn, and so already cancelled, when Slack refused its preview). Throws what the
   * plain call answers as a tool error: bad arguments, a dry run, no confirm, a refused asker.
   */
  async proposeForTask(
    name: string,
    args: Record<string, unknown>,
    requester: Actor,
  ): Promise<ChangeRequest> {
    const approvals = this.approvals();
    const channel = this.deps.approvalChannel;
    let request: ChangeRequest;
    if (name === REVERT_CHANGE) {
      const { changeId } = revertArgsOf(args);
      request = await approvals.proposeRevert({ changeId, requester, ...(channel ? { channel } : {}) });
    } else if (name === PROPOSE_CHANGE_SET) {
      const { confirm: _confirm, ...proposal } = setArgsOf(args);
      request = await approvals.proposeSet({ ...proposal, requester, ...(channel ? { channel } : {}) });
    } else {
      const valid = this.deps.registry.validate(name, splitMetaArgs(args).args);
      if (valid.dry_run === true) {
        throw new ValidationError([
          { field: 'dry_run', rule: 'a dry run answers at once: call it without a task' },
        ]);
      }
      if (valid.confirm !== true) throw new ConfirmationRequiredError(name);
      request = await approvals.propose({ tool: name, args, requester, channel });
    }
    await this.announce(request);
    // As stored now: with the message that shows it, or withdrawn when Slack refused its preview.
    return (await approvals.get(request.id)) ?? request;
  }

  /** Every tool an MCP client may call, in registry order (get_change_request last, in approval mode). */
  list(): Tool[] {
    return this.catalog;
  }

  /** Runs one call; every failure is a tool error (`isError`), never a protocol error. */
  async call(name: string, args: Record<string, unknown>, requester: Actor): Promise<CallToolResult> {
    try {
      return await this.dispatch(name, args, requester);
    } catch (error) {
      return toolErrorResult(mcpError(error, this.deps.logger, this.deps.writes));
    }
  }

  // Deliberately alike: each handler takes the call's name, arguments and requester; their bodies differ.
  private async dispatch(
    name: string,
    args: Record<string, unknown>,
    requester: Actor,
  ): Promise<CallToolResult> {
    const { registry, context, writes } = this.deps;
    if (name === GET_CHANGE_REQUEST && writes === 'approval') return this.changeRequest(args, requester);
    if (name === REVERT_CHANGE && writes !== 'off') return this.revert(args, requester);
    if (name === PROPOSE_CHANGE_SET && writes !== 'off') return this.proposeSet(args, requester);
    const tool = registry.require(name);
    if (tool.access === 'read') return toolResult(await registry.run(name, args, context));
    if (writes === 'off') {
      throw new NotAuthorizedError(
        `${name} changes the network, and writes through MCP are off (MCP_WRITES=off)`,
      );
    }
    // revert_after and for are for approvals; the tool validates the rest.
    const valid = registry.validate(name, splitMetaArgs(args).args);
    if (valid.dry_run === true) return this.preview(name, args, requester);
    if (valid.confirm !== true) throw new ConfirmationRequiredError(name);
    return writes === 'approval' ? this.propose(name, args, requester) : this.runNow(name, args, requester);
  }

  /**
   * A dry run: the tool's preview with what every face shows beside it (risk, who must approve,
   * the deadline) and what `confirm: true` would do here. A preview that changes nothing is the
   * tool's own answer.
   */
  private async preview(
    name: string,
    args: Record<string, unknown>,
    requester: Actor,
  ): Promise<CallToolResult> {
    const { registry, context, approvals } = this.deps;
    const plain = () => registry.run(name, splitMetaArgs(args).args, context);
    if (!approvals) return toolResult(await plain());
    let judged: Awaited<ReturnType<Approvals['previewChange']>>;
    try {
      const { dry_run: _dry, confirm: _confirm, ...rest } = args;
      judged = await approvals.previewChange({ tool: name, args: rest, requester });
    } catch (error) {
      if (error instanceof ConflictError && /^nothing to change/.test(error.message))
        return toolResult(await plain());
      throw error;
    }
    const deadline = deadlineLine(judged.timing.first);
    const guardrails = {
      risk: judged.assessment.risk,
      risk_reasons: judged.assessment.reasons,
      ...(judged.assessment.selfLockout ? { self_lockout: judged.assessment.selfLockout } : {}),
      approvals_needed: judged.assessment.approvals,
      ...(judged.assessment.approvers ? { approvers: judged.assessment.approvers } : {}),
      ...(judged.assessment.window ? { window: judged.assessment.window } : {}),
      ...(deadline ? { deadline } : {}),
      on_confirm:
        this.deps.writes === 'confirm'
          ? verdictLine('mcp', judged.verdict)
          : 'confirm: true proposes it as a change request for approval in Slack',
    };
    const preview = isRecord(judged.preview) ? judged.preview : { preview: judged.preview ?? null };
    return toolResult({ ...preview, ...guardrails });
  }

  /** approval: a change request posted to Slack; the answer comes back at once, the change runs on approval. */
  private async propose(
    name: string,
    args: Record<string, unknown>,
    requester: Actor,
  ): Promise<CallToolResult> {
    const approvals = this.approvals();
    const request = await approvals.propose({
      tool: name,
      args,
      requester,
      channel: this.deps.approvalChannel,
    });
    const shown = await this.posted(request);
    if ('withdrawn' in shown) return shown.withdrawn;
    const { message, link } = shown;
    const answer = {
      change_request_id: request.id,
      change_id: request.id,
      state: request.state,
      preview: request.preview,
      message_link: link ?? null,
      channel: request.channel,
      expires_at: request.expiresAt,
      ...(request.revertAfterSeconds !== undefined
        ? { revert_after_seconds: request.revertAfterSeconds }
        : {}),
      ...(request.forSeconds !== undefined ? { for_seconds: request.forSeconds } : {}),
      // Risk with its reasons, self-lockout, approvals needed.
      ...guardrailFields(request),
    };
    const where = link ?? (message ? `<#${message.channel}>` : `channel ${request.channel}`);
    const posted = this.deps.notifier
      ? message
        ? `posted in Slack: ${where}`
        : `not yet posted in Slack (the bot tries again within seconds) for ${where}`
      : `the Slack bot posts it in ${where} within about 15 seconds`;
    const text = [
      `Change request ${request.id} is pending: nothing has changed yet. A person must approve it in Slack before it runs (${posted}); it expires at ${request.expiresAt}.`,
      `Follow it with get_change_request change_request_id=${request.id}.`,
      ...[timingText(request)].filter((line): line is string => line !== undefined),
      ...guardrailLines(request),
      '',
      render(request.preview),
    ].join('\n');
    return { content: [{ type: 'text', text }], structuredContent: answer };
  }

  /**
   * A proposal posted (when Slack is in this process) and its message's link; or, when Slack
   * refused the preview for its content, the answer saying it was withdrawn and why.
   */
  private async posted(
    request: ChangeRequest,
  ): Promise<{ message?: MessageRef; link?: string } | { withdrawn: CallToolResult }> {
    const { message, failure } = await this.announce(request);
    const now = failure ? await this.approvals().get(request.id) : undefined;
    if (failure && now && now.state !== 'pending') return { withdrawn: this.withdrawn(now, failure) };
    const link = message ? await this.deps.notifier?.link(message) : undefined;
    return { ...(message ? { message } : {}), ...(link ? { link } : {}) };
  }

  /** The answer for a proposal Slack would not show: nothing runs, and why. */
  private withdrawn(request: ChangeRequest, failure: string): CallToolResult {
    const result = toolErrorResult({
      code: 'conflict',
      message: `not proposed: Slack refused to post the preview of change request ${request.id} (${failure}), so it was withdrawn (${request.state}) and nothing will run. Shorten what the request shows (the client name, long values) and propose it again.`,
      fields: [],
    });
    return {
      ...result,
      structuredContent: { ...result.structuredContent, change_request_id: request.id, state: request.state },
    };
  }

  /**
   * Posts the proposal when Slack is in this process. A failure is logged and left to the bot's
   * sweep, unless Slack refused the message itself (the request is then withdrawn); either way its
   * reason comes back, one line, secrets scrubbed.
   */
  private async announce(request: ChangeRequest): Promise<{ message?: MessageRef; failure?: string }> {
    if (!this.deps.notifier) return {};
    try {
      const message = await this.deps.notifier.announce(request);
      return message ? { message } : {};
    } catch (error) {
      this.deps.logger.warn(
        { err: error, request: request.id },
        'could not post a change request from an MCP client; the next sweep tries again',
      );
      const reason = error instanceof Error ? error.message : String(error);
      return { failure: scrubSecrets(reason.replace(/\s+/g, ' ')).slice(0, 300) };
    }
  }

  /** confirm: the client's confirm is the approval; the write runs now and is journaled like any other. */
  private async runNow(
    name: string,
    args: Record<string, unknown>,
    requester: Actor,
  ): Promise<CallToolResult> {
    const outcome = await this.approvals().runNow({ tool: name, args, requester });
    return this.ranNow(outcome);
  }

  /** The answer to a write run at once: its result with `change_id` and the verification. */
  private ranNow(outcome: Awaited<ReturnType<Approvals['runNow']>>): CallToolResult {
    const meta = { [CHANGE_REQUEST_META]: outcome.request.id };
    if (outcome.kind === 'succeeded') {
      const verification = verificationText(outcome.request.verification);
      const deadline = timingText(outcome.request);
      const extra = {
        change_id: outcome.request.id,
        ...(verification ? { verification } : {}),
        ...(deadline ? { deadline } : {}),
        // The change ran but its automatic revert could not be scheduled.
        ...(outcome.request.error ? { warning: outcome.request.error.message } : {}),
      };
      const result = isRecord(outcome.result)
        ? { ...outcome.result, ...extra }
        : { result: outcome.result ?? null, ...extra };
      return toolResult(result, meta);
    }
    const error =
      outcome.kind === 'failed'
        ? { code: outcome.error.code, message: `failed: ${outcome.error.message}`, fields: [] }
        : {
            code: 'conflict',
            message: `not run: the change request is ${outcome.request.state}`,
            fields: [],
          };
    return { ...toolErrorResult(error), _meta: meta };
  }

  /** revert_change: proposes the undoing change (approval), or runs it when confirmed (confirm). */
  private async revert(args: Record<string, unknown>, requester: Actor): Promise<CallToolResult> {
    const { changeId, confirm } = revertArgsOf(args);
    const approvals = this.approvals();
    if (this.deps.writes === 'confirm') {
      if (!confirm) {
        throw new ConfirmationRequiredError(REVERT_CHANGE);
      }
      return this.ranNow(await approvals.runRevertNow({ changeId, requester }));
    }
    const request = await approvals.proposeRevert({
      changeId,
      requester,
      ...(this.deps.approvalChannel ? { channel: this.deps.approvalChannel } : {}),
    });
    const { message } = await this.announce(request);
    const link = message ? await this.deps.notifier?.link(message) : undefined;
    const answer = {
      change_request_id: request.id,
      change_id: request.id,
      revert_of: changeId,
      state: request.state,
      preview: request.preview,
      message_link: link ?? null,
      expires_at: request.expiresAt,
    };
    const text = [
      `Revert of ${changeId} proposed as change request ${request.id}: nothing has changed yet; a person must approve it in Slack. Follow it with get_change_request change_request_id=${request.id}.`,
      '',
      render(request.preview),
    ].join('\n');
    return { content: [{ type: 'text', text }], structuredContent: answer };
  }

  /**
   * propose_change_set: one change request for several writes (approval), or the set run
   * at once when confirmed (confirm); either way every step was previewed on the planned state.
   */
  private async proposeSet(args: Record<string, unknown>, requester: Actor): Promise<CallToolResult> {
    const { confirm, ...proposal } = setArgsOf(args);
    const approvals = this.approvals();
    if (this.deps.writes === 'confirm') {
      if (!confirm) throw new ConfirmationRequiredError(PROPOSE_CHANGE_SET);
      const outcome = await approvals.runSetNow({ ...proposal, requester });
      const meta = { [CHANGE_REQUEST_META]: outcome.request.id };
      const steps = outcome.request.set ? stepLines(outcome.request.set) : [];
      if (outcome.kind === 'succeeded')
        return toolResult({ change_id: outcome.request.id, state: outcome.request.state, steps }, meta);
      const message =
        outcome.kind === 'failed' ? outcome.error.message : `the change set is ${outcome.request.state}`;
      const failed = toolErrorResult({
        code: outcome.kind === 'failed' ? outcome.error.code : 'conflict',
        message: `failed: ${message}`,
        fields: [],
      });
      return {
        ...failed,
        structuredContent: { ...failed.structuredContent, change_id: outcome.request.id, steps },
        _meta: meta,
      };
    }
    const request = await approvals.proposeSet({
      ...proposal,
      requester,
      ...(this.deps.approvalChannel ? { channel: this.deps.approvalChannel } : {}),
    });
    const shown = await this.posted(request);
    if ('withdrawn' in shown) return shown.withdrawn;
    const { link } = shown;
    const answer = {
      change_request_id: request.id,
      change_id: request.id,
      state: request.state,
      steps: request.set?.steps.length ?? 0,
      preview: request.preview,
      message_link: link ?? null,
      channel: request.channel,
      expires_at: request.expiresAt,
      ...guardrailFields(request),
    };
    const text = [
      `Change set ${request.id} (${answer.steps} steps) is pending: nothing has changed yet. A person must approve it in Slack before it runs; it expires at ${request.expiresAt}.`,
      `Follow it with get_change_request change_request_id=${request.id}.`,
      ...guardrailLines(request),
      '',
      render(request.preview),
    ].join('\n');
    return { content: [{ type: 'text', text }], structuredContent: answer };
  }

  private async changeRequest(args: Record<string, unknown>, caller: Actor): Promise<CallToolResult> {
    const id = changeRequestIdOf(args);
    const request = requireRequest(await this.approvals().get(id), id, caller);
    const link = request.message ? await this.deps.notifier?.link(request.message) : undefined;
    const view = changeRequestView(request, link);
    const { preview: _preview, arguments: _args, result, ...summary } = view;
    const text = [
      `Change request ${request.id}: ${request.state}, ${String(view.status)}.`,
      render(summary),
      ...(result !== undefined ? ['', 'Result:', render(result)] : []),
    ].join('\n');
    return { content: [{ type: 'text', text }], structuredContent: view };
  }

  private approvals(): Approvals {
    if (!this.deps.approvals) throw new Error('the MCP front end has no approvals');
    return this.deps.approvals;
  }
}
