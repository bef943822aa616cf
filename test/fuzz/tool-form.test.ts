import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { messageProblems } from '../../src/slack/blocks/limits.js';
import type { ArgumentInfo } from '../../src/tools/core/schema-introspection.js';
import { createRegistry } from '../../src/tools/index.js';
import { viewSubmissionBody } from '../helpers/slack-requests.js';
import { slackTextProblems } from '../helpers/slack-text.js';
import { argumentValue } from './arguments.js';
import * as kit from './fuzz-bot.js';

const registry = createRegistry('default');
const WRITE_TOOLS = registry
  .list()
  .filter((t) => t.access === 'write')
  .map((t) => t.name);
const READ_TOOLS = registry
  .list()
  .filter((t) => t.access === 'read')
  .map((t) => t.name);

/** The element an input of this kind sends back, as Slack shapes it. */
function wellTyped(arg: ArgumentInfo, junk: boolean): fc.Arbitrary<unknown> {
  const text = argumentValue(arg, junk).map((v) => (Array.isArray(v) ? v.join('\n') : v));
  switch (arg.kind) {
    case 'number':
      return text.map((value) => ({ type: 'number_input', value }));
    case 'enum':
      return text.map((value) => ({ type: 'static_select', selected_option: { value } }));
    case 'boolean':
      return fc.oneof(
        fc.boolean().map((on) => ({ type: 'checkboxes', selected_options: on ? [{ value: 'true' }] : [] })),
        text.map((value) => ({ type: 'static_select', selected_option: { value } })),
      );
    default:
      return fc.oneof(
        text.map((value) => ({ type: 'plain_text_input', value })),
        fc.constant({ type: 'plain_text_input', value: null }),
      );
  }
}

/** What a forged or broken submission can hold instead: wrong types, wrong shapes, nothing. */
const illTyped: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, 42, 'text', true, [], {}),
  fc.record({ type: fc.constantFrom('plain_text_input', 'number_input', 'x'), value: fc.anything() }),
  fc.record({
    type: fc.constant('static_select'),
    selected_option: fc.oneof(fc.anything(), fc.record({ value: fc.anything() })),
  }),
  fc.record({
    type: fc.constant('checkboxes'),
    selected_options: fc.oneof(fc.anything(), fc.array(fc.record({ value: fc.anything() }))),
  }),
  kit.anyText().map((value) => ({ type: 'datepicker', selected_date: value })),
);

/**
 * state.values for a tool's form. Clean: what Slack sends for the bot's own form, plausible values.
 * Dirty: values of any text, inputs of the wrong type or shape, other action ids, unknown blocks.
 */
function formValues(tool: string, dirty: boolean): fc.Arbitrary<Record<string, Record<string, unknown>>> {
  const inputs = registry
    .argumentsOf(tool)
    .filter((a) => a.name !== 'confirm' && a.name !== 'dry_run')
    .map((arg) =>
      fc.option(
        fc.tuple(
          fc.constant(arg.name),
          dirty ? fc.constantFrom('value', 'value', 'value', 'value', 'other_action') : fc.constant('value'),
          dirty
            ? fc.oneof({ weight: 5, arbitrary: wellTyped(arg, true) }, { weight: 1, arbitrary: illTyped })
            : wellTyped(arg, false),
        ),
        { freq: arg.required ? 8 : 1, nil: undefined },
      ),
    );
  const extra = fc.array(fc.tuple(kit.anyText(12), fc.constant('value'), illTyped), {
    maxLength: dirty ? 2 : 0,
  });
  return fc.tuple(fc.tuple(...inputs), extra).map(([picked, more]) => {
    const values: Record<string, Record<string, unknown>> = {};
    for (const entry of [...picked, ...more]) if (entry) values[entry[0]] = { [entry[1]]: entry[2] };
    return values;
  });
}

/** A submission: the metadata the bot put in (mostly), for a write tool (mostly), with values. */
const submission = fc.oneof(
  {
    weight: 9,
    arbitrary: fc.constantFrom(...WRITE_TOOLS).chain((tool) =>
      fc.tuple(
        fc.constant(tool),
        fc.boolean().chain((dirty) => formValues(tool, dirty)),
        fc.constant('ok' as const),
      ),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(
      fc.constantFrom(...WRITE_TOOLS, ...READ_TOOLS, 'no_such_tool'),
      fc.constant({}),
      fc.constantFrom('junk', 'read-or-unknown', 'no-channel', 'not-json', 'array'),
    ),
  },
);

function metadataFor(tool: string, channel: string, how: string): string {
  switch (how) {
    case 'ok':
    case 'read-or-unknown':
      return JSON.stringify({ tool, channel });
    case 'no-channel':
      return JSON.stringify({ tool });
    case 'not-json':
      return `{"tool":"${tool}",`;
    case 'array':
      return JSON.stringify([tool, channel]);
    default:
      return '<!channel>\u202E';
  }
}

const fuzz = kit.useFuzzBot('random modal submissions');

function outcomeOf(answer: kit.Answer): string {
  if (answer.body.includes('"errors"')) return 'errors in the form';
  if (answer.calls.some((c) => c.method === 'chat.postMessage')) return 'preview';
  return 'error told';
}

describe('random modal submissions', () => {
  it(
    `are answered with errors or a preview, escaped, and never write (${kit.FUZZ_RUNS} cases)`,
    async () => {
      await fc.assert(
        fc.asyncProperty(
          submission,
          fc.constantFrom('U1', 'U2', 'U0FUZZ'),
          async ([tool, values, how], user) => {
            const channel = `C${kit.nextCase()}`;
            const body = viewSubmissionBody({
              userId: user,
              privateMetadata: metadataFor(tool, channel, how),
              values,
            });
            const answer = await kit.send(
              fuzz.bot,
              body,
              (calls) =>
                calls.some(
                  (c) =>
                    (c.method === 'chat.postMessage' || c.method === 'chat.postEphemeral') &&
                    c.args.channel === channel,
                ),
              // A refusal shown in the form is the whole answer; nothing follows it.
              { answeredByAck: (ack) => ack.includes('"response_action":"errors"') },
            );
            fuzz.timing.add(answer.ms, outcomeOf(answer));
            const input = [tool, values];

            expect(answer.status).toBe(200);
            expect(answer.answered, `no answer to ${JSON.stringify(input)}`).toBe(true);
            expect(kit.writesOf(fuzz.bot.sim)).toEqual([]);
            expect(kit.textProblemsOf(fuzz.bot, answer, input)).toEqual([]);
            expect(kit.shownJson(answer)).not.toMatch(kit.INJECTED_MARKUP);
            if (answer.body !== '') {
              const ack = JSON.parse(answer.body) as {
                response_action?: string;
                errors?: Record<string, unknown>;
              };
              expect(ack.response_action).toBe('errors');
              expect(Object.keys(ack.errors ?? {}).length).toBeGreaterThan(0);
              for (const text of Object.values(ack.errors ?? {})) expect(typeof text).toBe('string');
              expect(slackTextProblems({ errors: ack.errors })).toEqual([]);
            }
            for (const c of answer.calls) {
              if (c.method.startsWith('chat.')) expect(messageProblems(c.args)).toEqual([]);
            }
          },
        ),
        kit.fuzzParameters(),
      );
    },
    kit.fuzzTimeoutMs(),
  );
});
