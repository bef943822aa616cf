import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { RespondError } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postToResponseUrl, respondTo } from '../../src/slack/response-url.js';

interface Received {
  path: string;
  contentType: string | undefined;
  body: unknown;
  socket: Socket;
}

let server: Server;
let base: string;
const received: Received[] = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        path: req.url ?? '',
        contentType: req.headers['content-type'],
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
        socket: req.socket,
      });
      // Slack answers 404 "expired_url" for a response_url used up or too old.
      if (req.url?.startsWith('/expired')) res.writeHead(404, 'Not Found').end('expired_url');
      else res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('posting to a response_url (answers without WHATWG fetch)', () => {
  it('posts the message as JSON and resolves on 200', async () => {
    // Act
    await postToResponseUrl(`${base}/commands/T1/1/abc`, {
      response_type: 'ephemeral',
      replace_original: false,
      text: 'VLAN 30 IoT',
    });

    // Assert
    const last = received.at(-1);
    expect(last?.path).toBe('/commands/T1/1/abc');
    expect(last?.contentType).toBe('application/json');
    expect(last?.body).toEqual({ response_type: 'ephemeral', replace_original: false, text: 'VLAN 30 IoT' });
  });

  it('sends a bare string as the text of the message', async () => {
    // Act
    await postToResponseUrl(`${base}/commands/T1/2/def`, 'plain words');

    // Assert
    expect(received.at(-1)?.body).toEqual({ text: 'plain words' });
  });

  it("refuses with Bolt's RespondError and the status when Slack does not take the message", async () => {
    // Act
    const failure = await postToResponseUrl(`${base}/expired/1`, 'late').catch((error: unknown) => error);

    // Assert: the same error Bolt's respond throws, so the fallback to chat.postEphemeral is unchanged.
    expect(failure).toBeInstanceOf(RespondError);
    expect((failure as RespondError).statusCode).toBe(404);
    expect((failure as RespondError).message).toBe('Failed to respond to the response_url: 404 Not Found');
  });

  it('keeps the connection for the next answer', async () => {
    // Act: three answers in a row, as a burst of commands makes.
    const before = received.length;
    for (const n of [1, 2, 3]) await postToResponseUrl(`${base}/commands/T1/keep/${n}`, `answer ${n}`);

    // Assert: one connection carried all three (no handshake per answer).
    const sockets = new Set(received.slice(before).map((r) => r.socket));
    expect(received.length - before).toBe(3);
    expect(sockets.size).toBe(1);
  });

  it('refuses a URL that is not HTTP without sending anything', async () => {
    // Arrange
    const before = received.length;

    // Act
    const failures = await Promise.all(
      ['file:///etc/passwd', 'not a url'].map((url) => postToResponseUrl(url, 'x').catch((e: unknown) => e)),
    );

    // Assert
    expect(failures[0]).toBeInstanceOf(RespondError);
    expect((failures[0] as Error).message).toMatch(/file: is not HTTP/);
    expect(failures[1]).toBeInstanceOf(RespondError);
    expect(received.length).toBe(before);
  });
});

describe('respondTo', () => {
  it("answers through the request's response_url, and has nothing for a request without one", async () => {
    // Arrange
    const respond = respondTo({ command: '/net', response_url: `${base}/commands/T1/3/ghi` });

    // Act
    await respond?.({ text: 'through the url' });

    // Assert
    expect(received.at(-1)?.path).toBe('/commands/T1/3/ghi');
    expect(received.at(-1)?.body).toEqual({ text: 'through the url' });
    expect(respondTo({ type: 'block_actions', view: { id: 'V1' } })).toBeUndefined();
    expect(respondTo({ response_url: 42 })).toBeUndefined();
    expect(respondTo(undefined)).toBeUndefined();
  });
});
