import { describe, expect, it } from 'vitest';
import { viewProblems } from '../../../src/slack/blocks/limits.js';
import type { SlackCall } from '../../helpers/fake-slack.js';
import { useFleetConsoles } from '../../helpers/fleet-consoles.js';
import { type SlackBot, useSlackBots } from '../../helpers/slack-bot.js';
import { viewSubmissionBody } from '../../helpers/slack-requests.js';

const bot = useSlackBots((b) => {
  for (const call of b.slack.callsOf('views.open')) expect(viewProblems(call.args.view)).toEqual([]);
});

const { fleet, consoles: fleetConsoles } = useFleetConsoles({
  consoles: [
    { name: 'berlin', version: '10.1' },
    { name: 'munich', version: '9.0' },
  ],
});

type Block = {
  block_id?: string;
  element?: { type?: string; options?: { value: string }[]; initial_option?: { value: string } };
};

async function openedForm(b: SlackBot, text: string, channel = 'C1') {
  const before = b.slack.callsOf('views.open').length;
  expect((await b.command(text, 'U01', channel)).status).toBe(200);
  await b.slack.waitFor(() => b.slack.callsOf('views.open').length > before, 10_000);
  const view = (b.slack.callsOf('views.open').at(-1) as SlackCall).args.view as {
    private_metadata: string;
    blocks: Block[];
  };
  return { view, console: view.blocks.find((block) => block.block_id === 'console') };
}

const networkWrites = (name: string) =>
  fleet()
    .console(name)
    .requests.filter((r) => r.method !== 'GET' && /network/.test(r.path));

describe('a tool form in a fleet', () => {
  it('asks which console, and the preview it posts is on the console picked', async () => {
    const b = await bot({ consoles: fleetConsoles() });
    // No console named: the bot opens the form, and the form has the console to pick.
    const { view, console } = await openedForm(b, 'create_network name=Lab vlan_id=61 subnet=10.61.0.0/24');
    expect(console?.element?.type).toBe('static_select');
    expect(console?.element?.options?.map((o) => o.value)).toEqual(['berlin', 'munich']);
    expect(JSON.stringify(view.blocks)).toContain('Missing: console');

    const submitted = await b.submit('U01', view.private_metadata, {
      console: { value: { type: 'static_select', selected_option: { value: 'munich' } } },
      name: { value: { type: 'plain_text_input', value: 'Lab' } },
      vlan_id: { value: { type: 'number_input', value: '61' } },
      subnet: { value: { type: 'plain_text_input', value: '10.61.0.0/24' } },
    });
    expect(submitted.status).toBe(200);
    await b.slack.waitFor(async () => (await b.approvals.list({ state: 'pending' })).length > 0, 10_000);
    const [request] = await b.approvals.list({ state: 'pending' });
    expect(request?.tool).toBe('create_network');
    expect(request?.args.console).toBe('munich');
    // A preview only: neither console was written.
    expect(networkWrites('munich')).toEqual([]);
    expect(networkWrites('berlin')).toEqual([]);
  });

  it('refuses a submission without a console under the console input, and starts on a bound channel’s console', async () => {
    const b = await bot({ consoles: fleetConsoles() });
    const { view } = await openedForm(b, 'create_network name=Lab');
    // Slack sends every input back, a menu left alone with no selection: errors are shown under them.
    const refused = await b.post(
      viewSubmissionBody({
        userId: 'U01',
        privateMetadata: view.private_metadata,
        blocks: view.blocks,
        values: {
          console: { value: { type: 'static_select', selected_option: null } },
          name: { value: { type: 'plain_text_input', value: 'Lab' } },
          vlan_id: { value: { type: 'number_input', value: '61' } },
          subnet: { value: { type: 'plain_text_input', value: '10.61.0.0/24' } },
        },
      }),
    );
    const answer = JSON.parse(refused.text) as { response_action: string; errors: Record<string, string> };
    expect(answer.response_action).toBe('errors');
    expect(answer.errors.console).toMatch(/console/);
    expect(await b.approvals.list({})).toEqual([]);

    const bound = await openedForm(b, 'create_network name=Lab', 'C0FLEET01');
    expect(bound.console?.element?.initial_option?.value).toBe('berlin');
  });
});
