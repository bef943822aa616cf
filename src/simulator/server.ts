import { setMaxListeners } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_API_VERSION } from './api-version.js';
import { SessionStore } from './auth.js';
import { createDemoSites, DEFAULT_SEED } from './demo-site.js';
import {
  Dispatcher,
  type DispatchRequest,
  errorKindOf,
  type ResolvedRoute,
  resolveRoute,
} from './dispatch.js';
import { classicErrorBody, renderError, SimError, send } from './envelopes.js';
import { FaultQueue, faultReply } from './faults.js';
import { logRequest, recordOf, requestLogDir } from './request-log.js';
import { SimulatorState } from './state.js';
import { advanceTraffic, type TrafficStep } from './traffic.js';
import type {
  FaultSpec,
  RecordedRequest,
  SimulatorFirewall,
  SimulatorFlavor,
  SimulatorOptions,
} from './types.js';

/** Demo credentials (local, printed by `npm run simulator`; not secrets). */
export const SIMULATOR_DEFAULTS = {
  flavor: 'unifi-os' as SimulatorFlavor,
  // New consoles on current firmware run the zone-based firewall (docs/decisions.md).
  firewall: 'zone-based' as SimulatorFirewall,
  apiKey: 'sim-demo-key-0000',
  username: 'admin',
  password: 'simulator',
  consoleId: '70A7419783ED0000000000000000000000000000000000000000000000000000:1261206302',
  loginRateLimit: 5,
} as const;

const MAX_BODY_BYTES = 1024 * 1024;

/** A running simulated controller. */
export interface Simulator {
  /** `http://127.0.0.1:<port>`: the base; callers add `/proxy/network` themselves on UniFi OS. */
  readonly url: string;
  readonly flavor: SimulatorFlavor;
  /** The demo site's firewall generation (zones and policies, or traditional rules). */
  readonly firewall: SimulatorFirewall;
  /** The UniFi Network version played (SIMULATOR_API_VERSION): which official operations exist. */
  readonly apiVersion: string;
  readonly apiKey: string;
  readonly username: string;
  readonly password: string;
  readonly consoleId: string;
  /** The live store; tests read and change it directly ("behind the bot's back"). */
  readonly state: SimulatorState;
  /** Every request received, in order (also those answered by an injected fault). */
  readonly requests: RecordedRequest[];
  clearRequests(): void;
  /** Queues a fault: latency, status, rate-limit (429 + Retry-After), drop (socket destroyed), or apply-then (done, then a 5xx or drop). */
  injectFault(spec: FaultSpec): void;
  clearFaults(): void;
  /** Invalidates every session; cookie requests then get 401 LoginRequired. */
  expireSessions(): void;
  /** Makes sitedpi/stadpi answer 200 with empty `data` (true) or with the counters (false), on every site. */
  setDpiEmpty(empty: boolean): void;
  /**
   * Advances byte and DPI counters on every site by one step (or on the site named `site`): known
   * amounts per client MAC, or every client at its demo rate. Tests drive telemetry windows with it.
   */
  advanceTraffic(step: TrafficStep, site?: string): void;
  /** Back to the freshly seeded site, start options re-applied (faults, sessions and recorded requests are kept). */
  reset(): void;
  /** Closes the server and every socket. */
  close(): Promise<void>;
}

function parseJson(raw: string): DispatchRequest['body'] {
  if (raw.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(raw) as unknown };
  } catch {
    return { ok: false };
  }
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A write body with `set`'s fields replaced: a dotted key names a field inside nested objects (the
 * official bodies nest what classic records keep flat, e.g. a DHCP range), created where missing.
 */
function storedAs(body: Record<string, unknown>, set: Record<string, unknown>): Record<string, unknown> {
  const stored = structuredClone(body);
  for (const [path, value] of Object.entries(set)) {
    const keys = path.split('.');
    const last = keys.pop() as string;
    let at = stored;
    for (const key of keys) {
      const inner = at[key];
      if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) at[key] = {};
      at = at[key] as Record<string, unknown>;
    }
    at[last] = value;
  }
  return stored;
}

class RunningSimulator implements Simulator {
  readonly requests: RecordedRequest[] = [];
  readonly state: SimulatorState;
  readonly #faults = new FaultQueue();
  readonly #sessions = new SessionStore();
  // Every request waiting out a latency fault listens on this one signal: 50 at once is a burst,
  // not a leak, so Node's 10-listener warning would only be noise.
  readonly #closing = (() => {
    const controller = new AbortController();
    setMaxListeners(0, controller.signal);
    return controller;
  })();
  readonly #dispatcher: Dispatcher;
  #url = '';

  // Deliberately alike: these fields implement the Simulator interface above, one for one.
  readonly flavor: SimulatorFlavor;
  readonly firewall: SimulatorFirewall;
  readonly apiVersion: string;
  readonly apiKey: string;
  readonly username: string;
  readonly password: string;
  readonly consoleId: string;
  readonly #emptyDpi: boolean;
  readonly #requestLog: string | undefined;
  readonly #delayMs: number;
  #trafficTimer: NodeJS.Timeout | undefined;

  constructor(
    config: Required<Omit<SimulatorOptions, 'port'>>,
    private readonly server: Server,
  ) {
    this.flavor = config.flavor;
    this.firewall = config.firewall;
    this.apiVersion = config.apiVersion;
    this.apiKey = config.apiKey;
    this.username = config.username;
    this.password = config.password;
    this.consoleId = config.consoleId;
    this.#emptyDpi = config.emptyDpi;
    this.#requestLog = config.requestLog === false ? undefined : config.requestLog;
    this.#delayMs = config.delayMs;
    this.state = new SimulatorState(
      config.seed,
      config.firewall,
      Math.floor(config.startedAt / 1000),
      config.sites,
    );
    this.#dispatcher = new Dispatcher({ ...config, state: this.state, sessions: this.#sessions });
    if (config.emptyDpi) this.setDpiEmpty(true);
    this.state.actionDelayMs = config.actionDelayMs;
    if (config.trafficIntervalMs > 0) {
      const seconds = config.trafficIntervalMs / 1000;
      this.#trafficTimer = setInterval(() => this.advanceTraffic({ seconds }), config.trafficIntervalMs);
      this.#trafficTimer.unref();
    }
  }

  get url(): string {
    return this.#url;
  }

  async listen(port: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const address = this.server.address() as AddressInfo;
    this.#url = `http://127.0.0.1:${address.port}`;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = (req.method ?? 'GET').toUpperCase();
    const target: ResolvedRoute = resolveRoute(this.flavor, url.pathname);
    const raw = await readBody(req);
    const body = raw === undefined ? ({ ok: false } as const) : parseJson(raw);
    const record = recordOf(req, method, url, target.route, body.ok ? body.value : raw);
    this.requests.push(record);
    if (this.#requestLog !== undefined) {
      logRequest(this.#requestLog, { ...record, userAgent: req.headers['user-agent'] });
    }
    if (this.#delayMs > 0) await sleep(this.#delayMs, undefined, { signal: this.#closing.signal });
    if (raw === undefined)
      return send(res, { status: 413, body: classicErrorBody('api.err.InvalidPayload') });

    const fault = this.#faults.take(method, target.route);
    if (fault?.kind === 'store-as' && body.ok && typeof body.value === 'object' && body.value !== null) {
      const stored = storedAs(body.value as Record<string, unknown>, fault.set);
      return send(
        res,
        this.#dispatcher.handle(
          { method, query: url.searchParams, headers: req.headers, body: { ok: true, value: stored } },
          target,
        ),
      );
    }
    if (fault?.kind === 'drop') {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'latency') {
      await sleep(fault.ms, undefined, { signal: this.#closing.signal });
    } else if (fault?.kind === 'hold') {
      await fault.until(record);
    } else if (fault?.kind === 'apply-then') {
      const applied = this.#dispatcher.handle(
        { method, query: url.searchParams, headers: req.headers, body },
        target,
      );
      if (fault.drop === true) {
        req.socket.destroy();
        return;
      }
      const { drop: _drop, ...status } = fault;
      const reply = faultReply(
        { ...status, kind: 'status', status: fault.status ?? 500 },
        errorKindOf(target),
        target.route,
      );
      // The headers of the request's own answer (a rotated CSRF token) still reach the client.
      return send(res, { ...reply, headers: { ...applied.headers, ...reply.headers } });
    } else if (fault && fault.kind !== 'store-as') {
      return send(res, faultReply(fault, errorKindOf(target), target.route));
    }
    send(
      res,
      this.#dispatcher.handle({ method, query: url.searchParams, headers: req.headers, body }, target),
    );
  }

  clearRequests(): void {
    this.requests.length = 0;
  }

  injectFault(spec: FaultSpec): void {
    this.#faults.add(spec);
  }

  clearFaults(): void {
    this.#faults.clear();
  }

  expireSessions(): void {
    this.#sessions.expireAll();
  }

  setDpiEmpty(empty: boolean): void {
    for (const site of this.state.sites) site.dpi.empty = empty;
  }

  advanceTraffic(step: TrafficStep, site?: string): void {
    for (const each of this.state.sites)
      if (site === undefined || each.name === site) advanceTraffic(each, step);
  }

  reset(): void {
    this.state.reset();
    if (this.#emptyDpi) this.setDpiEmpty(true);
  }

  async close(): Promise<void> {
    clearInterval(this.#trafficTimer);
    this.#closing.abort();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

/** Starts a simulated UniFi Network controller on a loopback port. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const server = createServer();
  const simulator = new RunningSimulator(
    {
      flavor: options.flavor ?? SIMULATOR_DEFAULTS.flavor,
      firewall: options.firewall ?? SIMULATOR_DEFAULTS.firewall,
      apiKey: options.apiKey ?? SIMULATOR_DEFAULTS.apiKey,
      username: options.username ?? SIMULATOR_DEFAULTS.username,
      password: options.password ?? SIMULATOR_DEFAULTS.password,
      consoleId: options.consoleId ?? SIMULATOR_DEFAULTS.consoleId,
      seed: options.seed ?? DEFAULT_SEED,
      startedAt: options.startedAt ?? Date.now(),
      loginRateLimit: options.loginRateLimit ?? SIMULATOR_DEFAULTS.loginRateLimit,
      emptyDpi: options.emptyDpi ?? false,
      actionDelayMs: options.actionDelayMs ?? 20_000,
      trafficIntervalMs: options.trafficIntervalMs ?? 0,
      apiVersion: options.apiVersion ?? DEFAULT_API_VERSION,
      officialAlso: options.officialAlso ?? [],
      requestLog: requestLogDir(options.requestLog) ?? false,
      sites: options.sites ?? createDemoSites,
      delayMs: options.delayMs ?? 0,
    },
    server,
  );
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    simulator.handle(req, res).catch((error: unknown) => {
      // Aborted sleeps (close() during latency) and client resets end here; anything else is a bug.
      if (res.headersSent || res.destroyed) return;
      const reply =
        error instanceof Error && error.name === 'AbortError'
          ? { status: 503, body: classicErrorBody('api.err.ServerError') }
          : renderError('classic', new SimError(500, 'api.err.ServerError', 'Internal simulator error'), '');
      send(res, reply);
    });
  });
  await simulator.listen(options.port ?? 0);
  return simulator;
}
