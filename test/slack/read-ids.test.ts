import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageProblems } from '../../src/slack/blocks/limits.js';
import { type SlackBot, startSlackBot } from '../helpers/slack-bot.js';

// `/net … ids`: a read's table shows the id columns Slack's width leaves out; a write keeps its
// words as typed.

let bot: SlackBot;
beforeAll(async () => {
  bot = await startSlackBot();
});
afterAll(async () => {
  await bot?.close();
});

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

async function answer(text: string): Promise<{ text: string; body: Record<string, unknown> }> {
  const { responseUrl } = await bot.command(text);
  await bot.slack.waitFor(() => bot.slack.responses.some((r) => responseUrl.endsWith(r.path)), 10_000);
  const body = bot.slack.responses.find((r) => responseUrl.endsWith(r.path))?.body ?? {};
  return { text: JSON.stringify(body.blocks ?? []), body };
}

describe('/net … ids', () => {
  it('shows the ids a read left out, and says how to ask when it leaves them out', async () => {
    const who = await answer('who on IoT');
    const whoIds = await answer('who on IoT ids');

    expect(who.text).toContain('/net … ids shows mac');
    expect(who.text).not.toContain('00:17:88:6a:bc:12');
    expect(whoIds.text).toContain('00:17:88:6a:bc:12');
    // `ids` is not taken for part of the network's name.
    expect(whoIds.text).toContain('network IoT (VLAN 20)');
    for (const { body } of [who, whoIds]) expect(messageProblems(body)).toEqual([]);
  });

  it('leaves nothing out of a table that fits: vlans keep their ids in 100 columns', async () => {
    const vlans = await answer('vlans');

    expect(vlans.text).toMatch(UUID);
    expect(vlans.text).not.toContain('ids shows');
  });

  it('a write keeps the word: a stray ids is refused as an unexpected argument', async () => {
    const write = await answer('update_network network_id=IoT vlan_id=21 ids');

    expect(write.text).toContain('unexpected');
    expect(write.text).toContain('ids');
  });
});
