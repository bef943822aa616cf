import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { GatewayUnavailableError } from '../../src/errors.js';
import {
  BodySink,
  createTransport,
  ReceiveBuffers,
  ResponseTooLargeError,
  type Transport,
} from '../../src/gateway/transport.js';
import { silentLogger } from '../../src/log.js';

const KIB = 1024;
const MIB = 1024 * KIB;

/** A JSON answer of about `bytes` bytes with non-ASCII names (the Latin-1 decode and its repair). */
function answer(tag: string, bytes: number): { body: Buffer; value: unknown } {
  const data: { name: string; mac: string }[] = [];
  for (let i = 0, size = 0; size < bytes; i += 1) {
    const record = { name: `${tag} Küche ☕ ${i}`, mac: `02:00:00:00:${(i >> 8) & 255}:${i & 255}` };
    data.push(record);
    size += Buffer.byteLength(JSON.stringify(record)) + 1;
  }
  const value = { meta: { rc: 'ok' }, data };
  return { body: Buffer.from(JSON.stringify(value)), value };
}

/** Raw HTTP on loopback: each test says exactly what bytes the "controller" writes. */
let raw: Server;
let rawUrl = '';
let onRaw: (socket: Socket) => void = (socket) => socket.destroy();
const sockets = new Set<Socket>();

/** An ordinary HTTP server for honest answers (Content-Length, chunked, gzip). */
let http: ReturnType<typeof createHttpServer>;
let httpUrl = '';
let onHttp: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();

const transports: Transport[] = [];
function transport(maxResponseBytes: number): Transport {
  const t = createTransport({ timeoutMs: 20_000, verifyTls: true, maxResponseBytes, logger: silentLogger() });
  transports.push(t);
  return t;
}
const get = (t: Transport, url: string) => t.send({ method: 'GET', url, headers: {} });

beforeAll(async () => {
  raw = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.once('data', () => onRaw(socket));
  });
  await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
  const rawAddress = raw.address();
  rawUrl = `http://127.0.0.1:${typeof rawAddress === 'object' && rawAddress ? rawAddress.port : 0}/api`;
  http = createHttpServer((req, res) => onHttp(req, res));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const httpAddress = http.address();
  httpUrl = `http://127.0.0.1:${typeof httpAddress === 'object' && httpAddress ? httpAddress.port : 0}/api`;
});

afterEach(() => {
  for (const t of transports.splice(0)) t.close();
  for (const socket of sockets) socket.destroy();
});

afterAll(async () => {
  await new Promise((resolve) => raw.close(resolve));
  http.closeAllConnections();
  await new Promise((resolve) => http.close(resolve));
});

describe('transport: reading an answer into memory', () => {
  it('reads answers with Content-Length, chunked and gzip alike; a later answer never changes an earlier one', async () => {
    const one = answer('one', 2 * MIB);
    const two = answer('two', 2 * MIB);
    const three = answer('three', 2 * MIB);
    const bodies = [one.body, two.body, three.body];
    let served = 0;
    onHttp = (_req, res) => {
      const body = bodies[served] ?? Buffer.alloc(0);
      served += 1;
      if (served === 1)
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      else if (served === 2) res.writeHead(200, { 'content-type': 'application/json' });
      else {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(gzipSync(body));
        return;
      }
      // In pieces, as a socket delivers them.
      for (let at = 0; at < body.length; at += 100 * KIB) res.write(body.subarray(at, at + 100 * KIB));
      res.end();
    };
    const t = transport(8 * MIB);
    const first = await get(t, httpUrl);
    const second = await get(t, httpUrl);
    const third = await get(t, httpUrl);
    // The text of the first is read only now, after two more answers went through the transport.
    expect(first.json).toEqual(one.value);
    expect(first.text).toBe(one.body.toString('utf8'));
    expect(second.json).toEqual(two.value);
    expect(second.text).toBe(two.body.toString('utf8'));
    expect(third.json).toEqual(three.value);
  });

  it('a Content-Length shorter than what is sent never reads past it; a longer one fails as a dropped connection', async () => {
    onRaw = (socket) => {
      socket.end(
        'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{"a":1}{"b":2, trailing',
      );
    };
    const t = transport(64 * KIB);
    // Node's parser takes the declared 7 bytes as the body; the rest is a broken next response,
    // which it may report before the body ends: either way nothing past the length is read.
    const short = await get(t, rawUrl).then(
      (response) => response.json,
      (error: unknown) => (error instanceof GatewayUnavailableError ? 'dropped' : error),
    );
    expect([{ a: 1 }, 'dropped']).toContainEqual(short);

    onRaw = (socket) => {
      socket.end('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"a":1');
    };
    const cut = get(t, rawUrl);
    await expect(cut).rejects.toBeInstanceOf(GatewayUnavailableError);
    await expect(cut).rejects.not.toBeInstanceOf(ResponseTooLargeError);
  });

  it('refuses a declared length over the limit before reading a byte of the body', async () => {
    // Headers only, the socket left open: waiting for the body would hang until the 20 s timeout.
    onRaw = (socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 70000\r\n\r\n');
    };
    const t = transport(64 * KIB);
    await expect(get(t, rawUrl)).rejects.toThrow(
      /larger than GATEWAY_MAX_RESPONSE_BYTES \(65536 bytes, 64 KiB/,
    );
  });

  it('applies the limit to the bytes received: chunked, a lying small Content-Length with gzip, a gzip bomb', async () => {
    const t = transport(64 * KIB);
    const big = Buffer.from(`[${'1,'.repeat(40 * KIB)}1]`);
    onHttp = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      for (let at = 0; at < big.length; at += 16 * KIB) res.write(big.subarray(at, at + 16 * KIB));
      res.end();
    };
    await expect(get(t, httpUrl)).rejects.toBeInstanceOf(ResponseTooLargeError);

    // 1 MiB of JSON in a few KiB of gzip, its Content-Length honest about the compressed bytes only.
    const bomb = gzipSync(Buffer.from(`[${'0,'.repeat(512 * KIB)}0]`));
    expect(bomb.length).toBeLessThan(16 * KIB);
    onHttp = (_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': bomb.length,
      });
      res.end(bomb);
    };
    await expect(get(t, httpUrl)).rejects.toBeInstanceOf(ResponseTooLargeError);

    // The limit itself still passes.
    const fits = Buffer.from(`[${'1,'.repeat(32 * KIB - 2)}1]`);
    expect(fits.length).toBeLessThanOrEqual(64 * KIB);
    onHttp = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': fits.length });
      res.end(fits);
    };
    expect(((await get(t, httpUrl)).json as unknown[]).length).toBe(32 * KIB - 1);
  });
});

describe('BodySink and ReceiveBuffers', () => {
  it('copies into the buffer the declared length takes; more bytes than declared, or fewer, are kept as they came', () => {
    const buffers = new ReceiveBuffers(MIB);
    const exact = new BodySink(buffers);
    exact.presize(6, MIB);
    exact.add(Buffer.from('abc'));
    exact.add(Buffer.from('def'));
    expect(exact.body().toString()).toBe('abcdef');
    expect(exact.backing?.length).toBeGreaterThanOrEqual(6);

    const longer = new BodySink(buffers);
    longer.presize(4, MIB);
    longer.add(Buffer.from('abc'));
    longer.add(Buffer.from('defgh'));
    longer.add(Buffer.from('ij'));
    expect(longer.body().toString()).toBe('abcdefghij');
    expect(longer.size).toBe(10);

    const shorter = new BodySink(buffers);
    shorter.presize(100, MIB);
    shorter.add(Buffer.from('abc'));
    expect(shorter.body().toString()).toBe('abc');

    // A declared length over the limit, or not a length, takes no buffer.
    const unbounded = new BodySink(buffers);
    unbounded.presize(2 * MIB, MIB);
    unbounded.presize(Number.NaN, MIB);
    unbounded.add(Buffer.from('x'));
    unbounded.add(Buffer.from('y'));
    expect(unbounded.body().toString()).toBe('xy');
  });

  it('keeps the largest large buffer for the next answer, at most the limit, and drops it after a quiet minute', () => {
    vi.useFakeTimers();
    try {
      const buffers = new ReceiveBuffers(8 * MIB);
      const first = buffers.take(2 * MIB);
      expect(first.length).toBeGreaterThanOrEqual(2 * MIB);
      buffers.give(first);
      expect(buffers.held).toBe(first.length);
      // The spare is handed out once, then a new buffer is made while it is in use.
      expect(buffers.take(MIB)).toBe(first);
      expect(buffers.take(MIB)).not.toBe(first);
      buffers.give(first);
      buffers.give(Buffer.alloc(MIB + 1));
      expect(buffers.held).toBe(first.length);
      // Small buffers and buffers over the limit are never kept.
      buffers.clear();
      buffers.give(Buffer.alloc(64 * KIB));
      buffers.give(Buffer.alloc(9 * MIB));
      expect(buffers.held).toBe(0);
      buffers.give(first);
      vi.advanceTimersByTime(59_000);
      expect(buffers.held).toBe(first.length);
      vi.advanceTimersByTime(2_000);
      expect(buffers.held).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
