import { randomUUID } from 'node:crypto';
import {
  type BotError,
  ConfigError,
  GatewayAuthError,
  GatewayRejectedError,
  isBotError,
  NoControllerError,
  RateLimitedError,
  ValidationError,
} from '../errors.js';
import { type Logger, scrubSecrets } from '../log.js';
import { code, mrkdwn } from './blocks/text.js';

// Secrets are scrubbed from the raw parts before they are escaped: scrubbing composed text could
// eat the backtick that closes a code span.
const text = (raw: string) => mrkdwn(scrubSecrets(raw));
const inlineCode = (raw: string) => code(scrubSecrets(raw));

function issueLines(issues: readonly { field: string; rule: string }[]): string {
  return issues.map((i) => `• ${inlineCode(i.field)}: ${text(i.rule)}`).join('\n');
}

/** Slack sentences start with a capital; a message is written to follow a `kind: ` prefix. */
function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// Messages carry facts and the error's fields carry status, code and wait: each is shown once.
// The explicit switch over every code makes a new ErrorCode without Slack wording a compile error.
function botErrorText(error: BotError): string {
  // Messages quote controller data (names); Slack markup characters in them must not become links.
  const message = text(error.message);
  switch (error.code) {
    case 'validation_failed': {
      const issues = error instanceof ValidationError ? error.issues : [];
      return issues.length > 0
        ? `:warning: Invalid input:\n${issueLines(issues)}`
        : `:warning: Invalid input: ${message}`;
    }
    case 'not_found':
      // The message is the whole sentence ("network Lab not found on site default").
      return `:mag: ${sentence(message)}`;
    case 'confirmation_required':
      return ':lock: Changes run only from an approved preview: use the *Approve* button on it.';
    case 'not_supported':
      return `:no_entry_sign: Not supported: ${message}`;
    case 'not_authorized':
      // The approval policy words its refusals in Slack markup already (mentions of the users,
      // groups and channels it names, built from ids only); escaping them again showed `&lt;@U…&gt;`.
      return `:no_entry: Not allowed: ${error.message}`;
    case 'conflict':
      return `:warning: Conflict: ${message}`;
    case 'gateway_auth': {
      const status =
        error instanceof GatewayAuthError && error.status !== undefined ? ` (HTTP ${error.status})` : '';
      return `:key: The controller refused the bot's credentials${status}: ${message}`;
    }
    case 'gateway_unavailable':
      // Waiting will not put a controller behind a URL that has none.
      return error instanceof NoControllerError
        ? `:electric_plug: ${sentence(message)}. Nothing was changed.`
        : `:electric_plug: Controller unreachable: ${message}. Nothing was changed; try again in a minute.`;
    case 'gateway_rejected': {
      // The code comes from the controller: data like any other.
      const controllerCode =
        error instanceof GatewayRejectedError ? ` (${inlineCode(error.controllerCode)})` : '';
      return `:no_entry: The controller refused: ${message}${controllerCode}`;
    }
    case 'rate_limited': {
      const after =
        error instanceof RateLimitedError && error.retryAfterSeconds !== undefined
          ? ` Retry after ${error.retryAfterSeconds}s.`
          : '';
      return `:turtle: The controller is rate-limiting the bot.${after}`;
    }
    case 'config_invalid':
      return error instanceof ConfigError ? `Invalid configuration:\n${issueLines(error.issues)}` : message;
    case 'store_unavailable':
      return `:floppy_disk: Not recorded: ${message}. Nothing was run; ask an admin to check the bot's storage (/healthz says why), then try again.`;
  }
}

/**
 * The Slack front end's one way to turn an error into text. A BotError is worded by its code;
 * anything else is a bug, logged with its stack under a short id that the user sees instead.
 */
export function slackErrorText(error: unknown, logger: Logger): string {
  if (isBotError(error)) return botErrorText(error);
  const id = randomUUID().slice(0, 8);
  logger.error({ err: error, errorId: id }, 'unexpected error in the Slack front end');
  return `:boom: Internal error \`${id}\`; the bot logged the details. Nothing further was done.`;
}
