import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PolicyFileError, parsePolicy } from '../../src/policy/index.js';

// Pure parsing: cheap cases, so more of them than the bot-level fuzz files run.
const RUNS = Math.max(1, Number(process.env.FUZZ_RUNS ?? 2000) || 2000);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : 20_261_126;

const celPiece = fc.constantFrom(
  'tool',
  'risk',
  'args.name',
  'args["vlan_id"]',
  'blast_radius.clients.count',
  'target.name',
  'time.getHours("UTC")',
  '"high"',
  '3',
  '2.5',
  'true',
  'null',
  '[1, 2]',
  '{"a": 1}',
  'size(args)',
  'has(args.x)',
  '==',
  '!=',
  '>',
  '&&',
  '||',
  '!',
  '(',
  ')',
  '.startsWith("a")',
  ' in ',
  '?',
  ':',
  'args.exists(k, k == "x")',
  '\u0000',
  '"unterminated',
);
const cel = fc.oneof(
  fc.array(celPiece, { maxLength: 8 }).map((parts) => parts.join(' ')),
  fc.string({ maxLength: 40 }),
);
const scalar = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);
const rule = fc.record(
  {
    name: fc.oneof(fc.constantFrom('a', 'b', 'rule-1'), fc.string({ maxLength: 10 })),
    when: cel,
    deny: scalar,
    approvals: fc.oneof(fc.integer({ min: -2, max: 12 }), scalar),
    approvers: fc.oneof(fc.array(fc.constantFrom('U0BOB', 'S0ADMINS', 'bob', ''), { maxLength: 3 }), scalar),
    window: fc.constantFrom('night', 'nope', ''),
    revert_after: fc.constantFrom('30m', '1h30m', '0s', 'soon', '10'),
  },
  { requiredKeys: [] },
);
const windowSpec = fc.record(
  {
    cron: fc.oneof(
      fc.constantFrom('0 22 * * 1-5', '* * * * *', '61 * * * *', '0 0 31 2 *', 'L W'),
      fc.string({ maxLength: 15 }),
    ),
    days: fc.array(fc.constantFrom('mon', 'sun', 'funday'), { maxLength: 3 }),
    start: fc.constantFrom('22:00', '24:00', '7', ''),
    end: fc.constantFrom('02:00', '22:00', 'x'),
    duration: fc.constantFrom('4h', '0m', 'forever'),
    timezone: fc.constantFrom('UTC', 'Europe/Berlin', 'Nowhere/City', ''),
  },
  { requiredKeys: [] },
);
const freeze = fc.record(
  {
    from: fc.constantFrom('2026-12-20T00:00:00Z', '2026-12-20', 'yesterday'),
    to: fc.constantFrom('2027-01-04T00:00:00+01:00', '2026-01-01T00:00:00Z'),
    reason: scalar,
    approvers: fc.array(fc.constantFrom('U0BOB', 'x'), { maxLength: 2 }),
  },
  { requiredKeys: [] },
);
const structured = fc
  .record(
    {
      version: fc.oneof(fc.constant(1), scalar),
      rules: fc.oneof(fc.array(rule, { maxLength: 4 }), scalar),
      windows: fc.oneof(
        fc.dictionary(fc.constantFrom('night', 'day', '%bad'), windowSpec, { maxKeys: 2 }),
        scalar,
      ),
      freezes: fc.oneof(fc.array(freeze, { maxLength: 2 }), scalar),
      defaults: fc.oneof(
        fc.record({ approvals: scalar, high_risk_approvals: scalar }, { requiredKeys: [] }),
        scalar,
      ),
      extra: scalar,
    },
    { requiredKeys: [] },
  )
  .map((doc) => JSON.stringify(doc));
const yamlish = fc
  .array(
    fc.constantFrom(
      'rules:',
      '  - name: a',
      '    when: tool == "x"',
      '    approvals: 2',
      '    deny: no',
      'windows:',
      '  night: {cron: "0 22 * * *", duration: 4h}',
      'freezes: [',
      '&a [*a, *a]',
      '*a',
      '!!binary AAAA',
      '? complex key',
      '--- ',
      '...',
      '%YAML 1.2',
      '\t- tab',
      '"',
      "'",
      '{',
      '}',
      '- - -',
      'key: [1, 2',
    ),
    { maxLength: 12 },
  )
  .map((lines) => lines.join('\n'));
const anyText = fc.oneof(
  structured,
  yamlish,
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
);

describe('fuzzed policy files', () => {
  it(`parse or fail with PolicyFileError naming the file, never anything else (${RUNS} cases)`, () => {
    let accepted = 0;
    fc.assert(
      fc.property(anyText, (text) => {
        try {
          parsePolicy(text, 'fuzz.yaml');
          accepted += 1;
        } catch (error) {
          if (!(error instanceof PolicyFileError)) throw error;
          expect(error.message).toContain('POLICY_FILE: fuzz.yaml');
          expect(error.problems.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
    // The generator reaches valid files too, not only refusals.
    expect(accepted).toBeGreaterThan(0);
  }, 600_000);
});
