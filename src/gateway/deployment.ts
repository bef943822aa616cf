import { GatewayUnavailableError } from '../errors.js';
import type { Logger } from '../log.js';
import { type Deployment, hostOf, joinUrl } from './paths.js';
import { markRetryable } from './retry.js';
import type { Transport } from './transport.js';

/**
 * Tells a UniFi OS console from a self-hosted controller the way aiounifi and Art-of-WiFi do:
 * `GET /` without following redirects; 200 is UniFi OS (its login page), a redirect (302 to
 * `/manage`) is a legacy controller.
 */
export async function detectDeployment(
  transport: Transport,
  url: string,
  timeoutMs: number,
  logger: Logger,
  attempt = 1,
): Promise<Deployment> {
  const response = await transport.send({
    method: 'GET',
    url: joinUrl(url, '/'),
    headers: { accept: 'text/html,application/json' },
    timeoutMs,
    attempt,
  });
  if (response.status >= 200 && response.status < 300) return 'unifi-os';
  if (response.status >= 300 && response.status < 400) return 'self-hosted';
  if (response.status >= 500) {
    throw markRetryable(
      new GatewayUnavailableError(
        `${hostOf(url)} answered HTTP ${response.status} to GET /`,
        response.status,
      ),
      { reason: `HTTP ${response.status}` },
    );
  }
  // A reverse proxy in front of a console may refuse `/`; UniFi OS is the common case today.
  logger.warn(
    { status: response.status },
    'could not tell the controller type from GET /; assuming UniFi OS',
  );
  return 'unifi-os';
}

/** Runs a lazy lookup once; concurrent callers share it, and a failure is forgotten so a later call tries again. */
export class Once<T> {
  private pending?: Promise<T>;
  private loaded?: { value: T };

  constructor(private readonly load: () => Promise<T>) {}

  /** The value, loading it on first use. */
  get(): Promise<T> {
    if (this.pending === undefined) {
      const pending = this.load();
      this.pending = pending;
      pending.then(
        (value) => {
          if (this.pending === pending) this.loaded = { value };
        },
        () => {
          if (this.pending === pending) this.pending = undefined;
        },
      );
    }
    return this.pending;
  }

  /** The value if it has been loaded, without loading it. */
  peek(): { value: T } | undefined {
    return this.loaded;
  }
}
