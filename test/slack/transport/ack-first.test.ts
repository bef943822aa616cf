import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App, ReceiverEvent } from '@slack/bolt';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/log.js';
import { AckFirstReceiver, type EarlyAck } from '../../../src/slack/transport/ack-first-receiver.js';
import { guardSlackRequests } from '../../../src/slack/transport/request-guard.js';
import { silentBoltLogger } from '../../helpers/capture-logger.js';
import { startSlackBot } from '../../helpers/slack-bot.js';
import {
  buttonBody,
  commandBody,
  homeOpenedBody,
  slackHeaders,
  slackJsonHeaders,
  viewSubmissionBody,
} from '../../helpers/slack-requests.js';

const SECRET = 'ack-first-secret';
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

const boltLogger = silentBoltLogger;

/**
 * The guard and the receiver on a server, in front of a stand-in for Bolt's App whose processEvent
 * runs `listener` (by default: never settles, as a listener waiting on a controller or store that
 * never answers). Every event it was given is kept.
 */
async function receiverOn(
  listener: (event: ReceiverEvent) => Promise<void> = () => new Promise(() => {}),
  earlyAck: EarlyAck = (envelope) => (envelope.type === 'view_submission' ? undefined : {}),
) {
  const events: ReceiverEvent[] = [];
  const receiver = new AckFirstReceiver({ logger: silentLogger(), boltLogger, earlyAck });
  receiver.init({
    processEvent: (event: ReceiverEvent) => {
      events.push(event);
      return listener(event);
    },
  } as unknown as App);
  const guard = guardSlackRequests(
    {
      signingSecret: SECRET,
      logger: silentLogger(),
      served: { commands: ['/net'], actions: ['approve'], views: ['tool_form'], events: ['app_home_opened'] },
    },
    (req, res, envelope) => receiver.handle(req, res, envelope),
  );
  const server: Server = createServer(guard);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
  const post = async (body: string, headers: Record<string, string> = slackHeaders(SECRET, body)) => {
    const response = await fetch(url, { method: 'POST', headers, body });
    return {
      status: response.status,
      text: await response.text(),
      type: response.headers.get('content-type'),
    };
  };
  return { events, post };
}

describe('the ack comes first', () => {
  it('acks a command, a click and an event with an empty 200 while their listener never finishes', async () => {
    const r = await receiverOn();
    const command = await r.post(commandBody({ text: 'list_vlans', response_url: 'https://hooks/1' }));
    expect(command).toMatchObject({ status: 200, text: '' });
    const click = await r.post(
      buttonBody({ actionId: 'approve', value: 'r1', userId: 'U2', response_url: 'https://hooks/2' }),
    );
    expect(click).toMatchObject({ status: 200, text: '' });
    const home = homeOpenedBody('U1');
    expect(await r.post(home, slackJsonHeaders(SECRET, home))).toMatchObject({ status: 200, text: '' });
    // Bolt still got each one, decoded, with an ack that may be called (and does nothing).
    expect(r.events.map((e) => e.body.command ?? e.body.type)).toEqual([
      '/net',
      'block_actions',
      'event_callback',
    ]);
    await expect(r.events[0]?.ack()).resolves.toBeUndefined();
  });

  it('sends the early ack’s body when there is one (a stopping bot says so)', async () => {
    const stopping = { body: { response_type: 'ephemeral', text: 'restarting' } };
    const r = await receiverOn(undefined, () => stopping);
    const ack = await r.post(commandBody({ text: 'list_vlans', response_url: 'https://hooks/1' }));
    expect(ack.status).toBe(200);
    expect(ack.type).toBe('application/json');
    expect(JSON.parse(ack.text)).toEqual(stopping.body);
  });

  it('lets a form submission wait for its listener, whose ack carries the validation errors', async () => {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const errors = { response_action: 'errors', errors: { vlan: 'must be 1–4094' } };
    const r = await receiverOn(async (event) => {
      await released;
      await event.ack(errors);
    });
    const pending = r.post(
      viewSubmissionBody({ userId: 'U1', privateMetadata: '{"tool":"create_network"}', values: {} }),
    );
    let answered = false;
    void pending.then(() => {
      answered = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(answered).toBe(false);
    release();
    const ack = await pending;
    expect(ack.status).toBe(200);
    expect(JSON.parse(ack.text)).toEqual(errors);
  });

  it('answers Slack’s url_verification and unsigned ssl_check itself, without Bolt', async () => {
    const r = await receiverOn();
    const challenge = JSON.stringify({ type: 'url_verification', challenge: 'c-42', token: 'x' });
    const verified = await r.post(challenge, slackJsonHeaders(SECRET, challenge));
    expect(verified.status).toBe(200);
    expect(JSON.parse(verified.text)).toEqual({ challenge: 'c-42' });
    const ssl = await r.post('ssl_check=1&token=x', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(ssl).toMatchObject({ status: 200, text: '' });
    expect(r.events).toEqual([]);
  });

  it('acks a command at once while Slack has not yet confirmed the token, and answers it once Slack does', async () => {
    // The first auth.test fails (retried in the background after 1 s); the retry and Bolt's
    // authorize then hang for 4 s, longer than Bolt's 3 s ack timeout: a command that waits on
    // authorize gets Slack's 404 ("dispatch_failed") after 3 s.
    const b = await startSlackBot({ authTestError: 'service_unavailable' });
    cleanup.push(() => b.close());
    b.slack.delays['auth.test'] = 4000;
    b.slack.authTestError = undefined;
    const { status, text, responseUrl } = await b.command('help');
    expect({ status, text }).toEqual({ status: 200, text: '' });
    expect(b.slack.responses.filter((r) => responseUrl.endsWith(r.path))).toEqual([]);
    await b.slack.waitFor(() => b.slack.responses.some((r) => responseUrl.endsWith(r.path)), 15_000);
  });
});
