// The ack comes first in Socket Mode too: our receiver (src/slack/socket-ack-first-receiver.ts) acks an
// envelope before Bolt's authorize, middleware and listeners, as the HTTP receiver does; a modal
// submission alone waits for its listener's ack. Over a real WebSocket to the fake Socket Mode
// endpoint, with apps.connections.open answered by the fake Slack Web API.
import { App, type ReceiverEvent, webApi } from '@slack/bolt';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/log.js';
import { slackEarlyAck } from '../../../src/slack/transport/ack-first-receiver.js';
import { SHUTTING_DOWN_TEXT } from '../../../src/slack/transport/drain.js';
import { SocketAckFirstReceiver } from '../../../src/slack/transport/socket-ack-first-receiver.js';
import { SlackTokenCheck } from '../../../src/slack/transport/token-check.js';
import { captureLogger, silentBoltLogger } from '../../helpers/capture-logger.js';
import { type FakeSlack, startFakeSlack } from '../../helpers/fake-slack.js';
import { type FakeSocketMode, startFakeSocketMode } from '../../helpers/fake-socket-mode.js';
import { clickPayload } from '../../helpers/slack-buttons.js';
import {
  commandBody,
  homeOpenedBody,
  socketPayload,
  viewSubmissionBody,
} from '../../helpers/slack-requests.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

const boltLogger = silentBoltLogger;

const served = {
  commands: ['/net'],
  actions: ['approve'],
  views: ['tool_form'],
  events: ['app_home_opened'],
};

interface Harness {
  slack: FakeSlack;
  socket: FakeSocketMode;
  receiver: SocketAckFirstReceiver;
}

/** The fake Slack and its Socket Mode endpoint, and a receiver (not started) dialling them. */
async function harness(
  options: { draining?: () => boolean; logger?: ReturnType<typeof silentLogger> } = {},
): Promise<Harness> {
  const [slack, socket] = await Promise.all([startFakeSlack(), startFakeSocketMode()]);
  slack.socketModeUrl = socket.url;
  const receiver = new SocketAckFirstReceiver({
    appToken: 'xapp-test',
    clientOptions: { slackApiUrl: `${slack.apiUrl}/`, retryConfig: { retries: 0 } },
    logger: options.logger ?? silentLogger(),
    boltLogger,
    earlyAck: slackEarlyAck(options.draining ?? (() => false)),
    served,
  });
  cleanup.push(async () => {
    await receiver.stop();
    await Promise.all([socket.close(), slack.close()]);
  });
  return { slack, socket, receiver };
}

/** Starts the receiver in front of a stand-in for Bolt whose processEvent never settles; the events it got. */
async function standIn(h: Harness): Promise<ReceiverEvent[]> {
  const events: ReceiverEvent[] = [];
  h.receiver.init({
    processEvent: (event: ReceiverEvent) => {
      events.push(event);
      return new Promise(() => {});
    },
  } as unknown as App);
  await h.receiver.start();
  return events;
}

const command = (text: string) => socketPayload(commandBody({ text, response_url: 'https://hooks/1' }));
const click = () =>
  clickPayload({ actionId: 'approve', value: 'r1', userId: 'U2', response_url: 'https://hooks/2' });

describe('Socket Mode: the ack comes first', () => {
  it('acks a command, a click and an event at once while their listener never finishes', async () => {
    const h = await harness();
    const events = await standIn(h);
    const ids = [
      h.socket.send('slash_commands', command('list_vlans')),
      h.socket.send('interactive', click()),
      h.socket.send('events_api', JSON.parse(homeOpenedBody('U1')) as Record<string, unknown>),
    ];
    await h.socket.waitFor(() => ids.every((id) => h.socket.ackOf(id) !== undefined));
    expect(ids.map((id) => h.socket.ackOf(id))).toEqual(ids.map((id) => ({ envelope_id: id, payload: {} })));
    // Bolt still got each one, with an ack that may be called (and sends nothing more).
    expect(events.map((e) => e.body.command ?? e.body.type)).toEqual([
      '/net',
      'block_actions',
      'event_callback',
    ]);
    await events[0]?.ack();
    expect(h.socket.received.filter((m) => m.envelope_id === ids[0])).toHaveLength(1);
  });

  it('while stopping, acks a command with the stopping text, which Slack shows its user; a click’s ack stays empty', async () => {
    const h = await harness({ draining: () => true });
    await standIn(h);
    const commandId = h.socket.send('slash_commands', command('list_vlans'));
    const clickId = h.socket.send('interactive', click());
    await h.socket.waitFor(
      () => h.socket.ackOf(commandId) !== undefined && h.socket.ackOf(clickId) !== undefined,
    );
    expect(h.socket.ackOf(commandId)?.payload).toEqual({
      response_type: 'ephemeral',
      text: SHUTTING_DOWN_TEXT,
    });
    expect(h.socket.ackOf(clickId)?.payload).toEqual({});
  });

  it('lets a form submission wait for its listener, whose ack carries the validation errors', async () => {
    const h = await harness();
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const errors = { response_action: 'errors' as const, errors: { vlan: 'must be 1–4094' } };
    const app = new App({
      receiver: h.receiver,
      authorize: async () => ({ botToken: 'xoxb-test' }),
      logger: boltLogger,
    });
    app.view('tool_form', async ({ ack }) => {
      await released;
      await ack(errors);
      await ack(); // a second ack sends nothing
    });
    await app.start();
    const id = h.socket.send(
      'interactive',
      socketPayload(
        viewSubmissionBody({ userId: 'U1', privateMetadata: '{"tool":"create_network"}', values: {} }),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.socket.ackOf(id)).toBeUndefined();
    release();
    await h.socket.waitFor(() => h.socket.ackOf(id) !== undefined);
    expect(h.socket.ackOf(id)?.payload).toEqual(errors);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(h.socket.received.filter((m) => m.envelope_id === id)).toHaveLength(1);
  });

  it('acks a `/net` command while Bolt’s authorize waits for auth.test, and answers it once Slack does', async () => {
    // The bug, at the receiver: Bolt's own Socket Mode receiver acked only when the listener called
    // ack(), after `authorize`, here an auth.test that Slack holds for 4 s (the token not yet
    // confirmed). Slack redelivers an envelope it has not seen acked within 3 s.
    const h = await harness();
    const tokens = new SlackTokenCheck(
      new webApi.WebClient('xoxb-test', { slackApiUrl: `${h.slack.apiUrl}/`, retryConfig: { retries: 0 } }),
      'xoxb-test',
      silentLogger(),
    );
    cleanup.push(async () => tokens.stop());
    const app = new App({ receiver: h.receiver, authorize: tokens.authorize, logger: boltLogger });
    app.command('/net', async ({ ack, respond }) => {
      await ack();
      await respond({ response_type: 'ephemeral', text: 'done' });
    });
    await app.start();
    h.slack.delays['auth.test'] = 4000;
    const responseUrl = h.slack.responseUrl();
    const id = h.socket.send(
      'slash_commands',
      socketPayload(commandBody({ text: 'help', response_url: responseUrl })),
    );

    await h.socket.waitFor(() => h.socket.ackOf(id) !== undefined);
    const verifiedAtAck = tokens.verified;
    await h.slack.waitFor(() => h.slack.responses.some((r) => responseUrl.endsWith(r.path)), 15_000);

    expect(h.socket.ackOf(id)).toEqual({ envelope_id: id, payload: {} });
    expect(h.slack.callsOf('auth.test')).toHaveLength(1);
    expect(verifiedAtAck).toBe(false);
    expect(tokens.verified).toBe(true);
  }, 20_000);

  it('logs and acks malformed or unserved envelopes without handing them to Bolt, and keeps serving', async () => {
    const capture = captureLogger();
    const h = await harness({ logger: capture.logger });
    const events = await standIn(h);
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    cleanup.push(async () => {
      process.off('unhandledRejection', onRejection);
    });
    const frame = (fields: Record<string, unknown>) => JSON.stringify(fields);
    h.socket.sendRaw('{not json');
    h.socket.sendRaw('null');
    h.socket.sendRaw('[1, 2]');
    h.socket.sendRaw(frame({ envelope_id: 'bad-1', type: 'events_api', payload: null }));
    h.socket.sendRaw(
      frame({ envelope_id: 'bad-2', type: 'events_api', payload: { type: 'event_callback' } }),
    );
    h.socket.sendRaw(
      frame({
        envelope_id: 'bad-3',
        type: 'interactive',
        payload: { type: 'block_actions', user: { id: 'U1' }, actions: 'SECRET-MARKER' },
      }),
    );
    h.socket.sendRaw(frame({ envelope_id: 'bad-4', type: 'slash_commands', payload: [1, 2] }));
    h.socket.sendRaw(frame({ envelope_id: 'bad-5', type: 'slash_commands', payload: { command: '/other' } }));
    h.socket.sendRaw(frame({ envelope_id: 'bad-6', type: 'mystery', payload: {} }));
    h.socket.sendRaw(frame({ type: 'slash_commands', payload: { command: '/net' } }));
    const good = h.socket.send('slash_commands', command('list_vlans'));
    await h.socket.waitFor(() => h.socket.ackOf(good) !== undefined);
    await h.socket.waitFor(() => h.socket.ackOf('bad-6') !== undefined);

    const bad = ['bad-1', 'bad-2', 'bad-3', 'bad-4', 'bad-5', 'bad-6'];
    expect(bad.map((id) => h.socket.ackOf(id))).toEqual(bad.map((id) => ({ envelope_id: id, payload: {} })));
    expect(events.map((e) => e.body.command)).toEqual(['/net']);
    expect(rejections).toEqual([]);
    const warned = capture.lines().filter((l) => l.level === 40);
    expect(warned.map((l) => l.msg)).toEqual([
      'ignored a Socket Mode frame that is not JSON',
      'ignored a Socket Mode frame with no envelope to ack',
      'ignored a Socket Mode frame with no envelope to ack',
      ...bad.map(() => 'acked a Socket Mode envelope without handling it'),
      'ignored a Socket Mode frame with no envelope to ack',
    ]);
    expect(warned.map((l) => l.reason)).toEqual([
      undefined,
      'the frame is not a JSON object',
      'the frame is not a JSON object',
      expect.stringMatching(/^payload: /),
      'payload: not a Slack request: no command, action, view or event',
      expect.stringMatching(/^payload: actions: /),
      expect.stringMatching(/^payload: /),
      'payload: no listener for this command',
      expect.stringMatching(/^type: /),
      expect.stringMatching(/^envelope_id: /),
    ]);
    expect(JSON.stringify(capture.lines())).not.toContain('SECRET-MARKER');
  });
});
