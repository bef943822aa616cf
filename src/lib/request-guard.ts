/**
 * What may stand between a gateway and the network: a console's circuit breaker, a shared rate
 * budget. A guard sees each request before it leaves (and may refuse it, so it never leaves) and is
 * told how it ended. The gateway applies guards without knowing what they decide on; the fleet's
 * guards know nothing of the gateway.
 */

/** How an admitted request ended: answered (any status), failed on the way, or never sent. */
export type RequestOutcome =
  | { kind: 'answered'; status: number }
  | { kind: 'failed'; error: unknown }
  | { kind: 'not-sent' };

/** The request as a guard sees it: no headers, no body (they may hold secrets). */
export interface GuardedRequest {
  /** GET for reads; anything else may change the controller. */
  method: string;
  url: string;
  /** The longest this request may take, waits included, in ms. */
  timeoutMs: number;
}

export interface RequestGuard {
  /** Resolves when the request may leave, with what to call once it ended; rejects (a BotError) to keep it. */
  admit(request: GuardedRequest): Promise<(outcome: RequestOutcome) => void>;
}
