import { describe, expect, it } from 'vitest';
import { messageProblems, viewProblems } from '../../src/slack/blocks/limits.js';
import { type SlackBot, useSlackBots } from '../helpers/slack-bot.js';

const bot = useSlackBots((b) => {
  for (const call of b.slack.callsOf('views.open')) expect(viewProblems(call.args.view)).toEqual([]);
  for (const response of b.slack.responses) expect(messageProblems(response.body)).toEqual([]);
});

interface FormView {
  private_metadata: string;
  blocks: {
    type: string;
    block_id?: string;
    hint?: { text: string };
    elements?: { text: string }[];
    element?: { initial_value?: string; initial_option?: { value: string } };
  }[];
}

const previews = (b: SlackBot) => b.slack.callsOf('chat.postMessage').filter((c) => !c.args.thread_ts);
const simWrites = (b: SlackBot) =>
  b.sim.requests.filter((r) => r.method !== 'GET' && !r.route.includes('/stat/'));
const answerTo = (b: SlackBot, url: string) => {
  const body = b.slack.responses.find((r) => url.endsWith(r.path))?.body ?? {};
  return `${String(body.text)} ${JSON.stringify(body.blocks ?? [])}`;
};

async function formFor(b: SlackBot, text: string): Promise<FormView> {
  await b.command(text);
  await b.slack.waitFor(() => b.slack.callsOf('views.open').length > 0);
  return b.slack.callsOf('views.open')[0]?.args.view as FormView;
}

async function answer(b: SlackBot, text: string): Promise<string> {
  const { responseUrl } = await b.command(text);
  await b.slack.waitFor(() => b.slack.responses.some((r) => responseUrl.endsWith(r.path)));
  return answerTo(b, responseUrl);
}

const input = (view: FormView, id: string) => view.blocks.find((x) => x.block_id === id);

describe('an incomplete write opens the form', () => {
  it('/net create_network name=Lab vlan_id=91 (no subnet) opens the form prefilled, subnet flagged', async () => {
    const b = await bot();

    const view = await formFor(b, 'create_network name=Lab vlan_id=91');

    expect(input(view, 'name')?.element?.initial_value).toBe('Lab');
    expect(input(view, 'vlan_id')?.element?.initial_value).toBe('91');
    expect(input(view, 'purpose')?.element?.initial_option?.value).toBe('corporate');
    expect(input(view, 'subnet')?.hint?.text).toMatch(
      /^Missing: subnet is required unless purpose is vlan-only\./,
    );
    expect(view.blocks[0]?.elements?.[0]?.text).toContain('*Still needed:* `subnet`');
    expect(previews(b)).toEqual([]);
    expect(b.slack.responses).toEqual([]);
    expect(simWrites(b)).toEqual([]);
  });

  it('keeps the form open with the conditional error under subnet, then previews a vlan-only network', async () => {
    const b = await bot();
    const view = await formFor(b, 'create_network name=Lab vlan_id=91');
    const typed = {
      name: { value: { type: 'plain_text_input', value: 'Lab' } },
      vlan_id: { value: { type: 'number_input', value: '91' } },
      subnet: { value: { type: 'plain_text_input', value: '' } },
    };

    const stillMissing = await b.submit('U1', view.private_metadata, {
      ...typed,
      purpose: { value: { type: 'static_select', selected_option: { value: 'corporate' } } },
    });
    expect(stillMissing.status).toBe(200);
    expect(JSON.parse(stillMissing.text)).toEqual({
      response_action: 'errors',
      errors: { subnet: 'is required unless purpose is vlan-only' },
    });
    expect(previews(b)).toEqual([]);

    const vlanOnly = await b.submit('U1', view.private_metadata, {
      ...typed,
      purpose: { value: { type: 'static_select', selected_option: { value: 'vlan-only' } } },
    });
    expect(vlanOnly.status).toBe(200);
    expect(vlanOnly.text).toBe('');
    await b.slack.waitFor(() => previews(b).length === 1);
    expect(JSON.stringify(previews(b)[0]?.args.blocks)).toContain('vlan-only');
    expect(simWrites(b)).toEqual([]);
  });

  it('opens the form for a requirement that depends on another argument (an ACL source id)', async () => {
    const b = await bot();

    const view = await formFor(b, 'create_acl_rule name=NoCams action=deny source_type=network');

    expect(input(view, 'source_type')?.element?.initial_option?.value).toBe('network');
    expect(input(view, 'source_id')?.hint?.text).toMatch(
      /^Missing: source_id is required when source_type is network\./,
    );
    // Deliberately alike: per-case refusals: each command line and the wording it must get, with no form opened.
    expect(previews(b)).toEqual([]);
  });

  it('names a wrong value instead of opening a form, even when a value is missing too', async () => {
    const b = await bot();

    const text = await answer(b, 'create_network name=Lab vlan_id=5000');

    expect(text).toContain('must be a whole number from 1 to 4094');
    expect(b.slack.callsOf('views.open')).toEqual([]);
    expect(previews(b)).toEqual([]);
  });

  it('refuses vlan=40 with a suggestion of vlan_id, and opens no form', async () => {
    const b = await bot();

    const text = await answer(b, 'create_network name=Lab vlan=40 subnet=10.70.0.0/24');

    expect(text).toContain('is not an argument of create_network; did you mean vlan_id?');
    expect(b.slack.callsOf('views.open')).toEqual([]);
    expect(previews(b)).toEqual([]);
  });

  it('tells a user who may not request changes so, instead of handing them a form', async () => {
    const b = await bot({ env: { REQUESTERS: 'U0ADMIN' } });

    const text = await answer(b, 'create_network name=Lab vlan_id=91');

    expect(text).toContain('Not allowed');
    expect(b.slack.callsOf('views.open')).toEqual([]);
  });
});

describe('/net help <tool>', () => {
  it('lists create_network purpose with its four values and vlan_id with 1–4094, and an example', async () => {
    const b = await bot();

    const text = await answer(b, 'help create_network');

    expect(text).toMatch(
      /purpose\s+optional {2}one of corporate, guest, vlan-only, wan \(refused: a WAN is added in the controller’s UI, under Internet\) \(default: corporate\)/,
    );
    expect(text).toMatch(/vlan_id\s+required {2}whole number 1–4094/);
    expect(text).toContain('Access: write.');
    expect(text).toContain('Example: create_network name=Lab vlan_id=40 subnet=10.70.0.0/24');
  });

  it('answers help for a shortcut with its tool, and an unknown word with suggestions', async () => {
    const b = await bot();

    const vlans = await answer(b, 'help vlans');
    const unknown = await answer(b, 'help create_netwrk');

    expect(vlans).toContain('list_vlans: List every network');
    expect(vlans).toContain('Access: read.');
    expect(unknown).toContain('did you mean create_network?');
  });
});
