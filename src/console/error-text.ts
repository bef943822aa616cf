import {
  ConfigError,
  ConfirmationRequiredError,
  type FieldIssue,
  isBotError,
  ValidationError,
} from '../errors.js';
import { type FaceWording, fieldIssuesOf, logUnexpected, plainErrorText } from '../format/error-wording.js';
import { type Logger, scrubSecrets } from '../log.js';
import { TOOL_LIST_HINT } from '../tools/core/registry.js';

/** The console's own help, where a shared message names Slack's. */
const ownHelp = (text: string) => text.replace(TOOL_LIST_HINT, '`help` lists them');

function issueLines(issues: readonly FieldIssue[]): string {
  return issues.map((i) => `  ${i.field}: ${i.rule}`).join('\n');
}

/** The console's wording of the codes each face words its own way; the rest is shared. */
const CONSOLE_WORDING: FaceWording = {
  validation_failed: (error) => {
    const issues = error instanceof ValidationError ? error.issues : [];
    return issues.length > 0 ? `invalid input:\n${issueLines(issues)}` : `invalid input: ${error.message}`;
  },
  confirmation_required: (error) => {
    const tool = error instanceof ConfirmationRequiredError ? error.tool : 'this command';
    return `not run: ${tool} changes the network; approve it at the prompt, or add --yes to a one-shot command`;
  },
  config_invalid: (error) =>
    error instanceof ConfigError
      ? `invalid configuration:\n${issueLines(error.issues)}`
      : `invalid configuration: ${error.message}`,
};

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
    return {
      code: error.code,
      text: ownHelp(scrubSecrets(plainErrorText(error, CONSOLE_WORDING))),
      fields: fieldIssuesOf(error).map((f) => ({ ...f, rule: ownHelp(f.rule) })),
    };
  }
  const id = logUnexpected(error, logger, 'the console');
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
