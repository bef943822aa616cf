/** Stable machine-readable error codes; front ends key their wording on these, never on messages. */
export type ErrorCode =
  | 'validation_failed'
  | 'not_found'
  | 'confirmation_required'
  | 'not_supported'
  | 'not_authorized'
  | 'conflict'
  | 'gateway_auth'
  | 'gateway_unavailable'
  | 'gateway_rejected'
  | 'rate_limited'
  | 'config_invalid'
  | 'store_unavailable'
  /** The approvals journal does not verify: the bot refuses to run on it rather than guess. */
  | 'journal_invalid'
  /** Slack refused (or did not answer) a Web API call the bot made for a user. */
  | 'slack_refused'
  /** An MCP request the protocol layer refuses, with its own JSON-RPC code. */
  | 'protocol_error'
  /** The audit export could not hand events to a receiver (syslog, webhook); it tries again. */
  | 'export_failed';

/** One problem with one input field: the field's name and the rule it broke. */
export interface FieldIssue {
  field: string;
  rule: string;
  /** The value is required here (always, or given the other arguments) and was not given: a form can ask for it. */
  missing?: true;
}

/** Base of every error the bot raises on purpose; anything else is a bug. */
export abstract class BotError extends Error {
  abstract readonly code: ErrorCode;
  constructor(message?: string, options?: ErrorOptions) {
    super(message, options);
    // Each subclass is named after itself, so logs and `name` checks read the class.
    this.name = new.target.name;
  }
}

/** Input broke a rule; nothing was sent to the controller. */
export class ValidationError extends BotError {
  readonly code = 'validation_failed';
  constructor(
    readonly issues: FieldIssue[],
    message = issues.map((i) => `${i.field}: ${i.rule}`).join('; '),
  ) {
    super(message);
  }
}

/** The named object does not exist on the site (the spec's ResourceNotFoundError). */
export class ResourceNotFoundError extends BotError {
  readonly code = 'not_found';
  constructor(
    readonly resource: string,
    readonly id: string,
    message = `${resource} ${id} not found`,
  ) {
    super(message);
  }
}

/** A write was called without confirm: true and was not a dry run; nothing changed. */
export class ConfirmationRequiredError extends BotError {
  readonly code = 'confirmation_required';
  constructor(readonly tool: string) {
    super(`${tool} changes the network: pass confirm=true to run it, or dry_run=true to preview`);
  }
}

/** The operation cannot be done with this controller or configuration. */
export class NotSupportedError extends BotError {
  readonly code = 'not_supported';
}

/** The caller may not do this (approval policy); nothing changed. */
export class NotAuthorizedError extends BotError {
  readonly code = 'not_authorized';
}

/** The request clashes with the current state (already run, already decided, changed since preview). */
export class ConflictError extends BotError {
  readonly code = 'conflict';
}

/** The controller refused our credentials (401/403), or a login failed. */
export class GatewayAuthError extends BotError {
  readonly code = 'gateway_auth';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** The controller could not be reached or answered 5xx or timed out. */
export class GatewayUnavailableError extends BotError {
  readonly code = 'gateway_unavailable';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/**
 * GATEWAY_URL answers HTTP, but not as a UniFi Network controller (a web server's page, a proxy's
 * 404, a redirect elsewhere). Nothing was sent that could change anything; retrying will not help.
 */
export class NoControllerError extends GatewayUnavailableError {
  constructor(
    readonly url: string,
    message: string,
    status?: number,
  ) {
    super(message, status);
  }
}

/**
 * A write was sent and no answer came back (a timeout, a dropped connection): the controller may
 * or may not have made the change. Never retried; the message says to check before trying again.
 */
export class WriteOutcomeUnknownError extends GatewayUnavailableError {}

/**
 * A console's circuit breaker is open: it failed several times in a row, so requests to it fail at
 * once, unsent, until a read gets through again. Nothing was sent; a write was not made.
 */
export class ConsoleNotAnsweringError extends GatewayUnavailableError {
  constructor(
    readonly console: string,
    message: string,
    readonly retryInMs: number,
  ) {
    super(message);
  }
}

/** The controller understood the request and refused it, with its own code (api.err.*). */
export class GatewayRejectedError extends BotError {
  readonly code = 'gateway_rejected';
  constructor(
    readonly controllerCode: string,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** The controller (or Site Manager) rate-limited us and the retry budget ran out. */
export class RateLimitedError extends BotError {
  readonly code = 'rate_limited';
  constructor(
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/**
 * The bot's own budget of cloud requests (Site Manager and the connector, per API key, shared by
 * every replica) had no token left within the read's budget: the request was not sent.
 */
export class RateBudgetSpentError extends RateLimitedError {}

/** The bot cannot record a change (its journal cannot be written): nothing was recorded or run. */
export class StoreUnavailableError extends BotError {
  readonly code = 'store_unavailable';
}

/** The environment is invalid; every bad variable is listed. */
export class ConfigError extends BotError {
  readonly code = 'config_invalid';
  constructor(readonly issues: FieldIssue[]) {
    super(`invalid configuration:\n${issues.map((i) => `  ${i.field}: ${i.rule}`).join('\n')}`);
  }
}

export function isBotError(error: unknown): error is BotError {
  return error instanceof BotError;
}
