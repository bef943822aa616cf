import { Agent, request } from 'node:http';
import { commandBody, slackHeaders } from '../../test/helpers/slack-requests.js';
import { sleep } from './context.js';
import { SIGNING_SECRET } from './processes.js';

/** One signed slash command: HTTP status of the ack and its latency (request written → response read). */
export interface AckSample {
  key: string;
  status: number;
  ms: number;
  /** When the command was sent (performance.now() of this process). */
  sentAt: number;
}

/** Sends one signed `/net <text>` to an app on loopback, as Slack would. */
export function sendCommand(
  port: number,
  text: string,
  responseUrl: string,
  key: string,
  agent?: Agent,
): Promise<AckSample> {
  const body = commandBody({ text, response_url: responseUrl, user_id: 'U1BENCH' });
  const headers = {
    ...slackHeaders(SIGNING_SECRET, body),
    'content-length': String(Buffer.byteLength(body)),
  };
  return new Promise((resolve, reject) => {
    const sentAt = performance.now();
    const req = request(
      { host: '127.0.0.1', port, method: 'POST', path: '/slack/events', headers, agent: agent ?? false },
      (res) => {
        res.resume();
        res.once('end', () =>
          resolve({ key, status: res.statusCode ?? 0, ms: performance.now() - sentAt, sentAt }),
        );
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

/**
 * `commands` signed slash commands from `senders` concurrent senders. Each sender sends its next
 * command once the previous one is acknowledged and at least `paceMs` after it sent that one
 * (people do not retype within milliseconds); the senders start `paceMs / senders` apart.
 */
export async function runLoad(options: {
  port: number;
  commands: number;
  senders: number;
  paceMs: number;
  text: string;
  responseUrl: (key: string) => string;
  keyPrefix: string;
}): Promise<AckSample[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.senders });
  const samples: AckSample[] = [];
  let next = 0;
  const sender = async (index: number) => {
    await sleep((index * options.paceMs) / options.senders);
    while (next < options.commands) {
      const key = `${options.keyPrefix}-${next}`;
      next += 1;
      const sample = await sendCommand(options.port, options.text, options.responseUrl(key), key, agent);
      samples.push(sample);
      const wait = sample.sentAt + options.paceMs - performance.now();
      if (wait > 0) await sleep(wait);
    }
  };
  try {
    await Promise.all(Array.from({ length: options.senders }, (_, i) => sender(i)));
  } finally {
    agent.destroy();
  }
  return samples;
}
