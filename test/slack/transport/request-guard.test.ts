import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeRequestMessage } from '../../../src/slack/blocks/change-request.js';
import { MAX_BODY_BYTES } from '../../../src/slack/transport/request-guard.js';
import { SIGNING_SECRET, type SlackBot, startSlackBot } from '../../helpers/slack-bot.js';
import { buttonBody, commandBody, slackHeaders } from '../../helpers/slack-requests.js';

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

/** One bot for the whole file: every case here must leave it serving. */
let b: SlackBot;

beforeAll(async () => {
  b = await startSlackBot();
});

afterAll(() => b.close());

const signed = (body: string, contentType = FORM, timestamp?: number) =>
  b.post(body, { ...slackHeaders(SIGNING_SECRET, body, timestamp), 'content-type': contentType });
const writes = () => b.sim.requests.filter((r) => r.method !== 'GET');
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** `/net list_vlans` still answered through response_url: the bot is up and serving. */
async function stillServes(): Promise<void> {
  const { status, responseUrl } = await b.command('list_vlans');
  expect(status).toBe(200);
  await b.slack.waitFor(() => b.slack.responses.some((r) => responseUrl.endsWith(r.path)));
}

/** Sends raw bytes and resolves with what the server answered and whether it closed the connection. */
function rawExchange(head: string, chunks: string[]): Promise<{ answer: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(b.port, '127.0.0.1');
    let answer = '';
    socket.on('data', (data) => {
      answer += data.toString();
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve({ answer, closed: true }));
    socket.on('connect', () => {
      socket.write(head);
      for (const chunk of chunks) socket.write(chunk);
      // Never ends the body: an answer can only come from a server that stopped reading early.
    });
    setTimeout(() => {
      socket.destroy();
      if (!answer) reject(new Error('no answer within 3 s'));
    }, 3000).unref();
  });
}

describe('POST /slack/events: payloads that are not an object', () => {
  it('answers 400 to a signed `payload=null`, a JSON `null`, an array, a number, a string or non-JSON, and keeps serving', async () => {
    const cases: [string, string][] = [
      ['payload=null', FORM],
      ['null', JSON_TYPE],
      ['[{"type":"block_actions"}]', JSON_TYPE],
      ['payload=%5B%5D', FORM],
      ['42', JSON_TYPE],
      ['payload=%22text%22', FORM],
      ['{"type": "block_actions"', JSON_TYPE],
      [`${'['.repeat(20_000)}${']'.repeat(20_000)}`, JSON_TYPE],
    ];

    const answers = await Promise.all(cases.map(([body, type]) => signed(body, type)));

    expect(answers.map((a) => a.status)).toEqual(cases.map(() => 400));
    expect(answers[0]?.text).toContain('the payload is not a JSON object');
    await stillServes();
    expect(writes()).toEqual([]);
  });

  it('answers an unsigned `payload=null` with 401, as any unsigned request', async () => {
    const unsigned = await b.post('payload=null', { 'content-type': FORM });

    expect(unsigned.status).toBe(401);
  });

  it('answers 400, naming the field, when a field Bolt reads has the wrong type', async () => {
    const click = (payload: Record<string, unknown>) =>
      signed(`payload=${encodeURIComponent(JSON.stringify(payload))}`);
    const base = {
      type: 'block_actions',
      user: { id: 'U2' },
      actions: [{ action_id: 'approve', value: 'x' }],
    };

    const answers = await Promise.all([
      click({ ...base, user: null }),
      click({ ...base, actions: 'approve' }),
      click({ ...base, actions: [null] }),
      click({ ...base, actions: [] }),
      click({ ...base, channel: null }),
      click({ ...base, team: 7 }),
      click({ type: 'view_submission', user: { id: 'U2' }, view: null }),
      click({
        type: 'view_submission',
        user: { id: 'U2' },
        view: { callback_id: 'tool_form' },
        response_urls: null,
      }),
      signed(
        `command=%2Fnet&command=%2Fnet&text=vlans&response_url=${encodeURIComponent(b.slack.responseUrl())}`,
      ),
      click({ hello: 'world' }),
    ]);

    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 400));
    expect(answers[0]?.text).toMatch(/^user: /);
    expect(answers[2]?.text).toMatch(/^actions\.0: /);
    expect(
      b.slack.calls.filter((c) => c.method !== 'auth.test' && c.method !== 'usergroups.users.list'),
    ).toEqual([]);
    await stillServes();
  });

  it('answers 404 at once to envelopes no listener handles, instead of after 3 s', async () => {
    const answers = await Promise.all([
      signed(
        commandBody({ text: 'vlans', response_url: b.slack.responseUrl() }).replace('%2Fnet', '%2Fother'),
      ),
      signed(
        buttonBody({ actionId: 'launch', value: 'x', userId: 'U2', response_url: b.slack.responseUrl() }),
      ),
      signed(JSON.stringify({ type: 'event_callback', event: { type: 'app_mention' } }), JSON_TYPE),
      signed(
        `payload=${encodeURIComponent(JSON.stringify({ type: 'shortcut', user: { id: 'U1' }, callback_id: 'x' }))}`,
      ),
    ]);

    // Bolt alone acknowledges nothing and answers 404 after 3 s, with no reason: these are the guard's.
    expect(answers.map((a) => a.status)).toEqual([404, 404, 404, 404]);
    for (const answer of answers) expect(answer.text).toMatch(/^no listener for /);
  });

  it("still answers Slack's unsigned ssl_check and a signed url_verification", async () => {
    const ssl = await b.post('ssl_check=1&token=x', { 'content-type': FORM });
    const verification = await signed(
      JSON.stringify({ type: 'url_verification', challenge: 'c-1' }),
      JSON_TYPE,
    );

    expect(ssl.status).toBe(200);
    expect(verification).toEqual({ status: 200, text: JSON.stringify({ challenge: 'c-1' }) });
  });
});

describe('POST /slack/events: timestamps', () => {
  it('refuses a signed request from more than five minutes in the future with 401, like a stale one', async () => {
    const body = commandBody({ text: 'vlans', response_url: b.slack.responseUrl() });
    const calls = b.slack.responses.length;

    const future = await signed(body, FORM, nowSeconds() + 6 * 60);
    const farFuture = await signed(body, FORM, nowSeconds() + 10 * 365 * 24 * 3600);
    const stale = await signed(body, FORM, nowSeconds() - 6 * 60);

    expect([future.status, farFuture.status, stale.status]).toEqual([401, 401, 401]);
    await new Promise((r) => setTimeout(r, 100));
    expect(b.slack.responses).toHaveLength(calls);
  });

  it('accepts a clock up to five minutes ahead, either way', async () => {
    const ahead = await signed(
      commandBody({ text: 'vlans', response_url: b.slack.responseUrl() }),
      FORM,
      nowSeconds() + 4 * 60,
    );
    const behind = await signed(
      commandBody({ text: 'vlans', response_url: b.slack.responseUrl() }),
      FORM,
      nowSeconds() - 4 * 60,
    );

    expect([ahead.status, behind.status]).toEqual([200, 200]);
  });
});

describe('POST /slack/events: body size', () => {
  it('answers 413 to a body declared larger than 64 KB, without waiting for it', async () => {
    const { answer, closed } = await rawExchange(
      'POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 10000000\r\n\r\n',
      ['payload='],
    );

    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(closed).toBe(true);
  });

  it('answers 413 to a chunked body as soon as it passes 64 KB, and reads none of the rest', async () => {
    const chunk = (text: string) => `${text.length.toString(16)}\r\n${text}\r\n`;
    const { answer, closed } = await rawExchange(
      'POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n',
      Array.from({ length: 9 }, () => chunk('x'.repeat(8 * 1024))),
    );

    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(closed).toBe(true);
    await stillServes();
  });

  it('accepts a body of exactly 64 KB, checked as usual (here: signed, not an envelope)', async () => {
    const envelope = (pad: string) => `payload=${encodeURIComponent(JSON.stringify({ pad }))}`;
    const body = envelope('x'.repeat(MAX_BODY_BYTES - Buffer.byteLength(envelope(''))));
    expect(Buffer.byteLength(body)).toBe(MAX_BODY_BYTES);

    const answer = await signed(body);
    const over = await signed(`${body}x`);

    expect(answer.status).toBe(400);
    expect(over.status).toBe(413);
  });

  it('lets through the largest click the bot can cause: one on a preview at its full message budget', async () => {
    const ports = Array.from({ length: 600 }, (_, i) => ({
      type: 'PORT_NUMBER',
      value: `"<&>" ${20_000 + i}`,
    }));
    const message = changeRequestMessage({
      id: 'cr_aaaaaaaaaaaaaaaaaaaa',
      tool: 'create_traffic_matching_list',
      site: 'default',
      args: {},
      requester: { userId: 'U1' },
      preview: { dry_run: true, would_create: { type: 'PORTS', name: 'Many', items: ports }, warnings: [] },
      previewHash: 'f'.repeat(64),
      createdAt: '2025-01-01T00:00:00.000Z',
      expiresAt: '2025-01-01T00:15:00.000Z',
      state: 'pending',
    });
    const click = JSON.parse(
      decodeURIComponent(
        buttonBody({
          actionId: 'cancel',
          value: 'cr_unknown',
          userId: 'U2',
          response_url: b.slack.responseUrl(),
        }).slice('payload='.length),
      ),
    ) as Record<string, unknown>;
    const body = `payload=${encodeURIComponent(JSON.stringify({ ...click, message: { ...message, ts: '1.0' } }))}`;

    const answer = await signed(body);

    expect(Buffer.byteLength(body)).toBeLessThan(MAX_BODY_BYTES / 2);
    expect(answer.status).toBe(200);
  });
});
