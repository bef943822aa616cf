/**
 * The Integration API `filter` query: `<prop>.<fn>(<args>)`, `and(…)`, `or(…)`, `not(…)`.
 * Literals: 'strings' ('' escapes a quote), integers, decimals, true/false, bare UUIDs and ISO
 * timestamps, and sets `[a, b]`. `like` patterns: `.` one character, `*` any run, `\` escapes.
 *
 * Written apart from the bot's own reader (tools/firewall/acl-filter.ts) on purpose: the simulator plays
 * the controller, and a parser shared by both sides could not catch the bot reading the
 * language wrong.
 */

/** A literal argument; sets are arrays. */
export type FilterValue = string | number | boolean | FilterValue[];

const FUNCTIONS = {
  isNull: 0,
  isNotNull: 0,
  isEmpty: 0,
  eq: 1,
  ne: 1,
  gt: 1,
  ge: 1,
  lt: 1,
  le: 1,
  like: 1,
  contains: 1,
  in: 'many',
  notIn: 'many',
  containsAny: 'many',
  containsAll: 'many',
  containsExactly: 'many',
} as const;

/** A filtering function name. */
export type FilterFunction = keyof typeof FUNCTIONS;

/** A parsed filter. */
export type FilterExpr =
  | { op: 'and' | 'or'; args: FilterExpr[] }
  | { op: 'not'; arg: FilterExpr }
  | { op: 'call'; path: string[]; fn: FilterFunction; args: FilterValue[] };

/** Raised for a filter that does not follow the documented syntax. */
export class FilterSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FilterSyntaxError';
  }
}

type Token =
  | { kind: 'punct'; value: '(' | ')' | ',' | '[' | ']' }
  | { kind: 'string' | 'word'; value: string };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i] ?? '';
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === '(' || ch === ')' || ch === ',' || ch === '[' || ch === ']') {
      tokens.push({ kind: 'punct', value: ch });
      i++;
    } else if (ch === "'") {
      let value = '';
      i++;
      for (;;) {
        if (i >= text.length) throw new FilterSyntaxError('unterminated string literal');
        const c = text[i] ?? '';
        if (c === "'") {
          if (text[i + 1] === "'") {
            value += "'";
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += c;
        i++;
      }
      tokens.push({ kind: 'string', value });
    } else {
      const match = /^[^\s(),[\]']+/.exec(text.slice(i));
      const word = match?.[0] ?? ch;
      tokens.push({ kind: 'word', value: word });
      i += word.length;
    }
  }
  return tokens;
}

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/;

function bareLiteral(word: string): FilterValue {
  if (word === 'true' || word === 'false') return word === 'true';
  if (UUID.test(word) || TIMESTAMP.test(word)) return word;
  if (/^\d+(\.\d+)?$/.test(word)) return Number(word);
  throw new FilterSyntaxError(`unexpected literal ${word}`);
}

class Parser {
  #pos = 0;
  constructor(private readonly tokens: Token[]) {}

  parse(): FilterExpr {
    const expr = this.expression();
    if (this.#pos !== this.tokens.length)
      throw new FilterSyntaxError('unexpected input after the expression');
    return expr;
  }

  private peek(): Token | undefined {
    return this.tokens[this.#pos];
  }

  private take(): Token {
    const token = this.tokens[this.#pos++];
    if (!token) throw new FilterSyntaxError('unexpected end of filter');
    return token;
  }

  private expect(value: '(' | ')' | ']'): void {
    const token = this.take();
    if (token.kind !== 'punct' || token.value !== value) throw new FilterSyntaxError(`expected "${value}"`);
  }

  /** Consumes a comma if one is next; true when it did. */
  private comma(): boolean {
    const token = this.peek();
    if (token?.kind === 'punct' && token.value === ',') {
      this.#pos++;
      return true;
    }
    return false;
  }

  private closes(value: ')' | ']'): boolean {
    const token = this.peek();
    return token?.kind === 'punct' && token.value === value;
  }

  private expression(): FilterExpr {
    const head = this.take();
    if (head.kind !== 'word') throw new FilterSyntaxError('expected a property or and/or/not');
    this.expect('(');
    if (head.value === 'and' || head.value === 'or') {
      const args = [this.expression()];
      while (this.comma()) args.push(this.expression());
      this.expect(')');
      return { op: head.value, args };
    }
    if (head.value === 'not') {
      const arg = this.expression();
      this.expect(')');
      return { op: 'not', arg };
    }
    return this.call(head.value);
  }

  private call(word: string): FilterExpr {
    const dot = word.lastIndexOf('.');
    const fn = word.slice(dot + 1);
    const path = word.slice(0, Math.max(dot, 0)).split('.');
    if (dot <= 0 || path.some((part) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(part))) {
      throw new FilterSyntaxError(`expected <property>.<function>, got ${word}`);
    }
    if (!Object.hasOwn(FUNCTIONS, fn)) throw new FilterSyntaxError(`unknown function ${fn}`);
    const name = fn as FilterFunction;
    const args: FilterValue[] = [];
    if (!this.closes(')')) {
      args.push(this.value());
      while (this.comma()) args.push(this.value());
    }
    this.expect(')');
    const arity = FUNCTIONS[name];
    const flat = arity === 'many' ? args.flat() : args;
    if (arity === 'many' ? flat.length === 0 : args.length !== arity) {
      throw new FilterSyntaxError(`wrong number of arguments for ${name}`);
    }
    if (arity === 1 && Array.isArray(args[0])) throw new FilterSyntaxError(`${name} takes a single value`);
    if (name === 'like' && typeof args[0] !== 'string')
      throw new FilterSyntaxError('like takes a string pattern');
    return { op: 'call', path, fn: name, args: flat };
  }

  private value(): FilterValue {
    const token = this.take();
    if (token.kind === 'string') return token.value;
    if (token.kind === 'word') return bareLiteral(token.value);
    if (token.value !== '[') throw new FilterSyntaxError(`unexpected "${token.value}"`);
    const items: FilterValue[] = [];
    if (!this.closes(']')) {
      items.push(this.value());
      while (this.comma()) items.push(this.value());
    }
    this.expect(']');
    return items;
  }
}

/** Parses a filter, throwing FilterSyntaxError when it is not valid syntax. */
export function parseFilter(text: string): FilterExpr {
  if (text.trim() === '') throw new FilterSyntaxError('empty filter');
  return new Parser(tokenize(text)).parse();
}

function valueAt(record: unknown, path: readonly string[]): unknown {
  let current = record;
  for (const key of path) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function likeToRegExp(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] ?? '';
    if (ch === '\\' && i + 1 < pattern.length) {
      source += (pattern[++i] ?? '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    } else if (ch === '.') {
      source += '.';
    } else if (ch === '*') {
      source += '.*';
    } else {
      source += ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${source}$`, 's');
}

function compare(actual: unknown, expected: FilterValue): number | undefined {
  if (typeof actual === 'number' && typeof expected === 'number') return actual - expected;
  if (typeof actual === 'string' && typeof expected === 'string')
    return actual < expected ? -1 : actual > expected ? 1 : 0;
  return undefined;
}

function call(fn: FilterFunction, actual: unknown, args: readonly FilterValue[]): boolean {
  const [first] = args;
  const list = Array.isArray(actual) ? actual : undefined;
  const has = (value: FilterValue) => list?.some((item) => item === value) ?? false;
  switch (fn) {
    case 'isNull':
      return actual === null || actual === undefined;
    case 'isNotNull':
      return actual !== null && actual !== undefined;
    case 'isEmpty':
      return list !== undefined && list.length === 0;
    case 'eq':
      return actual === first;
    case 'ne':
      return actual !== first;
    case 'gt':
    case 'ge':
    case 'lt':
    case 'le': {
      const order = first === undefined ? undefined : compare(actual, first);
      if (order === undefined) return false;
      return fn === 'gt' ? order > 0 : fn === 'ge' ? order >= 0 : fn === 'lt' ? order < 0 : order <= 0;
    }
    case 'like':
      return typeof actual === 'string' && typeof first === 'string' && likeToRegExp(first).test(actual);
    case 'in':
      return args.some((value) => value === actual);
    case 'notIn':
      return !args.some((value) => value === actual);
    case 'contains':
      return first !== undefined && has(first);
    case 'containsAny':
      return args.some(has);
    case 'containsAll':
      return args.every(has);
    case 'containsExactly':
      return (
        list !== undefined && args.every(has) && list.every((item) => args.some((value) => value === item))
      );
  }
}

/** True when `record` satisfies the filter. */
export function matchesFilter(expr: FilterExpr, record: unknown): boolean {
  switch (expr.op) {
    case 'and':
      return expr.args.every((arg) => matchesFilter(arg, record));
    case 'or':
      return expr.args.some((arg) => matchesFilter(arg, record));
    case 'not':
      return !matchesFilter(expr.arg, record);
    case 'call':
      return call(expr.fn, valueAt(record, expr.path), expr.args);
  }
}
