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

/** A small seeded generator (mulberry32), so every run and both apps get the same arrival times. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Open-loop arrivals, as Slack delivers them: `commands` people each send one command at a time
 * drawn at random over `windowMs` (a Poisson process given its count: uniform times), whether or
 * not earlier ones were acknowledged. A slow ack does not slow the arrivals down, unlike runLoad's
 * senders, who wait for their ack before sending again.
 */
export async function runArrivals(options: {
  port: number;
  commands: number;
  windowMs: number;
  text: string;
  responseUrl: (key: string) => string;
  keyPrefix: string;
  seed: number;
}): Promise<AckSample[]> {
  const random = seeded(options.seed);
  const times = Array.from({ length: options.commands }, () => random() * options.windowMs).sort(
    (a, b) => a - b,
  );
  const agent = new Agent({ keepAlive: true });
  const start = performance.now();
  try {
    return await Promise.all(
      times.map(async (at, i) => {
        const wait = start + at - performance.now();
        if (wait > 0) await sleep(wait);
        const key = `${options.keyPrefix}-${i}`;
        return sendCommand(options.port, options.text, options.responseUrl(key), key, agent);
      }),
    );
  } finally {
    agent.destroy();
  }
}
