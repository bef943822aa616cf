import { randomUUID } from 'node:crypto';
import {
  type BotError,
  ConfigError,
  type ErrorCode,
  type FieldIssue,
  GatewayAuthError,
  GatewayRejectedError,
  NoControllerError,
  RateLimitedError,
  ValidationError,
} from '../errors.js';
import { type Logger, scrubSecrets } from '../log.js';

/** The error codes whose plain-text wording depends on the face that shows them. */
export type FaceWordedCode = 'validation_failed' | 'confirmation_required' | 'config_invalid';

/** How one plain-text face (console, MCP) words the codes that are its own. */
export type FaceWording = { [C in FaceWordedCode]: (error: BotError) => string };

/**
 * An error's first line in plain text (console, MCP). Errors carry facts in their message and the
 * rest in fields (status, controller code, wait); the wording adds the kind of failure and those
 * fields once, never what the message already says. The exhaustive switch makes a new ErrorCode
 * without wording a compile error.
 */
export function plainErrorText(error: BotError, face: FaceWording): string {
  const code: ErrorCode = error.code;
  switch (code) {
    case 'validation_failed':
    case 'confirmation_required':
    case 'config_invalid':
      return face[code](error);
    case 'not_found':
      // The message is the whole sentence ("network Lab not found on site default").
      return error.message;
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
      const controllerCode = error instanceof GatewayRejectedError ? ` (${error.controllerCode})` : '';
      return `controller refused: ${error.message}${controllerCode}`;
    }
    case 'rate_limited': {
      const after =
        error instanceof RateLimitedError && error.retryAfterSeconds !== undefined
          ? `; retry after ${error.retryAfterSeconds}s`
          : '';
      return `rate limited: ${error.message}${after}`;
    }
    case 'store_unavailable':
      return `not recorded: ${error.message}`;
    case 'export_failed':
      return `audit export: ${error.message}`;
    case 'journal_invalid':
    case 'slack_refused':
    case 'protocol_error':
      // Each message is the whole sentence: what failed verification, what Slack refused, the request's fault.
      return error.message;
  }
}

/** The field issues of bad input or a bad configuration, secrets scrubbed; none for other errors. */
export function fieldIssuesOf(error: BotError): FieldIssue[] {
  if (error instanceof ValidationError || error instanceof ConfigError) {
    return error.issues.map((i) => ({ field: i.field, rule: scrubSecrets(i.rule) }));
  }
  return [];
}

/**
 * What is not a BotError is a bug: logged with its stack under a short id, which is all the user
 * is shown (never the stack or the message).
 */
export function logUnexpected(error: unknown, logger: Logger, where: string): string {
  const id = randomUUID().slice(0, 8);
  logger.error({ err: error, errorId: id }, `unexpected error in ${where}`);
  return id;
}
