import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import { createGzip } from 'node:zlib';

/** What the stand-in answers itself instead of the controller behind it; undefined passes the request on. */
export type Intercept = (req: IncomingMessage, res: ServerResponse) => boolean;

/** A controller stand-in on loopback: the simulator behind it, with chosen answers replaced. */
export interface HostileController {
  url: string;
  /** Replaces the current intercept (none: every request reaches the simulator). */
  intercept(handler: Intercept | undefined): void;
  close(): Promise<void>;
}

/** Starts the stand-in in front of `target` (the simulator's url). */
export async function startHostileController(target: string): Promise<HostileController> {
  const upstream = new URL(target);
  let handler: Intercept | undefined;
  const server: Server = createServer((req, res) => {
    if (handler?.(req, res)) return;
    const forward = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    intercept(next) {
      handler = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A gzip bomb: a classic envelope whose `data` is `inflatedBytes` of spaces, gzip-compressed (about
 * a thousandth of its size). Built by streaming, so the test process never holds the inflated body.
 */
export async function gzipBomb(inflatedBytes: number): Promise<Buffer> {
  const gzip = createGzip({ level: 9 });
  const out: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => out.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    gzip.on('end', resolve);
    gzip.on('error', reject);
  });
  gzip.write('{"meta":{"rc":"ok"},"data":[');
  const block = Buffer.alloc(1024 * 1024, 0x20);
  for (let written = 0; written < inflatedBytes; written += block.length) {
    if (!gzip.write(block)) await new Promise((resolve) => gzip.once('drain', resolve));
  }
  gzip.end(']}');
  await done;
  return Buffer.concat(out);
}

/** Peak resident memory of a process so far (VmHWM), in bytes; Linux only. */
export async function peakRss(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = /^VmHWM:\s+(\d+) kB/m.exec(status);
  if (!match?.[1]) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}
