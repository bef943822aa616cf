import { randomUUID } from 'node:crypto';
import {
  type BotError,
  ConfigError,
  ConfirmationRequiredError,
  GatewayAuthError,
  GatewayRejectedError,
  isBotError,
  RateLimitedError,
  ValidationError,
} from '../errors.js';
import { type Logger, scrubSecrets } from '../log.js';

function issueLines(issues: readonly { field: string; rule: string }[]): string {
  return issues.map((i) => `  ${i.field}: ${i.rule}`).join('\n');
}

// The explicit return type makes a new ErrorCode without wording a compile error.
function botErrorText(error: BotError): string {
  switch (error.code) {
    case 'validation_failed': {
      const issues = error instanceof ValidationError ? error.issues : [];
      return issues.length > 0 ? `invalid input:\n${issueLines(issues)}` : `invalid input: ${error.message}`;
    }
    case 'not_found':
      return `not found: ${error.message}`;
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
      return `controller unreachable: ${error.message}`;
    case 'gateway_rejected': {
      const code = error instanceof GatewayRejectedError ? ` (${error.controllerCode})` : '';
      return `controller refused: ${error.message}${code}`;
    }
    case 'rate_limited': {
      const after =
        error instanceof RateLimitedError && error.retryAfterSeconds !== undefined
          ? `; retry after ${error.retryAfterSeconds}s`
          : '';
      return `rate limited by the controller: ${error.message}${after}`;
    }
    case 'config_invalid':
      return error instanceof ConfigError
        ? `invalid configuration:\n${issueLines(error.issues)}`
        : `invalid configuration: ${error.message}`;
  }
}

/**
 * The console's one way to turn an error into text. A BotError is worded by its code; anything
 * else is a bug: it is logged with its stack under a short id, and the user sees only the id.
 */
export function consoleErrorText(error: unknown, logger: Logger): string {
  if (isBotError(error)) return scrubSecrets(botErrorText(error));
  const id = randomUUID().slice(0, 8);
  logger.error({ err: error, errorId: id }, 'unexpected error in the console');
  return `internal error: ${id}; see the log`;
}
