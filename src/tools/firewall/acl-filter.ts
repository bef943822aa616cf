import { ValidationError } from '../../errors.js';
import { normalizeMac } from '../../lib/mac.js';

/**
 * `list_acl_rules filter_expr`: the Integration API filter language (`<prop>.<fn>(<args>)`,
 * `and(…)`, `or(…)`, `not(…)`; literals 'text' with '' for a quote, numbers, true/false, bare UUIDs
 * and dates, sets [a, b]), written either in the words the bot's results use (`action.eq('deny')`,
 * `source_type.eq('network')`) or in the controller's own (`action.eq('BLOCK')`,
 * `sourceFilter.type.eq('NETWORKS')`). The bot's words are translated; anything it cannot
 * translate is refused with the reason, because the controller would answer it with no rows.
 */

/** A literal as written: quoted text, a bare word (number, boolean, UUID, date), or a set. */
type Literal =
  | { kind: 'text'; value: string }
  | { kind: 'bare'; value: string }
  | { kind: 'set'; items: Literal[] };

/** A parsed filter expression. */
export type FilterNode =
  | { op: 'and' | 'or'; args: FilterNode[] }
  | { op: 'not'; arg: FilterNode }
  | { op: 'call'; property: string; fn: string; args: Literal[] };

// Deliberately alike: simulator/integration-filter.ts reads the controller's filter syntax on its own, so each parser checks the other.
// The documented functions and how many arguments each takes.
const ARITY: Record<string, 0 | 1 | 'many'> = {
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
};

function refuse(rule: string): never {
  throw new ValidationError([{ field: 'filter_expr', rule }]);
}

type Token =
  | { kind: 'punct'; value: string }
  | { kind: 'text'; value: string }
  | { kind: 'word'; value: string };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text.charAt(i);
    if (/\s/.test(ch)) {
      i++;
    } else if ('(),[]'.includes(ch)) {
      tokens.push({ kind: 'punct', value: ch });
      i++;
    } else if (ch === "'") {
      let value = '';
      i++;
      for (;;) {
        if (i >= text.length) refuse('a quoted value is not closed');
        if (text.charAt(i) === "'") {
          if (text.charAt(i + 1) !== "'") break;
          i++;
        }
        value += text.charAt(i);
        i++;
      }
      i++;
      tokens.push({ kind: 'text', value });
    } else {
      const word = /^[^\s(),[\]']+/.exec(text.slice(i))?.[0] ?? ch;
      tokens.push({ kind: 'word', value: word });
      i += word.length;
    }
  }
  return tokens;
}

const BARE =
  /^(true|false|-?\d+(\.\d+)?|[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}|\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?)$/;
const PROPERTY = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

class Parser {
  private pos = 0;
  constructor(private readonly tokens: Token[]) {}

  parse(): FilterNode {
    const node = this.expression();
    if (this.pos < this.tokens.length) refuse('unexpected text after the expression');
    return node;
  }

  private next(): Token {
    const token = this.tokens[this.pos++];
    if (!token) refuse('the expression ends too early (a bracket is not closed?)');
    return token;
  }

  private punct(value: string): boolean {
    const token = this.tokens[this.pos];
    if (token?.kind === 'punct' && token.value === value) {
      this.pos++;
      return true;
    }
    return false;
  }

  private expect(value: string): void {
    if (!this.punct(value)) refuse(`expected "${value}"`);
  }

  private expression(): FilterNode {
    const head = this.next();
    if (head.kind !== 'word') refuse('expected a property such as name, or and(…), or(…), not(…)');
    this.expect('(');
    if (head.value === 'and' || head.value === 'or') {
      const args = [this.expression()];
      while (this.punct(',')) args.push(this.expression());
      this.expect(')');
      return { op: head.value, args };
    }
    if (head.value === 'not') {
      const arg = this.expression();
      this.expect(')');
      return { op: 'not', arg };
    }
    const dot = head.value.lastIndexOf('.');
    const property = head.value.slice(0, Math.max(dot, 0));
    const fn = head.value.slice(dot + 1);
    if (dot <= 0 || !PROPERTY.test(property)) {
      refuse(`expected <property>.<function>(…), got ${head.value}`);
    }
    const arity = ARITY[fn];
    if (arity === undefined) refuse(`unknown function ${fn} (known: ${Object.keys(ARITY).join(', ')})`);
    const args: Literal[] = [];
    if (!this.punct(')')) {
      args.push(this.literal());
      while (this.punct(',')) args.push(this.literal());
      this.expect(')');
    }
    const count =
      arity === 'many' ? args.flatMap((a) => (a.kind === 'set' ? a.items : [a])).length : args.length;
    if (arity === 'many' ? count === 0 : count !== arity) {
      refuse(`${fn} takes ${arity === 'many' ? 'one or more values' : `${arity} value(s)`}`);
    }
    return { op: 'call', property, fn, args };
  }

  private literal(): Literal {
    const token = this.next();
    if (token.kind === 'text') return { kind: 'text', value: token.value };
    if (token.kind === 'word') {
      if (!BARE.test(token.value)) {
        refuse(
          `${token.value} is not a value: quote text ('${token.value}'); numbers, true and false are bare`,
        );
      }
      return { kind: 'bare', value: token.value };
    }
    if (token.value !== '[') refuse(`unexpected "${token.value}"`);
    const items: Literal[] = [];
    if (!this.punct(']')) {
      items.push(this.literal());
      while (this.punct(',')) items.push(this.literal());
      this.expect(']');
    }
    return { kind: 'set', items };
  }
}

/** Parses a filter; a malformed one is a ValidationError on `filter_expr` saying what is wrong. */
export function parseAclFilter(text: string): FilterNode {
  return new Parser(tokenize(text)).parse();
}

function literalText(literal: Literal): string {
  if (literal.kind === 'text') return `'${literal.value.replaceAll("'", "''")}'`;
  if (literal.kind === 'bare') return literal.value;
  return `[${literal.items.map(literalText).join(', ')}]`;
}

/** The filter as the controller reads it. */
export function formatFilter(node: FilterNode): string {
  switch (node.op) {
    case 'and':
    case 'or':
      return `${node.op}(${node.args.map(formatFilter).join(', ')})`;
    case 'not':
      return `not(${formatFilter(node.arg)})`;
    case 'call':
      return `${node.property}.${node.fn}(${node.args.map(literalText).join(', ')})`;
  }
}

// What the controller lets rules be filtered on (Network API docs, acl-rules list).
const CONTROLLER_PROPERTIES = new Set([
  'type',
  'id',
  'enabled',
  'name',
  'description',
  'action',
  'index',
  'protocolFilter',
  'networkId',
  'enforcingDeviceFilter.deviceIds',
  'metadata.origin',
  ...['sourceFilter', 'destinationFilter'].flatMap((side) =>
    ['type', 'ipAddressesOrSubnets', 'portFilter', 'networkIds', 'macAddresses', 'prefixLength'].map(
      (field) => `${side}.${field}`,
    ),
  ),
]);

/** Resolves a network named in `source_id`/`destination_id` to its Integration UUID. */
export type NetworkUuidOf = (ref: string, field: string) => Promise<string>;

// A MAC filter reads as `device`; `mac`, its former word, is still understood.
const ENDPOINT_TYPES: Record<string, string> = {
  network: 'NETWORKS',
  ip: 'IP_ADDRESSES_OR_SUBNETS',
  device: 'MAC_ADDRESSES',
  mac: 'MAC_ADDRESSES',
};

const SPEC_PROPERTIES = [
  'name',
  'description',
  'id',
  'enabled',
  'action',
  'rule_type',
  'origin',
  'source_type',
  'destination_type',
  'source_id',
  'destination_id',
  'source_network',
  'destination_network',
  'src_port',
  'dst_port',
  'protocol',
] as const;

const text = (value: string): Literal => ({ kind: 'text', value });
const call = (property: string, fn: string, args: Literal[] = []): FilterNode => ({
  op: 'call',
  property,
  fn,
  args,
});

/** The single values of a call (a set's items count as values), each as text. */
function values(
  node: Extract<FilterNode, { op: 'call' }>,
  what: string,
): { kind: Literal['kind']; value: string }[] {
  return node.args
    .flatMap((a) => (a.kind === 'set' ? a.items : [a]))
    .map((a) => {
      if (a.kind === 'set') refuse(`${node.property} takes ${what}, not nested sets`);
      return { kind: a.kind, value: a.value };
    });
}

/**
 * A property the results show, compared with one value. `eq`/`ne`/`in`/`notIn` become `match` over
 * each value joined with or (and `not` for ne/notIn); other functions are refused.
 */
async function byValue(
  node: Extract<FilterNode, { op: 'call' }>,
  match: (value: { kind: Literal['kind']; value: string }) => FilterNode | Promise<FilterNode>,
  what: string,
): Promise<FilterNode> {
  if (!['eq', 'ne', 'in', 'notIn'].includes(node.fn)) {
    refuse(`${node.property} takes eq, ne, in or notIn (with ${what}), not ${node.fn}`);
  }
  const each = await Promise.all(values(node, what).map(match));
  const [only] = each;
  const any: FilterNode = each.length === 1 && only ? only : { op: 'or', args: each };
  return node.fn === 'ne' || node.fn === 'notIn' ? { op: 'not', arg: any } : any;
}

function oneOf(property: string, value: string, choices: Record<string, string>, what: string): string {
  const mapped = choices[value.toLowerCase()];
  if (mapped === undefined) refuse(`${property} is ${what}, not ${value}`);
  return mapped;
}

/** A property of one side of a rule (`source_…`, `destination_…`, `src_port`, `dst_port`). */
async function translateSideCall(
  node: Extract<FilterNode, { op: 'call' }>,
  networkUuid: NetworkUuidOf,
): Promise<FilterNode> {
  const { property } = node;
  // Every property here is one side's: `source_…` and `src_port` the source, the rest the destination.
  const side = /^(source|src)_/.test(property) ? 'sourceFilter' : 'destinationFilter';
  switch (property) {
    case 'source_type':
    case 'destination_type': {
      return byValue(
        node,
        (v) => {
          const wanted = v.value.toLowerCase();
          // `any` reads back for a rule with no filter, or one that only names ports.
          if (wanted === 'any') {
            return {
              op: 'or',
              args: [call(`${side}.type`, 'isNull'), call(`${side}.type`, 'eq', [text('PORTS')])],
            };
          }
          return call(`${side}.type`, 'eq', [
            text(oneOf(property, v.value, ENDPOINT_TYPES, 'network, device, ip or any')),
          ]);
        },
        "'network', 'device', 'ip' or 'any'",
      );
    }
    case 'source_id':
    case 'destination_id': {
      return byValue(
        node,
        async (v) => {
          const mac = normalizeMac(v.value);
          if (mac) return call(`${side}.macAddresses`, 'contains', [text(mac)]);
          return call(`${side}.networkIds`, 'contains', [
            { kind: 'bare', value: await networkUuid(v.value, 'filter_expr') },
          ]);
        },
        'a network id or name, or a MAC',
      );
    }
    case 'source_network':
    case 'destination_network': {
      return byValue(
        node,
        (v) => call(`${side}.ipAddressesOrSubnets`, 'contains', [text(v.value)]),
        'an address or CIDR',
      );
    }
    case 'src_port':
    case 'dst_port': {
      return byValue(
        node,
        (v) => {
          if (v.kind !== 'bare' || !/^\d+$/.test(v.value)) refuse(`${property} values are port numbers`);
          return call(`${side}.portFilter`, 'contains', [{ kind: 'bare', value: v.value }]);
        },
        'a port number',
      );
    }
    default:
      return refuse(`unknown property ${property}; filter on ${SPEC_PROPERTIES.join(', ')}`);
  }
}

async function translateCall(
  node: Extract<FilterNode, { op: 'call' }>,
  networkUuid: NetworkUuidOf,
): Promise<FilterNode> {
  const { property } = node;
  switch (property) {
    case 'name':
    case 'description':
    case 'id':
      if (node.args.some((a) => a.kind !== 'text' && !(property === 'id' && a.kind === 'bare'))) {
        refuse(`${property} values are quoted text, e.g. ${property}.eq('…')`);
      }
      return node;
    case 'enabled':
      if (
        !['eq', 'ne'].includes(node.fn) ||
        node.args[0]?.kind !== 'bare' ||
        !/^(true|false)$/.test(node.args[0].value)
      ) {
        refuse('enabled takes eq or ne with true or false, e.g. enabled.eq(true)');
      }
      return node;
    case 'action':
      return byValue(
        node,
        (v) =>
          call('action', 'eq', [
            text(
              oneOf('action', v.value, { allow: 'ALLOW', deny: 'BLOCK', block: 'BLOCK' }, 'allow or deny'),
            ),
          ]),
        "'allow' or 'deny'",
      );
    case 'rule_type':
      return byValue(
        node,
        (v) =>
          call('type', 'eq', [
            text(oneOf('rule_type', v.value, { ipv4: 'IPV4', mac: 'MAC' }, 'IPV4 or MAC')),
          ]),
        "'IPV4' or 'MAC'",
      );
    case 'origin':
      return byValue(
        node,
        (v) =>
          call('metadata.origin', 'eq', [
            text(
              oneOf(
                'origin',
                v.value,
                { user_defined: 'USER_DEFINED', system_defined: 'SYSTEM_DEFINED', derived: 'DERIVED' },
                'USER_DEFINED, SYSTEM_DEFINED or DERIVED',
              ),
            ),
          ]),
        "'USER_DEFINED', 'SYSTEM_DEFINED' or 'DERIVED'",
      );
    case 'source_type':
    case 'destination_type':
    case 'source_id':
    case 'destination_id':
    case 'source_network':
    case 'destination_network':
    case 'src_port':
    case 'dst_port':
      return translateSideCall(node, networkUuid);
    case 'protocol':
      return byValue(
        node,
        (v) => {
          const wanted = v.value.toLowerCase();
          if (wanted === 'all') return call('protocolFilter', 'isNull');
          const protocols = { tcp: ['TCP'], udp: ['UDP'], tcp_udp: ['TCP', 'UDP'] }[wanted];
          if (!protocols) refuse(`protocol is tcp, udp, tcp_udp or all, not ${v.value}`);
          return call('protocolFilter', 'containsExactly', protocols.map(text));
        },
        "'tcp', 'udp', 'tcp_udp' or 'all'",
      );
    case 'priority':
      return refuse(
        'priority cannot be filtered on: it is the rule’s place in the ordering, which the controller keeps apart ' +
          '(results are already sorted by priority; use limit and offset)',
      );
    default:
      if (CONTROLLER_PROPERTIES.has(property)) return node;
      return refuse(`unknown property ${property}; filter on ${SPEC_PROPERTIES.join(', ')}`);
  }
}

async function translate(node: FilterNode, networkUuid: NetworkUuidOf): Promise<FilterNode> {
  switch (node.op) {
    case 'and':
    case 'or':
      return { op: node.op, args: await Promise.all(node.args.map((arg) => translate(arg, networkUuid))) };
    case 'not':
      return { op: 'not', arg: await translate(node.arg, networkUuid) };
    case 'call':
      return translateCall(node, networkUuid);
  }
}

/** The controller filter for `filter_expr`, or a ValidationError on `filter_expr` with the reason. */
export async function toControllerFilter(text: string, networkUuid: NetworkUuidOf): Promise<string> {
  return formatFilter(await translate(parseAclFilter(text), networkUuid));
}
