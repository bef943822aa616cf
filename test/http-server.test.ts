import { afterEach, describe, expect, it } from 'vitest';
import { createHttpServer, type HttpServer } from '../src/http-server.js';

describe('the process HTTP server', () => {
  let server: HttpServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const start = async (...routes: { path: string; methods: string[]; text: string }[]) => {
    server = createHttpServer();
    for (const r of routes)
      server.route({ path: r.path, methods: r.methods, handler: (_req, res) => res.end(r.text) });
    return `http://127.0.0.1:${await server.listen(0)}`;
  };

  it('answers a route by path and method, the query string aside, and 404 for anything else', async () => {
    const base = await start(
      { path: '/a', methods: ['GET'], text: 'a' },
      { path: '/b', methods: ['POST'], text: 'b' },
    );
    expect(await (await fetch(`${base}/a?x=1`)).text()).toBe('a');
    expect((await fetch(`${base}/b`)).status).toBe(404);
    expect(await (await fetch(`${base}/b`, { method: 'POST' })).text()).toBe('b');
    expect((await fetch(`${base}/c`)).status).toBe(404);
  });

  it('lets the first route registered for a path and method answer', async () => {
    const base = await start(
      { path: '/a', methods: ['GET'], text: 'first' },
      { path: '/a', methods: ['GET'], text: 'second' },
    );
    expect(await (await fetch(`${base}/a`)).text()).toBe('first');
  });

  it('rejects a taken port instead of crashing, and closes when it never listened', async () => {
    const base = await start();
    const port = Number(new URL(base).port);
    const other = createHttpServer();
    await expect(other.listen(port)).rejects.toThrow(/EADDRINUSE/);
    await expect(other.close()).resolves.toBeUndefined();
  });
});
