import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpWriteMode } from '../config.js';
import {
  BotError,
  ConfirmationRequiredError,
  type FieldIssue,
  isBotError,
  ValidationError,
} from '../errors.js';
import { type FaceWording, fieldIssuesOf, logUnexpected, plainErrorText } from '../format/error-wording.js';
import { type Logger, scrubSecrets } from '../log.js';
import { TOOL_LIST_HINT } from '../tools/core/registry.js';

/** MCP's own help, where a shared message names Slack's. */
const ownHelp = (text: string) => text.replace(TOOL_LIST_HINT, 'the tools/list request lists them');

/** An error as an MCP client reads it: a stable code, a sentence, and the field issues of bad input. */
export interface McpError {
  code: string;
  message: string;
  fields: FieldIssue[];
}

/** The MCP wording of the codes each face words its own way (the field issues follow on their own lines). */
function mcpWording(writes: McpWriteMode): FaceWording {
  return {
    validation_failed: (error) =>
      error instanceof ValidationError && error.issues.length > 0
        ? 'invalid arguments'
        : `invalid arguments: ${error.message}`,
    confirmation_required: (error) => {
      const tool = error instanceof ConfirmationRequiredError ? error.tool : 'this tool';
      const confirm =
        writes === 'approval'
          ? 'confirm: true to ask a person to approve it in Slack'
          : 'confirm: true to run it';
      return `not run: ${tool} changes the network; call it again with dry_run: true to preview it, or ${confirm}`;
    },
    config_invalid: () => 'invalid configuration',
  };
}

/**
 * The MCP front end's one way to read an error. A BotError is worded by its code, with the field
 * issues of bad input; anything else is a bug, logged with its stack under a short id that is all
 * the client sees.
 */
export function mcpError(error: unknown, logger: Logger, writes: McpWriteMode): McpError {
  if (isBotError(error)) {
    return {
      code: error.code,
      message: ownHelp(scrubSecrets(plainErrorText(error, mcpWording(writes)))),
      fields: fieldIssuesOf(error).map((f) => ({ ...f, rule: ownHelp(f.rule) })),
    };
  }
  const id = logUnexpected(error, logger, 'the MCP front end');
  return { code: 'internal_error', message: `internal error ${id}; see the bot's log`, fields: [] };
}

/** The text of an error: its sentence, then one `field: rule` line per issue. */
export function mcpErrorText(error: McpError): string {
  return [error.message, ...error.fields.map((f) => `  ${f.field}: ${f.rule}`)].join('\n');
}

/** An error as a tool result: `isError`, its text, and `{error: {code, message, fields}}` as structured content. */
export function toolErrorResult(error: McpError): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: mcpErrorText(error) }],
    structuredContent: { error },
  };
}

/**
 * A JSON-RPC error for a request handler to throw: its JSON-RPC code, and its message as is. The
 * SDK's `McpError` puts "MCP error <code>: " into its message, and the client's McpError adds it
 * again when it reads the answer, which showed the prefix twice. `code` is the bot's, as on every
 * BotError; the handler hands the SDK `onTheWire()`.
 */
export class ProtocolError extends BotError {
  readonly code = 'protocol_error';
  constructor(
    /** The JSON-RPC error code sent to the client (-32602 invalid params, …). */
    readonly rpcCode: number,
    message: string,
    /** Sent as the JSON-RPC error's `data` (the SDK's protocol layer passes it on). */
    readonly data?: unknown,
  ) {
    super(message);
  }

  /** What the SDK's protocol layer sends: it reads a numeric `code`, the message and `data`. */
  onTheWire(): Error & { code: number; data?: unknown } {
    const wire = Object.assign(new Error(this.message), {
      code: this.rpcCode,
      ...(this.data !== undefined ? { data: this.data } : {}),
    });
    wire.name = this.name;
    return wire;
  }
}
