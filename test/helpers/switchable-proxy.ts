import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { type ClosedPort, keepClosed } from './ports.js';

/** A loopback TCP proxy in front of a server that can stop listening, as a controller that restarts. */
export interface SwitchableProxy {
  /** `http://127.0.0.1:<port>`: the proxy's own address (the same port after `accept()`). */
  url: string;
  /**
   * Stops listening and drops open connections: new ones are refused (ECONNREFUSED). The port is
   * kept closed meanwhile, so no other process can take it before accept().
   */
  refuse(): Promise<void>;
  /** Listens again on the same port. */
  accept(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a proxy to `target` (`http://127.0.0.1:<port>`) on an ephemeral loopback port. */
export async function startSwitchableProxy(target: string): Promise<SwitchableProxy> {
  const { hostname, port: targetPort } = new URL(target);
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: hostname, port: Number(targetPort) });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        const address = server.address();
        resolve(typeof address === 'object' && address ? address.port : port);
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  const port = await listen(0);
  let kept: ClosedPort | undefined;
  const letGo = async () => {
    await kept?.release();
    kept = undefined;
  };
  return {
    url: `http://127.0.0.1:${port}`,
    async refuse() {
      if (!server.listening) return;
      await stop();
      kept = await keepClosed(port);
    },
    async accept() {
      if (!server.listening) await listen(port);
      await letGo();
    },
    async close() {
      await stop();
      await letGo();
    },
  };
}
