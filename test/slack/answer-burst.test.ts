import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AnswerQueue, SharedWork } from '../../src/slack/answer-work.js';
import { type SlackBot, startSlackBot } from '../helpers/slack-bot.js';
import { commandBody } from '../helpers/slack-requests.js';

const BURST = 30;
const ANSWERS_IN_FLIGHT = 8;

/** response_url endpoints that record every answer and hold its HTTP reply until released. */
interface AnswerSink {
  url(name: string): string;
  /** Answers received so far, in arrival order. */
  received: { name: string; body: Record<string, unknown> }[];
  /** Most answers waiting for their reply at once. */
  peakHeld: number;
  /** Replies to every held answer, and to later ones at once. */
  release(): void;
  close(): Promise<void>;
}

async function startAnswerSink(): Promise<AnswerSink> {
  const held: ServerResponse[] = [];
  let releasing = false;
  const sink = {
    received: [] as AnswerSink['received'],
    peakHeld: 0,
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const name = (req.url ?? '').replace(/^\/answer\//, '');
      sink.received.push({ name, body: JSON.parse(Buffer.concat(chunks).toString() || '{}') });
      if (releasing) {
        res.end('ok');
        return;
      }
      held.push(res);
      sink.peakHeld = Math.max(sink.peakHeld, held.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(sink, {
    url: (name: string) => `${base}/answer/${name}`,
    release() {
      releasing = true;
      for (const res of held.splice(0)) res.end('ok');
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

async function until(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!predicate()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Waits until `value` stops changing: unchanged over 100 ms and a few turns of the event loop. */
async function settled(value: () => number): Promise<void> {
  for (;;) {
    const before = value();
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
    if (value() === before) return;
  }
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

describe('a burst of commands released by one shared controller read', () => {
  it('acks a new command while the burst is answered, posts each answer once, a few at a time', async () => {
    // Arrange: the controller holds the networks read until the test lets it go.
    const bot: SlackBot = await startSlackBot();
    cleanup.push(() => bot.close());
    const sink = await startAnswerSink();
    cleanup.push(() => sink.close());
    let letReadGo = () => {};
    const readHeld = new Promise<void>((resolve) => {
      letReadGo = resolve;
    });
    bot.sim.injectFault({ kind: 'hold', route: /\/networks$/, until: () => readHeld });
    const ask = (text: string, name: string) =>
      bot.post(
        commandBody({
          text,
          // Slack user ids are U or W and upper-case letters and digits; the bot refuses anything else.
          user_id: `U${name.replace(/[^A-Za-z0-9]/g, '').toUpperCase()}`,
          response_url: sink.url(name),
        }),
      );

    const acks = await Promise.all(Array.from({ length: BURST }, (_, i) => ask('list_vlans', `burst-${i}`)));
    await until(() => bot.sim.requests.some((r) => r.route.endsWith('/networks')), 'the read');

    // Act: the read answers, every waiting command has its answer; a new command arrives as the
    // first answers go out.
    letReadGo();
    await until(() => sink.received.length > 0, 'the first answer');
    const lateAck = await ask('help', 'late');
    const answersBeforeLateAck = sink.received.length;
    await settled(() => sink.received.length);
    const answersWhileHeld = sink.received.map((r) => r.name);
    sink.release();
    await until(() => sink.received.length === BURST + 1, 'every answer');

    // Assert
    expect(acks.every((a) => a.status === 200)).toBe(true);
    expect(lateAck.status).toBe(200);
    expect(answersBeforeLateAck).toBeLessThan(BURST);
    // Posted a few at a time: while Slack has not answered the first ones, no more go out.
    expect(answersWhileHeld).toHaveLength(ANSWERS_IN_FLIGHT);
    expect(answersWhileHeld.every((name) => name.startsWith('burst-'))).toBe(true);
    expect(sink.peakHeld).toBe(ANSWERS_IN_FLIGHT);
    const names = sink.received.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    const burst = sink.received.filter((r) => r.name.startsWith('burst-'));
    expect(burst).toHaveLength(BURST);
    expect(new Set(burst.map((r) => JSON.stringify(r.body.blocks))).size).toBe(1);
    expect(JSON.stringify(burst[0]?.body.blocks)).toContain('IoT');
    expect(bot.sim.requests.filter((r) => r.route.endsWith('/networks'))).toHaveLength(1);
  });
});

describe('AnswerQueue', () => {
  it('runs at most its concurrency at once and runs every task once, in order of arrival', async () => {
    const queue = new AnswerQueue(3);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const releases: (() => void)[] = [];

    const done = Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        queue.post(async () => {
          started.push(i);
          running += 1;
          peak = Math.max(peak, running);
          await new Promise<void>((resolve) => releases.push(resolve));
          running -= 1;
          return i;
        }),
      ),
    );
    await until(() => releases.length === 3, 'three tasks');
    for (let i = 0; i < 10; i++) {
      await until(() => releases.length > 0, `task ${i}`);
      releases.shift()?.();
    }

    expect(await done).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(peak).toBe(3);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('lets pending I/O run before a task starts', async () => {
    const queue = new AnswerQueue(1);
    const order: string[] = [];

    const task = queue.post(async () => {
      order.push('task');
    });
    setImmediate(() => order.push('earlier turn'));
    await task;

    expect(order).toEqual(['earlier turn', 'task']);
  });

  it('frees the slot of a failed task', async () => {
    const queue = new AnswerQueue(1);

    const failed = queue.post(async () => {
      throw new Error('post failed');
    });
    const next = queue.post(async () => 'next');

    await expect(failed).rejects.toThrow('post failed');
    await expect(next).resolves.toBe('next');
  });
});

describe('SharedWork', () => {
  it('runs identical work once while it is in flight, and again after it settled', async () => {
    const shared = new SharedWork<number>();
    let runs = 0;
    const work = async () => {
      runs += 1;
      await new Promise((resolve) => setTimeout(resolve, 10));
      return runs;
    };

    const burst = await Promise.all(Array.from({ length: 5 }, () => shared.run('k', work)));
    const other = await shared.run('other', work);
    const later = await shared.run('k', work);

    expect(burst).toEqual([1, 1, 1, 1, 1]);
    expect(other).toBe(2);
    expect(later).toBe(3);
  });

  it('gives every joiner the error, and forgets it', async () => {
    const shared = new SharedWork<string>();
    let calls = 0;
    const failing = async () => {
      calls += 1;
      throw new Error('controller down');
    };

    const results = await Promise.allSettled([shared.run('k', failing), shared.run('k', failing)]);
    const retried = await shared.run('k', async () => 'up again');

    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(calls).toBe(1);
    expect(retried).toBe('up again');
  });
});
