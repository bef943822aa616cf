import { describe, expect, it } from 'vitest';
import { viewProblems } from '../../../src/slack/blocks/limits.js';
import type { SlackCall } from '../../helpers/fake-slack.js';
import { useFleetConsoles } from '../../helpers/fleet-consoles.js';
import { SIGNING_SECRET, type SlackBot, useSlackBots } from '../../helpers/slack-bot.js';
import { homeOpenedBody, slackJsonHeaders } from '../../helpers/slack-requests.js';

const bot = useSlackBots((b) => {
  for (const call of b.slack.callsOf('views.publish')) expect(viewProblems(call.args.view)).toEqual([]);
});

const { consoles: fleetConsoles } = useFleetConsoles({
  consoles: [
    { name: 'berlin', version: '10.1' },
    { name: 'munich', version: '9.0' },
    { name: 'hamburg', version: '10.1', down: true },
  ],
});

async function openHome(b: SlackBot, user: string): Promise<string> {
  const before = b.slack.callsOf('views.publish').length;
  const body = homeOpenedBody(user);
  expect((await b.post(body, slackJsonHeaders(SIGNING_SECRET, body))).status).toBe(200);
  await b.slack.waitFor(() => b.slack.callsOf('views.publish').length > before, 15_000);
  const call = b.slack.callsOf('views.publish').at(-1) as SlackCall;
  return JSON.stringify((call.args.view as { blocks: unknown[] }).blocks);
}

/** The text of the section of one console. */
function consoleSection(home: string, name: string): string {
  const blocks = JSON.parse(home) as { type: string; text?: { text: string }; fields?: { text: string }[] }[];
  const block = blocks.find((b) => b.type === 'section' && b.text?.text.startsWith(`*${name}*`));
  if (!block) throw new Error(`no section for ${name}`);
  return [block.text?.text ?? '', ...(block.fields ?? []).map((f) => f.text)].join('\n');
}

describe('App Home on a fleet', () => {
  it('shows one section per console: reachable, version and API, open alerts, last change', async () => {
    const b = await bot({ consoles: fleetConsoles(), env: { APPROVERS: 'U02' } });
    // A change on munich, approved and run there.
    const { id } = await b.propose(
      'create_network console=munich name=Lab vlan_id=61 subnet=10.61.0.0/24',
      'U01',
    );
    await b.click('approve', id, 'U02');
    await b.slack.waitFor(async () => (await b.approvals.get(id))?.state === 'succeeded', 15_000);
    // Every console is watched, its incidents kept under console and site: berlin has one open
    // incident and one resolved; hamburg's watcher has recorded nothing.
    await b.app.context.store.set('watch:state:berlin/default', {
      observed: {},
      incidents: [
        {
          id: 'i1',
          key: 'device_offline:aa',
          site: 'default',
          kind: 'device_offline',
          subject: 'AP',
          startedAt: 1,
          flaps: 0,
          source: 'poller',
        },
        {
          id: 'i2',
          key: 'wan_down:x',
          site: 'default',
          kind: 'wan_down',
          subject: 'WAN',
          startedAt: 1,
          resolvedAt: 2,
          flaps: 0,
          source: 'poller',
        },
      ],
    });

    await b.app.context.store.set('watch:state:munich/default', { observed: {}, incidents: [] });

    const home = await openHome(b, 'U03');
    expect(home).toContain('Consoles (3) · 1 not reachable');
    // The one-console Controller section gives way to the consoles.
    expect(home).not.toContain('*Controller*');
    const berlin = consoleSection(home, 'berlin');
    expect(berlin).toContain(':large_green_circle: reachable');
    expect(berlin).toMatch(/Network 10\.1\.[\d.]+ · official API/);
    expect(berlin).toContain('*Open alerts*\n:red_circle: 1');
    expect(berlin).toContain('*Last change*\nnone recorded');
    const munich = consoleSection(home, 'munich');
    expect(munich).toMatch(/Network 9\.0\.[\d.]+ · /);
    expect(munich).toContain('*Open alerts*\n:large_green_circle: none');
    expect(munich).toContain(id);
    expect(munich).toMatch(/Create network on `default`/);
    const hamburg = consoleSection(home, 'hamburg');
    expect(hamburg).toContain(':red_circle: not reachable');
    expect(hamburg).toContain('*Open alerts*\nnot watched');
    // Trouble first: the console not reachable is listed before the others.
    expect(home.indexOf('*hamburg*')).toBeLessThan(home.indexOf('*berlin*'));
  });
});
