import { fork } from 'node:child_process';
import { Agent, createServer, request as httpRequest, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import type { Interval } from './stats.js';

/** How the controller behaves: answer (through the simulator), accept and never answer, or refuse connections. */
export type ControllerMode = 'forward' | 'hang' | 'refuse';

/** One request as the controller side saw it; `end` is unset while it hangs. */
export interface ObservedRequest {
  method: string;
  path: string;
  start: number;
  end?: number;
  status?: number;
}

/**
 * The bot's controller in the benchmark: the simulator behind a small recording proxy on
 * loopback. The simulator records requests without times, so the proxy notes when each one
 * arrived and when its answer was finished (performance.now() of this process), which is what
 * the rounds computation needs. Latency is the simulator's own fault injection. The proxy can
 * also hang (accept, never answer) or refuse connections (its port closed), on the same URL.
 */
export class BenchController {
  readonly requests: ObservedRequest[] = [];
  private mode: ControllerMode = 'forward';
  private readonly sockets = new Set<Socket>();
  private readonly hanging = new Set<ServerResponse>();
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });
  private listening = false;

  private constructor(
    readonly sim: Simulator,
    private readonly server: Server,
    private readonly port: number,
  ) {}

  /** Starts a fresh simulator and its proxy in `mode`. */
  static async start(
    options: { latencyMs?: number; mode?: ControllerMode; firewall?: 'legacy' | 'zone-based' } = {},
  ): Promise<BenchController> {
    const sim = await startSimulator(options.firewall ? { firewall: options.firewall } : {});
    const server = createServer();
    const port = await listen(server, 0);
    const controller = new BenchController(sim, server, port);
    controller.listening = true;
    server.on('connection', (socket: Socket) => {
      controller.sockets.add(socket);
      socket.once('close', () => controller.sockets.delete(socket));
    });
    server.on('request', (req, res) => controller.handle(req, res));
    controller.setLatency(options.latencyMs ?? 0);
    await controller.setMode(options.mode ?? 'forward');
    return controller;
  }

  /** The URL the bot is given as GATEWAY_URL. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get apiKey(): string {
    return this.sim.apiKey;
  }

  /** Every request to the simulator waits this long before its answer (0: none). */
  setLatency(ms: number): void {
    this.sim.clearFaults();
    if (ms > 0) this.sim.injectFault({ kind: 'latency', ms, times: Number.POSITIVE_INFINITY });
  }

  async setMode(mode: ControllerMode): Promise<void> {
    this.mode = mode;
    if (mode === 'refuse' && this.listening) {
      this.listening = false;
      const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
      for (const socket of this.sockets) socket.destroy();
      await closed;
    } else if (mode !== 'refuse' && !this.listening) {
      await listen(this.server, this.port);
      this.listening = true;
    }
  }

  clearRequests(): void {
    this.requests.length = 0;
  }

  /** Answered requests as intervals, for the rounds computation. */
  intervals(): Interval[] {
    return this.requests.flatMap((r) => (r.end === undefined ? [] : [{ start: r.start, end: r.end }]));
  }

  /** Times one plain read through the proxy: the controller's round trip, a floor for the read figures. */
  roundTrip(): Promise<number> {
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        `${this.url}/proxy/network/api/s/default/rest/networkconf`,
        { headers: { 'x-api-key': this.apiKey, accept: 'application/json' }, agent: this.agent },
        (res) => {
          res.resume();
          res.once('end', () => resolve(performance.now() - started));
        },
      );
      req.once('error', reject);
      req.end();
    });
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    if (this.listening) {
      const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
      for (const socket of this.sockets) socket.destroy();
      await closed;
    }
    this.agent.destroy();
    await this.sim.close();
  }

  private handle(req: import('node:http').IncomingMessage, res: ServerResponse): void {
    const record: ObservedRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      start: performance.now(),
    };
    this.requests.push(record);
    if (this.mode === 'hang') {
      req.resume();
      this.hanging.add(res);
      res.once('close', () => this.hanging.delete(res));
      return;
    }
    const upstream = httpRequest(
      {
        host: '127.0.0.1',
        port: new URL(this.sim.url).port,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent: this.agent,
      },
      (answer) => {
        // Buffered, so that `end` is when the whole answer left: the bot cannot have read it
        // before, and a request that depends on it cannot start before.
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.once('end', () => {
          record.status = answer.statusCode;
          const headers = { ...answer.headers };
          delete headers['transfer-encoding'];
          const body = Buffer.concat(chunks);
          headers['content-length'] = String(body.length);
          res.writeHead(answer.statusCode ?? 502, headers);
          record.end = performance.now();
          res.end(body);
        });
      },
    );
    upstream.once('error', () => res.destroy());
    req.pipe(upstream);
  }
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** The synthetic controller of bench/apps/synthetic-controller.ts, running in its own process. */
export interface SyntheticController {
  url: string;
  apiKey: string;
  pid: number;
  /** Moves every client's counters on by `seconds` of traffic; resolves when done. */
  advance(seconds: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Forks the synthetic controller (the simulator serving a site of `devices` and `clients`) and
 * waits until it listens. Its CPU is its own: the bench process runs only the bot.
 */
export async function startSyntheticController(options: {
  devices: number;
  clients: number;
  seed?: number;
}): Promise<SyntheticController> {
  const script = new URL('../apps/synthetic-controller.ts', import.meta.url);
  const child = fork(
    fileURLToPath(script),
    [
      '--devices',
      String(options.devices),
      '--clients',
      String(options.clients),
      '--seed',
      String(options.seed ?? 2024),
    ],
    { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await new Promise<{ url: string; apiKey: string }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the synthetic controller exited with code ${code}`)));
    child.on('message', (message: { type: string; url?: string; apiKey?: string }) => {
      if (message.type === 'ready' && message.url && message.apiKey)
        resolve({ url: message.url, apiKey: message.apiKey });
    });
  });
  return {
    ...ready,
    pid: child.pid ?? 0,
    advance: (seconds) =>
      new Promise<void>((resolve) => {
        const done = (message: { type: string }) => {
          if (message.type !== 'advanced') return;
          child.off('message', done);
          resolve();
        };
        child.on('message', done);
        child.send({ type: 'advance', seconds });
      }),
    async close() {
      if (child.connected) child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
