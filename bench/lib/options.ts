/** The suite's command line: which parts run, how many repeats, and the load. Pure, so it is tested. */

/** The parts of the suite, in the order they run. */
export const PARTS = [
  'startup',
  'acks',
  'reads',
  'rounds',
  'errors',
  'topology',
  'telemetry',
  'guardrails',
  'watch',
  'burst',
  'store',
  'fleet',
] as const;
export type Part = (typeof PARTS)[number];

/** Everything a run is told. */
export interface BenchOptions {
  parts: Part[];
  quick: boolean;
  /** Runs per figure; figures are medians over them. */
  repeats: number;
  /** Slash commands per ack-load run, and how many senders share them. */
  commands: number;
  senders: number;
  /** Least time between two commands of one sender, in ms. */
  paceMs: number;
  /** Commands (`/net help`, no controller) sent to each app before the measured load, per sender. */
  warmup: number;
  /** Controller latencies (ms) the ack load runs against. */
  ackLatenciesMs: number[];
  /** Controller latency (ms) for read overhead and for telling rounds apart. */
  readLatencyMs: number;
  roundLatencyMs: number;
  /** Skip `npm run build` (the spawned program is dist/main.js, which must be current). */
  build: boolean;
}

const FULL: Omit<BenchOptions, 'parts'> = {
  quick: false,
  repeats: 3,
  commands: 500,
  senders: 50,
  paceMs: 250,
  warmup: 2,
  ackLatenciesMs: [300, 5000],
  readLatencyMs: 300,
  roundLatencyMs: 100,
  build: true,
};

// A quick run checks that every part works end to end: one repeat, a lighter load.
const QUICK: Partial<BenchOptions> = { quick: true, repeats: 1, commands: 200, senders: 20 };

/** Help text for `npm run bench -- --help`. */
export const USAGE = `npm run bench -- [options]
  --only=a,b        parts to run (${PARTS.join(', ')}); default all
  --skip=a,b        parts to leave out
  --quick           one repeat, 200 commands from 20 senders, two topology sizes
  --repeats=N       runs per figure, figures are medians [3; quick 1]
  --commands=N      slash commands per ack-load run [500]
  --senders=N       concurrent senders [50]
  --pace=MS         least time between two commands of one sender [250]
  --warmup=N        /net help commands per sender before the measured load [2]
  --ack-latency=A,B controller latencies in ms for the ack load [300,5000]
  --no-build        use dist/ as it is`;

/** Parses argv; throws an Error naming the bad option. */
export function parseOptions(argv: readonly string[]): BenchOptions {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  for (const arg of argv) {
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!match?.[1]) throw new Error(`unknown argument "${arg}"\n${USAGE}`);
    if (match[2] === undefined) flags.add(match[1]);
    else values.set(match[1], match[2]);
  }
  const known = new Set([
    'only',
    'skip',
    'quick',
    'repeats',
    'commands',
    'senders',
    'pace',
    'warmup',
    'ack-latency',
    'no-build',
  ]);
  for (const name of [...flags, ...values.keys()]) {
    if (!known.has(name)) throw new Error(`unknown option --${name}\n${USAGE}`);
  }
  const quick = flags.has('quick');
  const base = { ...FULL, ...(quick ? QUICK : {}) };
  const only = values.has('only') ? partList(values.get('only') ?? '', 'only') : [...PARTS];
  const skip = values.has('skip') ? partList(values.get('skip') ?? '', 'skip') : [];
  return {
    ...base,
    parts: PARTS.filter((p) => only.includes(p) && !skip.includes(p)),
    repeats: count(values.get('repeats'), 'repeats', base.repeats),
    commands: count(values.get('commands'), 'commands', base.commands),
    senders: count(values.get('senders'), 'senders', base.senders),
    paceMs: count(values.get('pace'), 'pace', base.paceMs, 0),
    warmup: count(values.get('warmup'), 'warmup', base.warmup, 0),
    ackLatenciesMs: values.has('ack-latency')
      ? (values.get('ack-latency') ?? '').split(',').map((v) => count(v, 'ack-latency', 0, 0))
      : base.ackLatenciesMs,
    build: !flags.has('no-build'),
  };
}

function partList(text: string, option: string): Part[] {
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(PARTS as readonly string[]).includes(n));
  if (unknown.length > 0 || names.length === 0) {
    throw new Error(`--${option} takes parts from ${PARTS.join(', ')}; got "${text}"`);
  }
  return names as Part[];
}

function count(text: string | undefined, option: string, fallback: number, least = 1): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < least) {
    throw new Error(`--${option} must be a whole number ≥ ${least}`);
  }
  return Number(text);
}
