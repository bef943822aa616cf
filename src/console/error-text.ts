import { randomUUID } from 'node:crypto';
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

function issueLines(issues: readonly FieldIssue[]): string {
  return issues.map((i) => `  ${i.field}: ${i.rule}`).join('\n');
}

/**
 * Errors carry facts in their message and the rest in fields (status, controller code, wait);
 * the wording here adds the kind of failure and those fields once, never what the message says.
 * The explicit return type makes a new ErrorCode without wording a compile error.
 */
function botErrorText(error: BotError): string {
  switch (error.code) {
    case 'validation_failed': {
      const issues = error instanceof ValidationError ? error.issues : [];
      return issues.length > 0 ? `invalid input:\n${issueLines(issues)}` : `invalid input: ${error.message}`;
    }
    case 'not_found':
      // The message is the whole sentence ("network Lab not found on site default").
      return error.message;
    case 'confirmation_required': {
      const tool = error instanceof ConfirmationRequiredError ? error.tool : 'this command';
      return `not run: ${tool} changes the network; approve it at the prompt, or add --yes to a one-shot command`;
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
      // "no UniFi Network controller at …" says what is wrong by itself; "unreachable" would not be true.
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
      return error instanceof ConfigError
        ? `invalid configuration:\n${issueLines(error.issues)}`
        : `invalid configuration: ${error.message}`;
    case 'store_unavailable':
      return `not recorded: ${error.message}`;
  }
}

function fieldsOf(error: BotError): FieldIssue[] {
  if (error instanceof ValidationError || error instanceof ConfigError) {
    return error.issues.map((i) => ({ field: i.field, rule: scrubSecrets(i.rule) }));
  }
  return [];
}

/** An error as the console reports it: a stable code, its text, and the field issues of bad input. */
interface ConsoleError {
  code: string;
  text: string;
  fields: FieldIssue[];
}

/**
 * The console's one way to read an error. A BotError is worded by its code; anything else is a
 * bug: it is logged with its stack under a short id, and the user sees only the id.
 */
function consoleError(error: unknown, logger: Logger): ConsoleError {
  if (isBotError(error)) {
    return { code: error.code, text: scrubSecrets(botErrorText(error)), fields: fieldsOf(error) };
  }
  const id = randomUUID().slice(0, 8);
  logger.error({ err: error, errorId: id }, 'unexpected error in the console');
  return { code: 'internal_error', text: `internal error: ${id}; see the log`, fields: [] };
}

/** The error as console text (stderr). */
export function consoleErrorText(error: unknown, logger: Logger): string {
  return consoleError(error, logger).text;
}

/**
 * The error as `--json` output (stdout): `{"error": {"code", "message", "fields"}}`. `message` is
 * the console text on one line; `fields` lists `{field, rule}` for bad input and is empty otherwise.
 */
export function consoleErrorJson(error: unknown, logger: Logger): string {
  const { code, text, fields } = consoleError(error, logger);
  const message =
    fields.length > 0
      ? `${text.split('\n')[0] ?? ''} ${fields.map((f) => `${f.field}: ${f.rule}`).join('; ')}`
      : text.replace(/\s*\n\s*/g, ' ');
  return JSON.stringify({ error: { code, message, fields } }, null, 2);
}
