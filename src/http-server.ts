import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One HTTP route on the bot's port. */
export interface HttpRoute {
  path: string;
  methods: readonly string[];
  /** Gets the request unread and must answer it: each route checks its own credentials. */
  handler: (req: IncomingMessage, res: ServerResponse) => void;
}

/**
 * The process's one HTTP server, on PORT: each face registers its routes (Slack's events and
 * /healthz, `/mcp`, the Alarm Manager webhook) and the face that owns the process starts and
 * stops it. Anything else is 404.
 */
export interface HttpServer {
  /** Adds a route; the first registered for a path and method answers. */
  route(route: HttpRoute): void;
  /** Listens on `port` (0: any free one); rejects on EADDRINUSE and the like instead of crashing. */
  listen(port: number): Promise<number>;
  /** Drops open connections and stops listening; resolves at once when not listening. */
  close(): Promise<void>;
}

export function createHttpServer(): HttpServer {
  const routes: HttpRoute[] = [];
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const route = routes.find((r) => r.path === path && r.methods.includes(req.method ?? ''));
    if (route) return route.handler(req, res);
    res.writeHead(404).end();
  });
  return {
    route: (route) => void routes.push(route),
    listen: (port) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, () => {
          server.off('error', reject);
          resolve((server.address() as AddressInfo).port);
        });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
