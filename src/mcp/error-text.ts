import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpWriteMode } from '../config.js';
import {
  type BotError,
  ConfigError,
  ConfirmationRequiredError,
  type FieldIssue,
  GatewayAuthError,
  GatewayRejectedError,
  isBotError,
  NoControllerError,
  RateLimitedError,
  ValidationError,
} from '../errors.js';
import { type Logger, scrubSecrets } from '../log.js';

/** An error as an MCP client reads it: a stable code, a sentence, and the field issues of bad input. */
export interface McpError {
  code: string;
  message: string;
  fields: FieldIssue[];
}

/** The first line: the kind of failure and the error's own fields, once each (as the console words them). */
function botErrorText(error: BotError, writes: McpWriteMode): string {
  switch (error.code) {
    case 'validation_failed':
      return error instanceof ValidationError && error.issues.length > 0
        ? 'invalid arguments'
        : `invalid arguments: ${error.message}`;
    case 'not_found':
      return error.message;
    case 'confirmation_required': {
      const tool = error instanceof ConfirmationRequiredError ? error.tool : 'this tool';
      const confirm =
        writes === 'approval'
          ? 'confirm: true to ask a person to approve it in Slack'
          : 'confirm: true to run it';
      return `not run: ${tool} changes the network; call it again with dry_run: true to preview it, or ${confirm}`;
    }
    case 'not_supported':
      return `not supported: ${error.message}`;
    case 'not_authorized':
      return `not authorized: ${error.message}`;
    case 'conflict':
      return `conflict: ${error.message}`;
    case 'gateway_auth': {
      const status =
        error instanceof GatewayAuthError && error.status !== undefined ? ` (HTTP ${error.status})` : '';
      return `controller refused our credentials${status}: ${error.message}`;
    }
    case 'gateway_unavailable':
      return error instanceof NoControllerError ? error.message : `controller unreachable: ${error.message}`;
    case 'gateway_rejected': {
      const code = error instanceof GatewayRejectedError ? ` (${error.controllerCode})` : '';
      return `controller refused: ${error.message}${code}`;
    }
    case 'rate_limited': {
      const after =
        error instanceof RateLimitedError && error.retryAfterSeconds !== undefined
          ? `; retry after ${error.retryAfterSeconds}s`
          : '';
      return `rate limited: ${error.message}${after}`;
    }
    case 'config_invalid':
      return 'invalid configuration';
    case 'store_unavailable':
      return `not recorded: ${error.message}`;
  }
}

/**
 * The MCP front end's one way to read an error. A BotError is worded by its code, with the field
 * issues of bad input; anything else is a bug, logged with its stack under a short id that is all
 * the client sees.
 */
export function mcpError(error: unknown, logger: Logger, writes: McpWriteMode): McpError {
  if (isBotError(error)) {
    const fields =
      error instanceof ValidationError || error instanceof ConfigError
        ? error.issues.map((i) => ({ field: i.field, rule: scrubSecrets(i.rule) }))
        : [];
    return { code: error.code, message: scrubSecrets(botErrorText(error, writes)), fields };
  }
  const id = randomUUID().slice(0, 8);
  logger.error({ err: error, errorId: id }, 'unexpected error in the MCP front end');
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
