import {
  BotError,
  ConfigError,
  GatewayAuthError,
  GatewayRejectedError,
  isBotError,
  NoControllerError,
  RateBudgetSpentError,
  RateLimitedError,
  ValidationError,
  WriteOutcomeUnknownError,
} from '../errors.js';
import { logUnexpected } from '../format/error-wording.js';
import { type Logger, scrubSecrets } from '../log.js';
import { channelMention, code, mrkdwn } from './blocks/text.js';

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
      if (error instanceof NoControllerError)
        return `:electric_plug: ${sentence(message)}. Nothing was changed.`;
      // Sent, unanswered: the message says the change may have been made and what to check.
      if (error instanceof WriteOutcomeUnknownError) return `:grey_question: ${sentence(message)}.`;
      return `:electric_plug: Controller unreachable: ${message}. Nothing was changed; try again in a minute.`;
    case 'gateway_rejected': {
      // The code comes from the controller: data like any other.
      const controllerCode =
        error instanceof GatewayRejectedError ? ` (${inlineCode(error.controllerCode)})` : '';
      return `:no_entry: The controller refused: ${message}${controllerCode}`;
    }
    case 'rate_limited': {
      // The bot's own budget, not the controller: the message says whose and when the next token comes.
      if (error instanceof RateBudgetSpentError) return `:turtle: ${sentence(message)}. Nothing was changed.`;
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
    case 'journal_invalid':
      // The message names the journal's file or database: for the admin's log, not the channel.
      return ':rotating_light: The approvals journal fails verification: nothing was recorded or run. Ask an admin to check it (`npm run audit:verify` says where).';
    case 'slack_refused':
      return error instanceof SlackStepError ? slackStepText(error) : `:warning: ${sentence(message)}`;
    case 'protocol_error':
    case 'export_failed':
      return `:warning: ${sentence(message)}`;
  }
}

/** What the bot was doing for a user when Slack refused a Web API call. */
export type SlackStep = 'post_preview' | 'open_form' | 'upload_file';

/**
 * Slack refused (or did not answer) a Web API call the bot made for a user: posting a change
 * request, opening a form, uploading a file. Thrown where the call is made, worded here.
 */
export class SlackStepError extends BotError {
  readonly code = 'slack_refused';
  constructor(
    readonly step: SlackStep,
    readonly channel: string | undefined,
    cause: unknown,
  ) {
    super(
      `Slack refused to ${step.replace('_', ' ')}: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}

/** What Slack's Web API client threw, read for the code Slack gave (or the failure that stood for one). */
interface SlackFailure {
  /** Slack's error code (`not_in_channel`), `ratelimited` for HTTP 429, `unreachable`, or `http_<status>`. */
  code: string;
  /** Seconds Slack asked to wait, on a rate limit. */
  retryAfter?: number;
}

// The client's own errors (@slack/web-api): a platform error carries Slack's answer, a rate limit
// the wait. HTTP 429 still answered after the client's own retries ends as a request error whose
// original error says so.
function slackFailure(error: unknown): SlackFailure | undefined {
  if (!(error instanceof Error)) return undefined;
  const coded = error as Error & {
    code?: unknown;
    data?: { error?: unknown };
    retryAfter?: unknown;
    original?: unknown;
  };
  const original = coded.original instanceof Error ? coded.original.message : '';
  const exhausted = /^A rate limit was exceeded \(url: .*, retry-after: (\d+)\)$/.exec(original);
  if (exhausted) return { code: 'ratelimited', retryAfter: Number(exhausted[1]) };
  switch (coded.code) {
    case 'slack_webapi_platform_error':
      return { code: typeof coded.data?.error === 'string' ? coded.data.error : 'unknown_error' };
    case 'slack_webapi_rate_limited_error':
      return {
        code: 'ratelimited',
        ...(typeof coded.retryAfter === 'number' ? { retryAfter: coded.retryAfter } : {}),
      };
    case 'slack_webapi_request_error':
      return { code: 'unreachable' };
    case 'slack_webapi_http_error':
      return { code: `http_${String((error as { statusCode?: unknown }).statusCode ?? 'error')}` };
  }
  // A file body the upload URL did not take (files.uploadV2's second step).
  if (/^Failed to upload file \(id:/.test(error.message)) return { code: 'upload_failed' };
  return undefined;
}

/**
 * Why Slack did not do it, as a clause (`the bot is not a member of #ops (Slack: not_in_channel)`);
 * undefined when the error is not one of Slack's.
 */
export function slackProblem(error: unknown, channel?: string): string | undefined {
  const failure = slackFailure(error instanceof SlackStepError ? error.cause : error);
  if (!failure) return undefined;
  const where = channel ? channelMention(channel) : 'the channel';
  const wait = failure.retryAfter !== undefined ? `, retry after ${failure.retryAfter}s` : '';
  const said = failure.code.startsWith('http_') ? '' : ` (Slack: ${code(failure.code)}${wait})`;
  switch (failure.code) {
    case 'not_in_channel':
      return `the bot is not a member of ${where}${said}`;
    case 'channel_not_found':
      return `Slack does not let the bot see ${where}: a private channel or a conversation it is not in${said}`;
    case 'is_archived':
      return `${where} is archived${said}`;
    case 'msg_too_long':
    case 'msg_blocks_too_long':
      return `Slack refused the message as too long${said}`;
    case 'expired_trigger_id':
      return `Slack opens a form only within 3 seconds of the command, and that time had passed${said}`;
    case 'ratelimited':
      return `Slack is rate-limiting the bot${said}`;
    case 'unreachable':
      return 'Slack could not be reached';
    case 'upload_failed':
      return 'Slack did not take the file';
    default:
      return failure.code.startsWith('http_')
        ? `Slack answered HTTP ${failure.code.slice('http_'.length)}`
        : `Slack refused the call${said}`;
  }
}

/**
 * Whether Slack answered that it did not make the call (an error code such as `not_in_channel`,
 * or HTTP 429 still answered after the client's retries), so making it again cannot make it twice.
 * False when its answer is unknown (not reached, no answer, HTTP 5xx): it may have made it.
 */
export function slackRefused(error: unknown): boolean {
  const failure = slackFailure(error instanceof SlackStepError ? error.cause : error);
  if (!failure) return false;
  return (
    failure.code !== 'unreachable' && failure.code !== 'upload_failed' && !failure.code.startsWith('http_')
  );
}

// Slack's answers that refuse a message for what it contains: sending it again changes nothing.
const CONTENT_REFUSALS = new Set([
  'invalid_blocks',
  'invalid_blocks_format',
  'msg_too_long',
  'msg_blocks_too_long',
  'invalid_attachments',
  'too_many_attachments',
  'invalid_arguments',
]);

/** Whether Slack refused a message for its content (its blocks, its length), not for the moment. */
export function slackRefusedContent(error: unknown): boolean {
  const failure = slackFailure(error instanceof SlackStepError ? error.cause : error);
  return failure !== undefined && CONTENT_REFUSALS.has(failure.code);
}

/** What the user can do about it, after the step that failed. */
function slackAdvice(error: SlackStepError): string {
  const failure = slackFailure(error.cause);
  switch (failure?.code) {
    case 'not_in_channel':
    case 'channel_not_found':
      return 'invite the bot there (`/invite @netops`, or the name the app has in your workspace) and try again.';
    case 'msg_too_long':
    case 'msg_blocks_too_long':
      return 'split the change into smaller ones, or preview it in the console.';
    case 'expired_trigger_id':
      return 'run the command again.';
    default:
      return 'try again in a minute.';
  }
}

function slackStepText(error: SlackStepError): string {
  // The channel is named once, in the lead; the problem says "the channel".
  const problem = slackProblem(error) ?? 'Slack refused the call';
  const where = error.channel ? ` in ${channelMention(error.channel)}` : '';
  switch (error.step) {
    case 'post_preview':
      return `:warning: The change request could not be posted${where}: ${problem}. Nothing was run and the request was withdrawn; ${slackAdvice(error)}`;
    case 'open_form':
      return `:warning: The form could not be opened: ${problem}. Nothing was changed; ${slackAdvice(error)}`;
    case 'upload_file':
      return `:warning: The file could not be posted${where}: ${problem}; ${slackAdvice(error)}`;
  }
}

/**
 * The Slack front end's one way to turn an error into text. A BotError is worded by its code, a
 * Slack refusal by Slack's error code; anything else is a bug, logged with its stack under a short
 * id that the user sees instead.
 */
export function slackErrorText(error: unknown, logger: Logger): string {
  if (error instanceof SlackStepError)
    logger.warn({ err: error.cause, step: error.step, channel: error.channel }, 'Slack refused a call');
  if (isBotError(error)) return botErrorText(error);
  const problem = slackProblem(error);
  if (problem !== undefined) {
    logger.warn({ err: error }, 'Slack refused a call');
    return `:warning: ${sentence(problem)}. Nothing was changed; try again in a minute.`;
  }
  const id = logUnexpected(error, logger, 'the Slack front end');
  return `:boom: Internal error \`${id}\`; the bot logged the details. Nothing further was done.`;
}
