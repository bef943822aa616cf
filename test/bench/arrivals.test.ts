import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { budgetRows, markdownReport } from '../../bench/lib/report.js';
import { runArrivals, runLoad } from '../../bench/lib/slack-load.js';
import { type AckLatencyResult, type ArrivalFigures, pooledPercentiles } from '../../bench/parts/acks.js';

/** An app that records each command's arrival and acks none until released. */
async function holdingApp() {
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => held.push(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    held,
    release() {
      for (const res of held.splice(0)) res.end();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((resolve) => setTimeout(resolve, 10));
}

const shape = (port: number) => ({
  port,
  text: 'list_vlans',
  responseUrl: (key: string) => `http://127.0.0.1:1/response/${key}`,
});

describe('the acks bench load shapes', () => {
  it('open loop: every person sends within the window though no command is acked', async () => {
    const app = await holdingApp();
    try {
      const run = runArrivals({ ...shape(app.port), commands: 6, windowMs: 300, keyPrefix: 'o', seed: 1 });
      await until(() => app.held.length === 6);
      app.release();
      const samples = await run;
      expect(samples.map((s) => s.status)).toEqual([200, 200, 200, 200, 200, 200]);
      // Sent at the seeded times, in order, all within the window.
      const sent = samples.map((s) => s.sentAt - (samples[0]?.sentAt ?? 0));
      expect([...sent].sort((a, b) => a - b)).toEqual(sent);
      expect(Math.max(...sent)).toBeLessThan(300 + 200);
    } finally {
      await app.close();
    }
  });

  it('closed loop (the old shape, kept): a sender waits for its ack before sending again', async () => {
    const app = await holdingApp();
    try {
      const run = runLoad({ ...shape(app.port), commands: 6, senders: 2, paceMs: 0, keyPrefix: 'c' });
      await until(() => app.held.length === 2);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(app.held).toHaveLength(2);
      const releaser = setInterval(() => app.release(), 20);
      const samples = await run;
      clearInterval(releaser);
      expect(samples).toHaveLength(6);
    } finally {
      await app.close();
    }
  });
});

const figures = (p99: number): ArrivalFigures => ({
  p50: 2,
  p99,
  acks: 300,
  max: p99,
  cpuMsPerCommand: 2,
  runs: [{ p50: 2, p99, max: p99, cpuMsPerCommand: 2, answers: 100, ms: [2, p99] }],
});
const closed = { p50: 2, p99: 10 };
const acks = (botP99: number): AckLatencyResult => ({
  latencyMs: 300,
  commands: 500,
  senders: 50,
  paceMs: 250,
  bot: { ...closed, answers: 500, errorAnswers: 0, lastAnswerMs: 1000 },
  floor: closed,
  p50Ratio: 1,
  p99Ratio: 1,
  allAnswered: true,
  runs: [],
  arrivals: {
    people: 50,
    windowMs: 5000,
    bursts: 2,
    bot: figures(botP99),
    floor: figures(20),
    answeringFloor: figures(25),
    p99Ratio: botP99 / 20,
    p99RatioAnswering: botP99 / 25,
    allAnswered: true,
  },
});

describe('the open-loop budget row, printed beside the closed loop', () => {
  it('is met at 1.3× the bare Bolt p99 of the same run, and not above', () => {
    const row = (p99: number) =>
      budgetRows({ acks: [acks(p99)] }).find((r) => r.measure.includes('open loop'));
    expect(row(26)?.met).toBe(true);
    expect(row(27)?.met).toBe(false);
    expect(row(26)?.floor).toBe('20 ms (bare Bolt); 25 ms (answering)');
  });

  it('names how many acks the p99 is taken over', () => {
    const row = budgetRows({ acks: [acks(26)] }).find((r) => r.measure.includes('open loop'));
    expect(row?.measure).toMatch(/^ack p99 over 300 acks: 2 bursts a repeat of 50 people/);
  });

  it('prints the closed loop beside it, unjudged, and adds a table of the open-loop figures', () => {
    const rows = budgetRows({ acks: [acks(30)] });
    const closedRow = rows.find((r) => r.measure.includes('closed loop'));
    expect(closedRow?.met).toBeUndefined();
    expect(closedRow?.budget).toMatch(/not a budget/);
    const report = markdownReport({ acks: [acks(30)] });
    expect(report).toContain('### Acks of an open-loop burst');
    // Answers counted against every command of the repeat's bursts.
    expect(report).toContain('| 100/100 |');
  });
});

describe('pooledPercentiles', () => {
  it('takes p99 over every ack of every repeat, not the median of per-repeat maxima', () => {
    // Three repeats of 100 acks; one stall of 500 ms in one repeat only.
    const repeat = (stall: boolean) =>
      Array.from({ length: 100 }, (_, i) => (stall && i === 0 ? 500 : 5 + (i % 10)));
    const pooled = pooledPercentiles([repeat(true), repeat(false), repeat(false)]);
    expect(pooled.acks).toBe(300);
    expect(pooled.p99).toBe(14);
    expect(pooled.p50).toBe(10);
  });
});
