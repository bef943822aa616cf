import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { messageProblems, viewProblems } from '../../src/slack/blocks/limits.js';
import { MAX_BODY_BYTES } from '../../src/slack/transport/request-guard.js';
import { createRegistry } from '../../src/tools/index.js';
import { toolArguments } from './arguments.js';
import * as kit from './fuzz-bot.js';

const registry = createRegistry('default');
const TOOLS = registry.list().map((t) => t.name);
const ARG_NAMES = [...new Set(TOOLS.flatMap((t) => registry.argumentsOf(t).map((a) => a.name)))];
// The /net shortcuts (commands/aliases.ts) and the words the Slack front end handles itself.
const WORDS = [
  'help',
  'form',
  'vlans',
  'networks',
  'network',
  'subnet',
  'stats',
  'usage',
  'zones',
  'zone',
  'rules',
  'firewall',
  'acl',
  'lists',
  'routes',
  'apps',
  'top',
  'dpi',
  'client',
  'ports',
  'export',
];

/** A tool name one typo away: a letter dropped, doubled or swapped, another case, a dash. */
const nearName = fc
  .tuple(
    fc.constantFrom(...TOOLS),
    fc.nat(),
    fc.constantFrom('drop', 'double', 'upper', 'dash', 'suffix', 'prefix'),
  )
  .map(([name, n, how]) => {
    const i = n % name.length;
    switch (how) {
      case 'drop':
        return name.slice(0, i) + name.slice(i + 1);
      case 'double':
        return name.slice(0, i) + name.charAt(i) + name.slice(i);
      case 'upper':
        return name.toUpperCase();
      case 'dash':
        return name.replaceAll('_', '-');
      case 'suffix':
        return `${name}s`;
      default:
        return `/${name}`;
    }
  });

const word = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...TOOLS) },
  { weight: 3, arbitrary: fc.constantFrom(...WORDS) },
  // The picture is drawn with resvg: a real case, but a slow one, so it comes up rarely.
  { weight: 1, arbitrary: fc.constant('topology') },
  { weight: 2, arbitrary: nearName },
  { weight: 1, arbitrary: kit.anyText(20) },
);

const quoted = (inner: fc.Arbitrary<string>) =>
  fc
    .tuple(inner, fc.constantFrom(['"', '"'], ['“', '”'], ["'", "'"], ['"', ''], ['‘', '’'], ['„', '“']))
    .map(([text, [open, close]]) => `${open}${text}${close}`);

const value = fc.oneof(
  { weight: 3, arbitrary: kit.anyText() },
  { weight: 2, arbitrary: quoted(kit.anyText()) },
  { weight: 2, arbitrary: fc.integer({ min: -10, max: 5000 }).map(String) },
  { weight: 1, arbitrary: fc.array(kit.anyText(8), { maxLength: 5 }).map((items) => items.join(',')) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('true', 'false', 'yes', '', '1.5', '10.20.0.0/24', 'IoT', 'Guest'),
  },
);

const key = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...ARG_NAMES) },
  { weight: 2, arbitrary: fc.constantFrom('site', 'confirm', 'dry_run', 'vlan', 'name', 'id') },
  { weight: 1, arbitrary: kit.anyText(12) },
);

const argument = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(key, value).map(([k, v]) => `${k}=${v}`) },
  { weight: 1, arbitrary: kit.anyText(15) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('dry_run=true', 'confirm=true', 'site=default', '--json', '=x', 'x='),
  },
);

/** A tool with arguments that look right (values quoted when they need it), now and then with junk mixed in. */
const plausibleLine = fc
  .constantFrom(...TOOLS)
  .chain((tool) =>
    fc.tuple(
      fc.constant(tool),
      fc.boolean().chain((junk) => toolArguments(registry.argumentsOf(tool), junk)),
    ),
  )
  .map(([tool, pairs]) => {
    const quote = (v: string) =>
      /^[^\s"'“”‘’„]+$/.test(v) ? v : `"${v.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
    const words = pairs.map(([k, v]) => `${k}=${Array.isArray(v) ? v.map(quote).join(',') : quote(v)}`);
    return [tool, ...words].join(' ');
  });

/** A /net line: grammar edge cases, quotes, unicode, key=value junk, names near real ones, huge inputs. */
const netLine = fc.oneof(
  { weight: 12, arbitrary: plausibleLine },
  {
    weight: 8,
    arbitrary: fc
      .tuple(
        fc.constantFrom('', '', '/net ', '  '),
        word,
        fc.array(argument, { maxLength: 6 }),
        fc.constantFrom(' ', '  ', '\t', '\n'),
      )
      .map(([prefix, command, args, sep]) => `${prefix}${[command, ...args].join(sep)}`),
  },
  { weight: 1, arbitrary: kit.anyText(200) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(word, kit.anyText(), fc.integer({ min: 1000, max: 8000 }))
      .map(([command, text, size]) => `${command} name=${(text || 'x').repeat(size).slice(0, size)}`),
  },
);

/** What a command led to, for the summary: how much of the bot the cases reached. */
function outcomeOf(answer: kit.Answer): string {
  if (answer.calls.some((c) => c.method === 'views.open')) return 'form';
  if (answer.calls.some((c) => c.method === 'chat.postMessage')) return 'preview';
  if (answer.calls.some((c) => c.method === 'files.completeUploadExternal')) return 'upload';
  const reply = JSON.stringify(answer.responses);
  if (/:warning:|:mag:|:no_entry|:boom:|:electric_plug:/.test(reply)) return 'refused';
  return /netops help/.test(reply) ? 'help' : 'read result';
}

const fuzz = kit.useFuzzBot('random /net texts');

describe('random /net texts', () => {
  it(
    `are each answered (a reply, a form or a preview), within Slack's limits and escaped, and never write (${kit.FUZZ_RUNS} cases)`,
    async () => {
      await fc.assert(
        fc.asyncProperty(
          netLine,
          fc.oneof(
            { weight: 9, arbitrary: fc.constantFrom('U1', 'U2', 'W0ADMIN') },
            // Not a Slack user id: refused at the edge, with a reply saying so.
            { weight: 1, arbitrary: fc.constantFrom('u-not-an-id', '<!channel>', 'S0GROUP') },
          ),
          async (text, user) => {
            const n = kit.nextCase();
            const channel = `C${n}`;
            const trigger = `trigger-${n}`;
            const responseUrl = fuzz.bot.slack.responseUrl();
            const body = new URLSearchParams({
              token: 'unused',
              team_id: 'T1',
              channel_id: channel,
              user_id: user,
              user_name: 'fuzz',
              command: '/net',
              text,
              api_app_id: 'A1',
              response_url: responseUrl,
              trigger_id: trigger,
            }).toString();
            // Slack's own commands are a few KB; a body over the guard's limit is refused before
            // Bolt reads it (docs/decisions.md, "Request limits"), and that refusal is its answer.
            if (Buffer.byteLength(body) > MAX_BODY_BYTES) {
              const refused = await fuzz.bot.post(body);
              fuzz.timing.add(0, 'too large (413)');
              expect(refused.status, `${body.length} bytes`).toBe(413);
              expect(kit.writesOf(fuzz.bot.sim)).toEqual([]);
              return;
            }
            const answer = await kit.send(
              fuzz.bot,
              body,
              (calls, responses) =>
                responses.length > 0 ||
                calls.some(
                  (c) =>
                    (c.method === 'views.open' && c.args.trigger_id === trigger) ||
                    (c.method === 'chat.postMessage' && c.args.channel === channel) ||
                    (c.method === 'files.completeUploadExternal' && c.args.channel_id === channel),
                ),
            );
            fuzz.timing.add(answer.ms, outcomeOf(answer));

            expect(answer.status, text).toBe(200);
            expect(answer.answered, `no answer to ${JSON.stringify(text)}`).toBe(true);
            expect(kit.writesOf(fuzz.bot.sim), text).toEqual([]);
            expect(kit.textProblemsOf(fuzz.bot, answer, text), text).toEqual([]);
            expect(kit.shownJson(answer), text).not.toMatch(kit.INJECTED_MARKUP);
            for (const r of answer.responses) expect(messageProblems(r), text).toEqual([]);
            for (const c of answer.calls) {
              if (c.method === 'views.open') expect(viewProblems(c.args.view), text).toEqual([]);
              if (c.method === 'chat.postMessage') expect(messageProblems(c.args), text).toEqual([]);
            }
          },
        ),
        kit.fuzzParameters(),
      );
    },
    kit.fuzzTimeoutMs(),
  );
});
