import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { type RespondArguments, RespondError } from '@slack/bolt';

/** How long one post to a response_url may take before it counts as failed (Bolt's has no limit). */
export const RESPONSE_URL_TIMEOUT_MS = 10_000;

// Kept-alive connections: every answer of a burst goes to the same Slack host, and a TLS handshake
// per answer would cost more than the answer. Idle sockets do not hold the process open, and are
// closed after 4 s (or sooner when the server's Keep-Alive header says so), before a server that
// closes idle connections could close one just as an answer is sent on it.
const IDLE_SOCKET_MS = 4_000;
const agents = {
  'http:': new HttpAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
  'https:': new HttpsAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
};

/**
 * Posts one message to a response_url, as Bolt's `respond` does (JSON body; a status other than
 * 2xx is a RespondError), over node:http instead of WHATWG fetch: fetch cost about 1.6 ms of CPU
 * and 37 KB of garbage per answer on the event loop that acks Slack.
 */
export function postToResponseUrl(url: string, message: string | RespondArguments): Promise<void> {
  const body = JSON.stringify(typeof message === 'string' ? { text: message } : message);
  return new Promise<void>((resolve, reject) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      reject(new RespondError('Failed to respond to the response_url: it is not a URL', 0));
      return;
    }
    if (target.protocol !== 'https:' && target.protocol !== 'http:') {
      reject(new RespondError(`Failed to respond to the response_url: ${target.protocol} is not HTTP`, 0));
      return;
    }
    const secure = target.protocol === 'https:';
    const send = secure ? httpsRequest : httpRequest;
    const agent = secure ? agents['https:'] : agents['http:'];
    const request = send(
      target,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        timeout: RESPONSE_URL_TIMEOUT_MS,
      },
      (response: IncomingMessage) => {
        // The body ("ok", or an error word) is not needed; it is read so the socket can be reused.
        response.resume();
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve();
          else
            reject(
              new RespondError(
                `Failed to respond to the response_url: ${status} ${response.statusMessage ?? ''}`.trimEnd(),
                status,
              ),
            );
        });
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error('the response_url did not answer in time')));
    request.on('error', reject);
    request.end(body);
  });
}

/** Answers through a response_url (ours, or Bolt's `respond`, which resolves to its fetch Response). */
export type Respond = (message: string | RespondArguments) => Promise<unknown>;

/**
 * The `respond` of a Slack request: its response_url's poster, or undefined when it has none (a
 * click in App Home). Used by the listeners in place of Bolt's own `respond`.
 */
export function respondTo(body: unknown): Respond | undefined {
  const url =
    typeof body === 'object' && body !== null ? (body as { response_url?: unknown }).response_url : undefined;
  if (typeof url !== 'string' || url === '') return undefined;
  return (message) => postToResponseUrl(url, message);
}
