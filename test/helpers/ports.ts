import { connect, createServer, type Server, type Socket } from 'node:net';

/** A loopback port held closed: connections to it are refused, and no ephemeral bind is given it. */
export interface ClosedPort {
  port: number;
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Lets the port go (after the test, or once something of the test's own listens on it). */
  release(): Promise<void>;
}

/**
 * A loopback port that refuses connections and stays unused until this test listens on it.
 *
 * A port found free and then released (listen on 0, close) can be bound by another process before
 * it is used: a test then meets someone else's server instead of a refusal, or cannot bind it
 * itself. Here the port is the local end of a connection this process keeps open (bound with
 * SO_REUSEADDR, not listening): the kernel refuses connections to it and never hands it to an
 * ephemeral bind (port 0, how every test server and child picks one), while a server of the test's
 * own (Node and PostgreSQL set SO_REUSEADDR) may still listen on it by number.
 */
export function closedPort(): Promise<ClosedPort> {
  return hold(0);
}

/**
 * Keeps `port`, which this process just stopped listening on, closed the same way until release():
 * a server that stops for a while and starts again on its port (see closedPort).
 */
export function keepClosed(port: number): Promise<ClosedPort> {
  return hold(port);
}

async function hold(localPort: number): Promise<ClosedPort> {
  const peers = new Set<Socket>();
  const anchor: Server = createServer((socket) => {
    peers.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve, reject) => {
    anchor.once('error', reject);
    anchor.listen(0, '127.0.0.1', () => resolve());
  });
  const anchorPort = (anchor.address() as { port: number }).port;
  const holder = await new Promise<Socket>((resolve, reject) => {
    // A local address makes Node bind the socket before connecting (with SO_REUSEADDR).
    const socket = connect(
      { port: anchorPort, host: '127.0.0.1', localAddress: '127.0.0.1', localPort },
      () => resolve(socket),
    );
    socket.once('error', reject);
  });
  holder.on('error', () => undefined);
  const port = holder.localPort;
  if (port === undefined) throw new Error('the holding connection has no local port');
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    async release() {
      holder.destroy();
      for (const peer of peers) peer.destroy();
      await new Promise<void>((resolve) => anchor.close(() => resolve()));
    },
  };
}
