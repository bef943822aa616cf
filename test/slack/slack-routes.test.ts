import { App, type Receiver, type ReceiverEvent } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { SlackRoutes } from '../../src/slack/slack-routes.js';

/** A receiver that only lets the test hand Bolt its events. */
class TestReceiver implements Receiver {
  app: App | undefined;
  init(app: App): void {
    this.app = app;
  }
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
}

function boltApp(): { app: App; receiver: TestReceiver } {
  const receiver = new TestReceiver();
  const app = new App({
    // Bolt's single-token authorize asks Slack (auth.test) on the first event: none here.
    authorize: async () => ({ botToken: 'xoxb-routes-test', botId: 'B1', botUserId: 'UB1' }),
    receiver,
    logLevel: undefined,
    logger: {
      debug() {},
      info() {},
      warn() {},
      error() {},
      setLevel() {},
      getLevel: () => 'error' as never,
      setName() {},
    },
  });
  return { app, receiver };
}

// What every interactive payload carries besides its own part.
const FROM = { team: { id: 'T1' }, user: { id: 'U1' }, api_app_id: 'A1', token: 't', trigger_id: 'tr' };

const click = (actionId: string) => ({
  type: 'block_actions',
  ...FROM,
  actions: [{ type: 'button', action_id: actionId, block_id: 'b', value: 'v', action_ts: '1' }],
});

const submission = (callbackId: string) => ({
  type: 'view_submission',
  ...FROM,
  view: { id: 'V1', callback_id: callbackId, state: { values: {} } },
});

async function send(receiver: TestReceiver, body: Record<string, unknown>): Promise<number> {
  let acks = 0;
  const event: ReceiverEvent = {
    body,
    ack: async () => {
      acks += 1;
    },
  };
  await receiver.app?.processEvent(event);
  return acks;
}

/** Bolt's own listener list (private): what every request is run through. */
const boltListeners = (app: App) => (app as unknown as { listeners: unknown[] }).listeners.length;

describe('SlackRoutes (one Bolt listener per kind, not one per button)', () => {
  it('adds one Bolt listener for all actions and one for all views, however many are routed', () => {
    // Arrange
    const { app } = boltApp();
    const before = boltListeners(app);

    // Act
    const routes = new SlackRoutes(app, silentLogger());
    for (let i = 0; i < 12; i++) routes.action(`button_${i}`, async () => {});
    routes.view('form_a', async () => {});
    routes.view('form_b', async () => {});

    // Assert
    expect(boltListeners(app) - before).toBe(2);
  });

  it('runs the handler of the action_id clicked, exact or by pattern, and only that one', async () => {
    // Arrange
    const { app, receiver } = boltApp();
    const routes = new SlackRoutes(app, silentLogger());
    const ran: string[] = [];
    routes.action('approve', async ({ ack }) => {
      await ack();
      ran.push('approve');
    });
    routes.action(/^home_page_/, async ({ ack, action }) => {
      await ack();
      ran.push(`page ${(action as { action_id: string }).action_id}`);
    });
    routes.action('cancel', async ({ ack }) => {
      await ack();
      ran.push('cancel');
    });

    // Act
    await send(receiver, click('cancel'));
    await send(receiver, click('home_page_3'));

    // Assert
    expect(ran).toEqual(['cancel', 'page home_page_3']);
  });

  it('acknowledges an action nobody handles, running nothing', async () => {
    // Arrange
    const { app, receiver } = boltApp();
    const routes = new SlackRoutes(app, silentLogger());
    const ran: string[] = [];
    routes.action('approve', async () => {
      ran.push('approve');
    });

    // Act: a select inside a modal sends block_actions with its own action_id.
    const acks = await send(receiver, click('value'));

    // Assert
    expect(acks).toBe(1);
    expect(ran).toEqual([]);
  });

  it('routes a view submission by its callback_id, and acknowledges one nobody handles', async () => {
    // Arrange
    const { app, receiver } = boltApp();
    const routes = new SlackRoutes(app, silentLogger());
    const ran: string[] = [];
    routes.view('tool_form', async ({ ack, view }) => {
      await ack();
      ran.push(view.callback_id);
    });

    // Act
    await send(receiver, submission('tool_form'));
    const acks = await send(receiver, submission('old_form'));

    // Assert
    expect(ran).toEqual(['tool_form']);
    expect(acks).toBe(1);
  });
});
