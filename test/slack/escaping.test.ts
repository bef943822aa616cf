import { describe, expect, it } from 'vitest';
import { DEMO_NETWORKS } from '../../src/simulator/index.js';
import type { SlackCall } from '../helpers/fake-slack.js';
import { type SlackBot, useSlackBots } from '../helpers/slack-bot.js';
import { requestIdOf } from '../helpers/slack-buttons.js';
import { slackTextProblems } from '../helpers/slack-text.js';

// A network renamed on the controller to this must not ping, mention, link or break a code block.
const EVIL = 'x``` <!channel> <@U0EVIL> <https://evil.example|click>';
const GUEST = DEMO_NETWORKS.guest.id;

const bot = useSlackBots();

function rename(b: SlackBot, id: string, name: string): void {
  const network = b.sim.state.findNetworkById('default', id);
  if (!network) throw new Error(`no network ${id}`);
  network.name = name;
}

/** Everything the bot sent to Slack, as one JSON text: calls and response_url posts. */
const everything = (b: SlackBot) => JSON.stringify([b.slack.calls, b.slack.responses]);
const previews = (b: SlackBot) => b.slack.callsOf('chat.postMessage').filter((c) => !c.args.thread_ts);

async function preview(b: SlackBot, text: string): Promise<SlackCall | undefined> {
  const before = previews(b).length;
  await b.command(text);
  await b.slack.waitFor(() => previews(b).length > before);
  const call = previews(b).at(-1);
  await b.slack.waitFor(async () => (await b.approvals.get(requestIdOf(call)))?.message !== undefined);
  return call;
}

async function read(b: SlackBot, text: string): Promise<Record<string, unknown>> {
  const { responseUrl } = await b.command(text);
  await b.slack.waitFor(() => b.slack.responses.some((r) => responseUrl.endsWith(r.path)));
  const response = b.slack.responses.find((r) => responseUrl.endsWith(r.path));
  if (!response) throw new Error('no answer');
  return response.body;
}

/** No markup from the evil name reached Slack: it is there, escaped, and nowhere raw. */
function expectEvilNameEscaped(sent: string): void {
  expect(sent).toContain('&lt;!channel&gt; &lt;@U0EVIL&gt; &lt;https://evil.example|click&gt;');
  for (const raw of ['<!channel>', '<@U0EVIL>', '<https://evil.example', 'x```'])
    expect(sent).not.toContain(raw);
  expect(sent).toContain('x\\\\u0060\\\\u0060\\\\u0060 '); // JSON of `x\u0060\u0060\u0060 `
}

describe('controller text in Slack messages', () => {
  it('escapes the drift note of a request superseded because the network was renamed to markup', async () => {
    const b = await bot();
    const id = requestIdOf(await preview(b, `update_network network_id=${GUEST} vlan_id=35`));
    rename(b, GUEST, EVIL);

    await b.click('approve', id, 'U2');
    await b.slack.waitFor(() => previews(b).length === 2);

    expect((await b.approvals.get(id))?.state).toBe('superseded');
    const note = b.slack.callsOf('chat.update').at(-1);
    const noteText = JSON.stringify(note?.args.blocks);
    expect(noteText).toContain('changed since this preview');
    expectEvilNameEscaped(noteText);
    expectEvilNameEscaped(JSON.stringify(previews(b)[1]?.args));
    expect(slackTextProblems(note?.args)).toEqual([]);
    expect(b.slack.textProblems).toEqual([]);
  });

  it('keeps backticks in a network name inside the code block of a read result, a preview and a result thread', async () => {
    const b = await bot();
    rename(b, GUEST, EVIL);

    const answer = await read(b, 'list_vlans');
    const request = await preview(b, `update_network network_id=${GUEST} vlan_id=35`);
    await b.click('approve', requestIdOf(request), 'U2');
    await b.slack.waitFor(() => b.slack.callsOf('chat.postMessage').some((c) => c.args.thread_ts));

    const thread = b.slack.callsOf('chat.postMessage').find((c) => c.args.thread_ts);
    for (const payload of [answer, request?.args, thread?.args]) {
      expect(slackTextProblems(payload)).toEqual([]);
      expectEvilNameEscaped(JSON.stringify(payload));
    }
    expect(b.sim.requests.filter((r) => r.method === 'PUT')).toHaveLength(1);
  });

  it('shows zero-width and bidi characters in names as \\uXXXX, in code blocks and in prose', async () => {
    const b = await bot();
    rename(b, GUEST, 'Ser\u200Bvers');
    rename(b, DEMO_NETWORKS.iot.id, 'abc\u202Eexe.txt');

    const answer = JSON.stringify(await read(b, 'list_vlans'));
    const request = JSON.stringify((await preview(b, `update_network network_id=${GUEST} vlan_id=35`))?.args);

    expect(answer).toContain('Ser\\\\u200Bvers');
    expect(answer).toContain('abc\\\\u202Eexe.txt');
    expect(request).toContain('Ser\\\\u200Bvers'); // in the preview's code block and its warning
    expect(request).toMatch(/:warning: [^"]*Ser\\\\u200Bvers/);
    expect(everything(b)).not.toMatch(/[\u200B\u202E]/);
  });

  it('escapes & once: a name with & < > reads &amp; &lt; &gt;, never &amp;amp;', async () => {
    const b = await bot();
    rename(b, GUEST, 'R&D <lab>');

    const answer = await read(b, 'list_vlans');
    await read(b, 'get_network_details network_id=Guest');
    const request = await preview(b, `update_network network_id=${GUEST} vlan_id=35`);

    const text = JSON.stringify(answer);
    expect(text.match(/R&amp;D &lt;lab&gt;/g)).toHaveLength(1);
    expect(JSON.stringify(request?.args)).toContain('R&amp;D &lt;lab&gt;');
    expect(everything(b)).not.toMatch(/&amp;(amp|lt|gt);/);
    expect(everything(b)).not.toContain('R&D');
  });

  it('escapes a site name typed in a command in the fallback text and the blocks alike', async () => {
    const b = await bot();

    await read(b, 'list_vlans site="<!here> `x`"');

    const sent = everything(b);
    expect(sent).not.toContain('<!here>');
    expect(b.slack.textProblems).toEqual([]);
  });
});
