import type { AuthorizeResult, webApi } from '@slack/bolt';
import { ConfigError } from '../../errors.js';
import type { Logger } from '../../log.js';

/**
 * auth.test answers that mean the token itself is refused: waiting will not change them, so the
 * bot stops (exit 2) instead of retrying. Anything else (no answer, HTTP 5xx, ratelimited,
 * internal_error, …) means Slack could not be asked, and is retried.
 */
export const REFUSED_TOKEN_ERRORS: ReadonlySet<string> = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'not_allowed_token_type',
  'not_bearer_token',
  'no_permission',
  'ekm_access_denied',
  'org_login_required',
  'team_access_not_granted',
]);

/** Waits between auth.test attempts while Slack cannot be reached: 1 s doubling to 60 s, then every 60 s. */
export const TOKEN_RETRY_DELAYS_MS: readonly number[] = [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000];

/** The Web API error code of an answer that refused the token, if it was one. */
function refusal(error: unknown): string | undefined {
  const data = (error as { code?: unknown; data?: { error?: unknown } } | undefined) ?? {};
  if (data.code !== 'slack_webapi_platform_error') return undefined;
  const code = typeof data.data?.error === 'string' ? data.data.error : undefined;
  return code && REFUSED_TOKEN_ERRORS.has(code) ? code : undefined;
}

/** Seconds Slack asked us to wait (a ratelimited answer), if it did. */
function retryAfterMs(error: unknown): number | undefined {
  const seconds = (error as { retryAfter?: unknown } | undefined)?.retryAfter;
  return typeof seconds === 'number' && seconds > 0 ? seconds * 1000 : undefined;
}

/** A scope a configured feature needs, and the feature in words. */
export interface WantedScope {
  scope: string;
  for: string;
}

/**
 * SLACK_BOT_TOKEN checked with auth.test: once at start, then retried in the background with
 * backoff while Slack cannot be reached, until Slack answers. Bolt's `authorize` is served from the
 * answer; a request that arrives before it asks once more. Bolt's own check (`token`) fired in its
 * constructor with its rejection unhandled, and never retried.
 */
export class SlackTokenCheck {
  private identity: AuthorizeResult | undefined;
  private refusedWith: string | undefined;
  private inFlight: Promise<AuthorizeResult> | undefined;
  private loop: Promise<void> | undefined;
  private firstAttempt: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly client: webApi.WebClient,
    private readonly botToken: string,
    private readonly logger: Logger,
    private readonly delaysMs: readonly number[] = TOKEN_RETRY_DELAYS_MS,
    /** Scopes a configured feature needs, each with what needs it: a missing one is warned of at start. */
    private readonly wantedScopes: readonly WantedScope[] = [],
  ) {}

  /** Slack has answered auth.test with this token. */
  get verified(): boolean {
    return this.identity !== undefined;
  }

  /** Slack refused the token (its error code), if it did. */
  get refused(): string | undefined {
    return this.refusedWith;
  }

  /** Bolt's `authorize`: the verified identity, or one more auth.test (shared by concurrent requests). */
  authorize = (): Promise<AuthorizeResult> => (this.identity ? Promise.resolve(this.identity) : this.check());

  /**
   * Resolves once Slack has answered auth.test; rejects with a ConfigError naming SLACK_BOT_TOKEN
   * when Slack refuses it. Starts the background retries on the first call.
   */
  untilVerified(): Promise<void> {
    if (!this.loop) {
      let attempted: () => void = () => {};
      this.firstAttempt = new Promise<void>((resolve) => {
        attempted = resolve;
      });
      this.loop = this.run(attempted);
      // The caller may attach its handlers later (after start() returned); a refusal must not
      // count as an unhandled rejection meanwhile.
      this.loop.catch(() => {});
    }
    return this.loop;
  }

  /** Resolves after the first auth.test attempt of `untilVerified`, whatever its outcome. */
  firstAnswer(): Promise<void> {
    void this.untilVerified();
    return this.firstAttempt ?? Promise.resolve();
  }

  /** Stops retrying (shutdown). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.wake?.();
  }

  private async run(attempted: () => void): Promise<void> {
    for (let attempt = 0; !this.stopped; attempt += 1) {
      if (this.identity) return attempted();
      try {
        await this.check();
        return attempted();
      } catch (error) {
        const code = refusal(error);
        if (code) {
          this.refusedWith = code;
          attempted();
          throw new ConfigError([
            {
              field: 'SLACK_BOT_TOKEN',
              rule: `was refused by Slack (${code}): use the Bot User OAuth Token (xoxb-…) from the app's OAuth & Permissions page, and reinstall the app if the token was revoked`,
            },
          ]);
        }
        const wait = Math.max(
          this.delaysMs[Math.min(attempt, this.delaysMs.length - 1)] ?? 60_000,
          retryAfterMs(error) ?? 0,
        );
        this.logger.warn(
          { err: error, attempt: attempt + 1, retry_in_ms: wait },
          `could not reach Slack to verify SLACK_BOT_TOKEN (auth.test); not ready, retrying in ${Math.round(wait / 1000)} s`,
        );
        attempted();
        await this.sleep(wait);
      }
    }
  }

  private check(): Promise<AuthorizeResult> {
    this.inFlight ??= this.client.auth
      .test()
      .then((answer) => {
        const identity: AuthorizeResult = {
          botToken: this.botToken,
          ...(answer.bot_id ? { botId: answer.bot_id } : {}),
          ...(answer.user_id ? { botUserId: answer.user_id } : {}),
        };
        if (!this.identity) {
          this.logger.info({ bot_user_id: answer.user_id }, 'SLACK_BOT_TOKEN verified (auth.test)');
          this.warnOfMissingScopes(answer.response_metadata?.scopes);
        }
        this.identity = identity;
        return identity;
      })
      .finally(() => {
        this.inFlight = undefined;
      });
    return this.inFlight;
  }

  /**
   * An app installed before a feature that needs a new scope keeps its old token: Slack says which
   * scopes the token holds, and a missing one is named with what needs it and how to get it.
   */
  private warnOfMissingScopes(held: readonly string[] | undefined): void {
    if (!held) return;
    for (const wanted of this.wantedScopes) {
      if (held.includes(wanted.scope)) continue;
      this.logger.warn(
        { scope: wanted.scope },
        `the Slack app's token lacks the ${wanted.scope} scope, which ${wanted.for} needs: add it (manifest.yml lists it) and reinstall the app`,
      );
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.timer = setTimeout(resolve, ms);
      this.timer.unref();
    });
  }
}
