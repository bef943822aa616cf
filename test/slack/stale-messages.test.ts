import { describe, expect, it } from 'vitest';
import type { ChangeRequest } from '../../src/approvals/types.js';
import { silentLogger } from '../../src/log.js';
import { STALE_MESSAGE_PREFIX } from '../../src/model/change-request.js';
import { refreshStaleMessages, STALE_MARK_KEPT_MS } from '../../src/slack/stale-messages.js';
import { useApprovalMcpBot } from '../helpers/mcp.js';

// The Slack bot's sweep of the messages another process (`netops mcp` over stdio) left stale: the
// store and approvals are real, the presenter is a fake that records its edits or refuses them.

const AGENT = { userId: 'mcp:U0AGENT' };

/** A presenter stand-in: the requests it re-rendered (id and state), or Slack's refusal. */
function fakePresenter() {
  const edits: string[] = [];
  const presenter = {
    edits,
    refuse: false,
    refresh: async (request: ChangeRequest) => {
      if (presenter.refuse) throw new Error('ratelimited');
      edits.push(`${request.id}:${request.state}`);
    },
  };
  return presenter;
}

describe('refreshStaleMessages', () => {
  const { bot, approvals } = useApprovalMcpBot();
  const data = () => bot.app.context.store;
  const markOf = (id: string) => data().get(`${STALE_MESSAGE_PREFIX}${id}`);
  let vlan = 100;

  /** A change request proposed over MCP, cancelled by its agent; shown in Slack when `posted`. */
  async function cancelledRequest(posted = true): Promise<string> {
    vlan += 1;
    const result = await bot.call('create_network', {
      name: `Lab${vlan}`,
      vlan_id: vlan,
      subnet: `10.${vlan}.0.0/24`,
      confirm: true,
    });
    const id = (result.structuredContent as { change_id: string }).change_id;
    if (posted) await approvals().attachMessage(id, { channel: 'C0NETOPS', ts: `1700000000.${vlan}` });
    expect((await approvals().cancel(id, AGENT)).kind).toBe('cancelled');
    await approvals().markMessageStale(id);
    return id;
  }

  it('edits a marked message once, to the request’s state now, and removes the mark', async () => {
    const id = await cancelledRequest();
    const presenter = fakePresenter();
    expect(await refreshStaleMessages(approvals(), presenter, silentLogger())).toBe(1);
    expect(presenter.edits).toEqual([`${id}:cancelled`]);
    expect(await markOf(id)).toBeUndefined();
    expect(await refreshStaleMessages(approvals(), presenter, silentLogger())).toBe(0);
    expect(presenter.edits).toHaveLength(1);
  });

  it('keeps the mark when Slack refuses the edit, and the next sweep makes it', async () => {
    const id = await cancelledRequest();
    const presenter = fakePresenter();
    presenter.refuse = true;
    expect(await refreshStaleMessages(approvals(), presenter, silentLogger())).toBe(0);
    expect(await markOf(id)).toEqual({ at: expect.any(String) });
    presenter.refuse = false;
    expect(await refreshStaleMessages(approvals(), presenter, silentLogger())).toBe(1);
    expect(presenter.edits).toEqual([`${id}:cancelled`]);
    expect(await markOf(id)).toBeUndefined();
  });

  it('drops the mark of a request no message shows, and of one unknown to the store, editing nothing', async () => {
    const id = await cancelledRequest(false);
    await data().set(`${STALE_MESSAGE_PREFIX}cr_aaaaaaaaaaaaaaaaaaaa`, { at: new Date().toISOString() });
    const presenter = fakePresenter();
    expect(await refreshStaleMessages(approvals(), presenter, silentLogger())).toBe(0);
    expect(presenter.edits).toEqual([]);
    expect(await markOf(id)).toBeUndefined();
    expect(await markOf('cr_aaaaaaaaaaaaaaaaaaaa')).toBeUndefined();
  });

  it('drops a mark older than a day, and one that does not read as a mark, without an edit', async () => {
    const old = await cancelledRequest();
    const unreadable = await cancelledRequest();
    const recent = await cancelledRequest();
    const dayAgo = new Date(approvals().now() - STALE_MARK_KEPT_MS - 1000).toISOString();
    await data().set(`${STALE_MESSAGE_PREFIX}${old}`, { at: dayAgo });
    await data().set(`${STALE_MESSAGE_PREFIX}${unreadable}`, true);
    const presenter = fakePresenter();
    expect(await refreshStaleMessages(approvals(), presenter, silentLogger())).toBe(1);
    expect(presenter.edits).toEqual([`${recent}:cancelled`]);
    for (const id of [old, unreadable, recent]) expect(await markOf(id)).toBeUndefined();
  });

  it('keeps a mark made again while its message was being edited: that later change is still to show', async () => {
    const id = await cancelledRequest();
    const presenter = fakePresenter();
    const refresh = presenter.refresh;
    presenter.refresh = async (request) => {
      await refresh(request);
      await data().set(`${STALE_MESSAGE_PREFIX}${id}`, {
        at: new Date(approvals().now() + 1000).toISOString(),
      });
    };
    expect(await refreshStaleMessages(approvals(), presenter, silentLogger())).toBe(1);
    expect(await markOf(id)).toEqual({ at: expect.any(String) });
    presenter.refresh = refresh;
    expect(await refreshStaleMessages(approvals(), presenter, silentLogger())).toBe(1);
    expect(await markOf(id)).toBeUndefined();
  });
});
