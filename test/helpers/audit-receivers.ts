import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';

/** A syslog receiver on loopback: it parses RFC 6587 octet-counted frames into messages. */
export interface SyslogReceiver {
  readonly port: number;
  readonly messages: string[];
  /** Drops every connection and stops listening (a receiver that died). */
  kill(): Promise<void>;
  /** Listens again on the same port. */
  revive(): Promise<void>;
  close(): Promise<void>;
}

export async function startSyslogReceiver(tls?: { key: string; cert: string }): Promise<SyslogReceiver> {
  const messages: string[] = [];
  const sockets = new Set<Socket>();
  const onSocket = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const space = pending.indexOf(32);
        if (space === -1) return;
        const length = Number(pending.subarray(0, space).toString('ascii'));
        if (pending.length < space + 1 + length) return;
        messages.push(pending.subarray(space + 1, space + 1 + length).toString('utf8'));
        pending = pending.subarray(space + 1 + length);
      }
    });
  };
  const make = (): Server => (tls ? createTlsServer(tls, onSocket) : createTcpServer(onSocket));
  let server = make();
  const listen = (port: number) =>
    new Promise<number>((resolve) =>
      server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
    );
  const port = await listen(0);
  const kill = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    port,
    messages,
    kill,
    async revive() {
      server = make();
      await listen(port);
    },
    close: () => kill().catch(() => undefined),
  };
}

/** One POST a webhook receiver took: its headers and body. */
export interface WebhookDelivery {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A webhook receiver on loopback; `status` is what it answers (503 plays a receiver that is down). */
export interface WebhookReceiver {
  readonly url: string;
  readonly deliveries: WebhookDelivery[];
  status: number;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const deliveries: WebhookDelivery[] = [];
  const receiver = { status: 200 };
  const server: HttpServer = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (receiver.status >= 200 && receiver.status < 300) {
        deliveries.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      }
      res.writeHead(receiver.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/audit`,
    deliveries,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
