import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

/** A message the bot sent over the socket (acks carry the envelope id, and a payload when they answer). */
export interface SocketMessage {
  envelope_id?: string;
  payload?: Record<string, unknown>;
}

/**
 * A stand-in for Slack's Socket Mode endpoint on loopback: greets each connection with `hello`,
 * sends envelopes the test asks for, and records what the bot sends back. The fake Web API's
 * apps.connections.open hands out `url`.
 */
export interface FakeSocketMode {
  url: string;
  /** Connections opened so far. */
  connections: number;
  /** Everything the bot sent, parsed. */
  received: SocketMessage[];
  /** Sends one envelope to the connected bot; returns its envelope_id. */
  send(type: 'slash_commands' | 'interactive' | 'events_api', payload: Record<string, unknown>): string;
  /** Sends a frame exactly as given (malformed envelopes). */
  sendRaw(text: string): void;
  /** The ack the bot sent for an envelope, once it has. */
  ackOf(envelopeId: string): SocketMessage | undefined;
  /** Resolves once `predicate` holds, or rejects after `timeoutMs`. */
  waitFor(predicate: () => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts the fake on an ephemeral loopback port. */
export async function startFakeSocketMode(): Promise<FakeSocketMode> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const received: SocketMessage[] = [];
  let socket: WebSocket | undefined;
  let envelopes = 0;
  const fake: FakeSocketMode = {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/link`,
    connections: 0,
    received,
    send(type, payload) {
      if (!socket) throw new Error('the bot is not connected to the fake Socket Mode endpoint');
      envelopes += 1;
      const envelopeId = `env-${envelopes}`;
      socket.send(
        JSON.stringify({
          envelope_id: envelopeId,
          type,
          payload,
          accepts_response_payload: type !== 'events_api',
        }),
      );
      return envelopeId;
    },
    sendRaw(text) {
      if (!socket) throw new Error('the bot is not connected to the fake Socket Mode endpoint');
      socket.send(text);
    },
    ackOf: (envelopeId) => received.find((m) => m.envelope_id === envelopeId),
    async waitFor(predicate, timeoutMs = 10_000) {
      const started = Date.now();
      while (!predicate()) {
        if (Date.now() - started > timeoutMs) throw new Error('the fake Socket Mode endpoint never saw it');
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve());
      }),
  };
  server.on('connection', (ws) => {
    socket = ws;
    fake.connections += 1;
    ws.on('message', (data) => {
      received.push(JSON.parse(String(data)) as SocketMessage);
    });
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: 1,
        connection_info: { app_id: 'A1' },
        debug_info: { host: 'fake', approximate_connection_time: 18060 },
      }),
    );
  });
  return fake;
}
