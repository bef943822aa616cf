import {
  type App,
  type Logger as BoltLogger,
  defaultProcessEventErrorHandler,
  type Receiver,
  type ReceiverEvent,
  type webApi,
} from '@slack/bolt';
import { SocketModeClient, type SocketModeOptions } from '@slack/socket-mode';
import { z } from 'zod';
import type { Logger } from '../../log.js';
import type { EarlyAck } from './ack-first-receiver.js';
import { firstIssue, judgeEnvelope, type ServedEnvelopes } from './request-guard.js';

/** The Socket Mode frames that carry a request for a listener (Slack's envelope types). */
const ENVELOPE_TYPES = ['slash_commands', 'interactive', 'events_api'] as const;

/** Frames the Socket Mode client handles itself: the handshake and Slack's request to reconnect. */
const CONTROL_TYPES: ReadonlySet<unknown> = new Set(['hello', 'disconnect']);

// What the Socket Mode client reads from an envelope before anything else (it took `payload.event.type`
// of a null payload and threw, leaving the envelope unacked); the payload is then judged like an HTTP
// request's body (request-guard.ts).
const envelopeFrame = z.looseObject({
  envelope_id: z.string().min(1),
  type: z.enum(ENVELOPE_TYPES),
  payload: z.looseObject({}),
  retry_attempt: z.number().optional(),
  retry_reason: z.string().optional(),
});

/**
 * Handed to the Socket Mode client in place of an envelope the bot will not process: the client
 * acks it like any envelope (its `ack` is the only way to answer one), and the receiver does nothing else.
 */
const REFUSED_TYPE = 'netops_refused_envelope';

/** What the Socket Mode client emits as `slack_event` for each envelope. */
interface SocketModeEnvelope {
  ack: (response?: Record<string, unknown>) => Promise<void>;
  envelope_id: string;
  type: string;
  body: Record<string, unknown>;
  retry_num?: number;
  retry_reason?: string;
}

/** Why a frame is not handed on, and the envelope id to ack it with when it has one. */
interface FrameRefusal {
  reason: string;
  type?: string;
  envelopeId?: string;
}

/** Judges one parsed frame: undefined when the client may handle it. */
function judgeFrame(frame: unknown, served: ServedEnvelopes): FrameRefusal | undefined {
  if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) {
    return { reason: 'the frame is not a JSON object' };
  }
  const fields = frame as Record<string, unknown>;
  if (CONTROL_TYPES.has(fields.type)) return undefined;
  const type = typeof fields.type === 'string' ? fields.type.slice(0, 40) : undefined;
  const envelopeId =
    typeof fields.envelope_id === 'string' && fields.envelope_id.length > 0 ? fields.envelope_id : undefined;
  const refused = (reason: string): FrameRefusal => ({
    reason,
    ...(type !== undefined ? { type } : {}),
    ...(envelopeId !== undefined ? { envelopeId } : {}),
  });
  const parsed = envelopeFrame.safeParse(frame);
  if (!parsed.success) return refused(firstIssue(parsed.error));
  const payload = parsed.data.payload;
  // HTTP-only envelopes: Slack never sends them over a socket, and Bolt has no listener for them.
  if (payload.ssl_check !== undefined || payload.type === 'url_verification') {
    return refused('not a Socket Mode request');
  }
  const refusal = judgeEnvelope(payload, served);
  return refusal ? refused(`payload: ${refusal.reason}`) : undefined;
}

/**
 * Slack's Socket Mode client with a zod check at its edge: a frame that is not an envelope of a
 * kind a listener serves, with the fields Bolt reads well-typed, is logged and acked (when it has an
 * envelope id) instead of reaching the client's own parsing, which threw on some (an unhandled
 * rejection, the envelope never acked, so Slack sent it again) and Bolt, which would wait for a
 * listener that never comes.
 */
class GuardedSocketModeClient extends SocketModeClient {
  constructor(
    options: SocketModeOptions,
    private readonly guard: (frame: unknown) => FrameRefusal | undefined,
    private readonly log: Logger,
  ) {
    super(options);
  }

  protected override async onWebSocketMessage(data: string | ArrayBuffer, isBinary: boolean): Promise<void> {
    // Binary frames: the client logs and drops them itself.
    if (isBinary) return super.onWebSocketMessage(data, isBinary);
    const text = typeof data === 'string' ? data : new TextDecoder().decode(data);
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch {
      this.log.warn({ bytes: text.length }, 'ignored a Socket Mode frame that is not JSON');
      return;
    }
    const refusal = this.guard(frame);
    // The client parses the frame again: a few microseconds for a Slack envelope of a few KB, for
    // its own handling of the handshake, reconnects and acks.
    if (!refusal) return super.onWebSocketMessage(data, isBinary);
    const { envelopeId, reason, type } = refusal;
    if (envelopeId === undefined) {
      this.log.warn({ envelope_type: type, reason }, 'ignored a Socket Mode frame with no envelope to ack');
      return;
    }
    this.log.warn(
      { envelope_type: type, envelope_id: envelopeId.slice(0, 100), reason },
      'acked a Socket Mode envelope without handling it',
    );
    return super.onWebSocketMessage(JSON.stringify({ envelope_id: envelopeId, type: REFUSED_TYPE }), false);
  }
}

/** What the Socket Mode receiver is built from. */
export interface SocketAckFirstReceiverOptions {
  /** SLACK_APP_TOKEN (`xapp-…`): opens the connection (apps.connections.open). */
  appToken: string;
  /** Web API options for apps.connections.open: SLACK_API_URL, retries, the log (slackClientOptions). */
  clientOptions: webApi.WebClientOptions;
  logger: Logger;
  /** Bolt's logger, for the Socket Mode client and Bolt's error handler. */
  boltLogger: BoltLogger;
  earlyAck: EarlyAck;
  /** The commands, actions, views and events a listener serves (as the HTTP guard's). */
  served: ServedEnvelopes;
  /** The client's ping and reconnect settings [Slack's defaults: 5 s, 30 s, reconnect]. */
  socket?: Pick<SocketModeOptions, 'clientPingTimeout' | 'serverPingTimeout' | 'autoReconnectEnabled'>;
}

/**
 * Bolt's Socket Mode receiver with the ack first, as ack-first-receiver.ts does
 * for HTTP: a command, a click or an event is acked as soon as its frame is parsed and checked,
 * before Bolt's `authorize`, its middleware and the listeners, then handed to Bolt with a no-op
 * `ack`. A modal submission waits for its listener's ack, which may carry validation errors.
 * Bolt's own receiver acked only when a listener called `ack()`.
 */
export class SocketAckFirstReceiver implements Receiver {
  private app: App | undefined;
  private readonly client: GuardedSocketModeClient;

  constructor(private readonly options: SocketAckFirstReceiverOptions) {
    this.client = new GuardedSocketModeClient(
      {
        appToken: options.appToken,
        logger: options.boltLogger,
        // A copy: the client adds its own defaults to the object it is given.
        clientOptions: { ...options.clientOptions },
        ...options.socket,
      },
      (frame) => judgeFrame(frame, options.served),
      options.logger,
    );
    this.client.on('slack_event', (envelope: SocketModeEnvelope) => this.handle(envelope));
  }

  init(app: App): void {
    this.app = app;
  }

  /** Opens the connection; resolves once Slack said hello, rejects when it cannot be opened. */
  async start(): Promise<void> {
    await this.client.start();
  }

  /** Closes the connection without waiting for Slack's close frame, as Bolt's receiver does. */
  async stop(): Promise<void> {
    this.client.disconnect().catch((error: unknown) => {
      this.options.logger.warn({ err: error }, 'the Socket Mode connection did not close cleanly');
    });
  }

  private handle(envelope: SocketModeEnvelope): void {
    if (envelope.type === REFUSED_TYPE) {
      envelope.ack().catch((error: unknown) => this.ackFailed(error, envelope));
      return;
    }
    const early = this.options.earlyAck(envelope.body);
    if (!early) {
      this.process(envelope, onlyOnce(envelope.ack));
      return;
    }
    envelope.ack(early.body as Record<string, unknown> | undefined).then(
      () => this.process(envelope, async () => {}),
      // Not acked (the connection closed meanwhile): Slack sends it again, so it is not run now.
      (error: unknown) => this.ackFailed(error, envelope),
    );
  }

  private process(envelope: SocketModeEnvelope, ack: ReceiverEvent['ack']): void {
    const app = this.app;
    if (!app) throw new Error('SocketAckFirstReceiver: init(app) was not called');
    const event: ReceiverEvent = {
      body: envelope.body,
      ack,
      ...(envelope.retry_num !== undefined ? { retryNum: envelope.retry_num } : {}),
      ...(envelope.retry_reason !== undefined ? { retryReason: envelope.retry_reason } : {}),
    };
    app.processEvent(event).catch(async (error: unknown) => {
      // The check above covers what Bolt reads, so this is a bug (ours or Bolt's): logged in full.
      this.options.logger.error({ err: error }, 'Bolt could not process a Slack envelope');
      // Bolt's rule: an envelope whose `authorize` failed is acked so Slack stops sending it.
      const ackIt = await defaultProcessEventErrorHandler({
        error: error as Error,
        logger: this.options.boltLogger,
        event,
      });
      if (ackIt) await event.ack().catch((failed: unknown) => this.ackFailed(failed, envelope));
    });
  }

  private ackFailed(error: unknown, envelope: SocketModeEnvelope): void {
    this.options.logger.warn(
      { err: error, envelope_type: envelope.type, envelope_id: envelope.envelope_id },
      'could not ack a Socket Mode envelope; Slack sends it again',
    );
  }
}

/** A listener's `ack`, answered once; later calls do nothing (as Bolt's SocketModeResponseAck). */
function onlyOnce(ack: SocketModeEnvelope['ack']): ReceiverEvent['ack'] {
  let acked = false;
  return async (response?: unknown) => {
    if (acked) return;
    acked = true;
    await ack(response as Record<string, unknown> | undefined);
  };
}
