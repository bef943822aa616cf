import {
  type CelInput,
  CelScalar,
  celEnv,
  isCelError,
  isCelList,
  isCelMap,
  mapType,
  objectType,
  parse,
  plan,
} from '@bufbuild/cel';
import { TimestampSchema, timestampFromMs } from '@bufbuild/protobuf/wkt';

/*
 * The rules' `when` conditions are CEL (cel.dev), run by @bufbuild/cel. Every variable a rule may
 * use is declared here with its type; nothing else is in scope.
 */

/**
 * The variables a `when` condition sees, with their CEL types (documented in docs/changes.md,
 * "Policy file").
 */
export const CEL_VARIABLES = {
  tool: CelScalar.STRING,
  args: mapType(CelScalar.STRING, CelScalar.DYN),
  target: mapType(CelScalar.STRING, CelScalar.DYN),
  blast_radius: mapType(CelScalar.STRING, CelScalar.DYN),
  risk: CelScalar.STRING,
  requester: CelScalar.STRING,
  channel: CelScalar.STRING,
  face: CelScalar.STRING,
  time: objectType(TimestampSchema),
  /** A rollout's shape (`sites`, `consoles`, `waves`, `first_wave`, `soak_seconds`); empty for other changes. */
  rollout: mapType(CelScalar.STRING, CelScalar.DYN),
} as const;

export type CelVariableName = keyof typeof CEL_VARIABLES;

const ENV = celEnv({ variables: CEL_VARIABLES });

/** The values of the declared variables for one change, as plain JSON-like data and a clock. */
export interface CelFacts {
  tool: string;
  args: Record<string, unknown>;
  target: Record<string, unknown>;
  blast_radius: Record<string, unknown>;
  risk: string;
  requester: string;
  channel: string;
  face: string;
  /** Milliseconds since the epoch. */
  time: number;
  /** Set for a step of a rollout (see CEL_VARIABLES.rollout). */
  rollout?: Record<string, unknown>;
}

/** A condition that parsed and type-checked, ready to run on facts. */
export interface CompiledCondition {
  source: string;
  evaluate(facts: CelFacts): { value: boolean } | { error: string };
}

/** Why a condition was refused at load, and where in its text (1-based column, when known). */
export interface ConditionProblem {
  message: string;
  column?: number;
}

/**
 * JSON-like data as CEL values: objects become maps, whole numbers `int` (so `count > 2` and
 * `vlan_id == 20` compare as written), other numbers `double`; undefined fields are left out.
 */
export function toCel(value: unknown, depth = 0): CelInput {
  if (depth > 32) return null;
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : value;
  if (typeof value === 'string' || typeof value === 'boolean' || typeof value === 'bigint') return value;
  if (Array.isArray(value)) return value.map((v) => toCel(v, depth + 1));
  if (typeof value === 'object') {
    const map = new Map<string, CelInput>();
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v !== undefined) map.set(k, toCel(v, depth + 1));
    }
    return map;
  }
  return String(value);
}

function bindings(facts: CelFacts) {
  return {
    tool: facts.tool,
    args: toCel(facts.args) as Map<string, CelInput>,
    target: toCel(facts.target) as Map<string, CelInput>,
    blast_radius: toCel(facts.blast_radius) as Map<string, CelInput>,
    risk: facts.risk,
    requester: facts.requester,
    channel: facts.channel,
    face: facts.face,
    time: timestampFromMs(facts.time),
    rollout: toCel(facts.rollout ?? {}) as Map<string, CelInput>,
  };
}

/**
 * Facts of every declared shape, used to type-check conditions at load: each call in a condition
 * is run on them alone, so `risk > 3` is refused even behind `false &&`, where CEL would skip it.
 */
const PROBE: CelFacts = {
  tool: 'delete_network',
  args: {},
  target: {},
  blast_radius: {
    clients: { count: 3, names: ['a', 'b', 'c'] },
    devices: { count: 1, names: ['d'] },
    references: [{ kind: 'zone', name: 'z', id: 'i' }],
    self_lockout: false,
    unchecked: [],
    reasons: ['r'],
  },
  risk: 'medium',
  requester: 'U0PROBE',
  channel: 'C0PROBE',
  face: 'slack',
  time: Date.UTC(2026, 0, 5, 12, 0, 0),
  rollout: { sites: 6, consoles: 3, waves: [1, 2, 3], first_wave: 1, soak_seconds: 600 },
};

// Errors that depend on the data a change brings (a key its args do not have, a zero divisor),
// not on the condition's types: they are not refused at load. Everything else is a type error.
const DATA_DEPENDENT =
  /field not found|no such key|key not found|divide by zero|modulus by zero|out of (range|bounds)|overflow/i;

type Expr = ReturnType<typeof parse>['expr'];

/** Every call node outside comprehension bodies (a body's loop variable is unbound on its own). */
function callNodes(expr: Expr | undefined, out: Expr[] = []): Expr[] {
  if (!expr) return out;
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'callExpr':
      out.push(expr);
      if (kind.value.target) callNodes(kind.value.target, out);
      for (const arg of kind.value.args) callNodes(arg, out);
      break;
    case 'selectExpr':
      callNodes(kind.value.operand, out);
      break;
    case 'listExpr':
      for (const e of kind.value.elements) callNodes(e, out);
      break;
    case 'structExpr':
      for (const e of kind.value.entries) {
        if (e.keyKind.case === 'mapKey') callNodes(e.keyKind.value, out);
        callNodes(e.value, out);
      }
      break;
    case 'comprehensionExpr':
      callNodes(kind.value.iterRange, out);
      out.push(expr);
      break;
    default:
      break;
  }
  return out;
}

function kindOf(value: unknown): string {
  if (typeof value === 'bigint') return 'int';
  if (typeof value === 'number') return 'double';
  if (isCelList(value)) return 'list';
  if (isCelMap(value)) return 'map';
  if (value === null) return 'null';
  return typeof value;
}

/**
 * Parses and type-checks a condition against the declared variables. Returns the problem (with its
 * column) instead of throwing, so the loader can name the file, line and rule.
 */
export function compileCondition(source: string): CompiledCondition | ConditionProblem {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(source);
  } catch (error) {
    const location = (error as { location?: { start?: { column?: number } } }).location;
    const message = error instanceof Error ? error.message.replace(/^<input>:\d+:\d+: /, '') : String(error);
    return {
      message: `does not parse: ${message}`,
      ...(location?.start?.column ? { column: location.start.column } : {}),
    };
  }
  const positions = parsed.sourceInfo?.positions ?? {};
  const columnOf = (id: bigint | undefined): number | undefined => {
    if (id === undefined) return undefined;
    const offset = positions[Number(id)];
    return offset === undefined ? undefined : offset + 1;
  };
  const probe = bindings(PROBE);
  let run: (ctx: ReturnType<typeof bindings>) => unknown;
  try {
    run = plan(ENV, parsed);
    for (const node of callNodes(parsed.expr)) {
      const result = plan(ENV, node)(probe);
      if (isCelError(result) && !DATA_DEPENDENT.test(result.message)) {
        const column = columnOf(result.exprId ?? node.id);
        return { message: `does not type-check: ${result.message}`, ...(column ? { column } : {}) };
      }
    }
  } catch (error) {
    return { message: `does not type-check: ${error instanceof Error ? error.message : String(error)}` };
  }
  const whole = run(probe);
  if (isCelError(whole)) {
    if (!DATA_DEPENDENT.test(whole.message)) {
      const column = columnOf(whole.exprId);
      return { message: `does not type-check: ${whole.message}`, ...(column ? { column } : {}) };
    }
  } else if (typeof whole !== 'boolean') {
    return { message: `must be true or false, but gives ${kindOf(whole)}` };
  }
  return {
    source,
    evaluate(facts) {
      let result: unknown;
      try {
        result = run(bindings(facts));
      } catch (error) {
        return { error: error instanceof Error ? error.message : String(error) };
      }
      if (isCelError(result)) return { error: result.message };
      if (typeof result !== 'boolean') return { error: `gave ${kindOf(result)}, not true or false` };
      return { value: result };
    },
  };
}

export function isConditionProblem(value: CompiledCondition | ConditionProblem): value is ConditionProblem {
  return 'message' in value;
}
