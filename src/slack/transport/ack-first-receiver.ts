import type { ServerResponse } from 'node:http';
import {
  type App,
  type BufferedIncomingMessage,
  HTTPModuleFunctions,
  HTTPResponseAck,
  type Receiver,
  type ReceiverEvent,
} from '@slack/bolt';
import type { Logger } from '../../log.js';
import { SHUTTING_DOWN_TEXT } from './drain.js';

/** The ack a request gets before any listener runs, or `undefined`: its listener acks (a form). */
export type EarlyAck = (envelope: Record<string, unknown>) => { body?: unknown } | undefined;

/**
 * The early ack of both faces (this receiver and socket-ack-first-receiver.ts): empty for a command,
 * a click or an event; none for a modal submission (its listener acks, maybe with validation
 * errors); while the bot is stopping, a command's ack says so, which Slack shows its user at once.
 */
export function slackEarlyAck(draining: () => boolean): EarlyAck {
  return (envelope) => {
    if (envelope.type === 'view_submission') return undefined;
    if (typeof envelope.command === 'string' && draining()) {
      return { body: { response_type: 'ephemeral', text: SHUTTING_DOWN_TEXT } };
    }
    return {};
  };
}

/** How long a request whose listener acks may wait for it before Slack is told 404 [Bolt's 3,001 ms]. */
export const LISTENER_ACK_TIMEOUT_MS = 3001;

/**
 * Bolt's HTTP receiver, minus its own body reading and verification (request-guard.ts did both)
 * and with the ack first (an ack never waits). A request whose ack carries nothing
 * (a slash command, a click, an event) is answered as soon as the guard let it through: before
 * Bolt's `authorize`, its middleware and the listeners, and before any store or controller work.
 * Only a modal submission waits for its listener, which may answer with validation errors; Bolt's
 * 3 s timeout then applies as before. The listener's own `ack()` on an acknowledged request is a
 * no-op.
 */
export class AckFirstReceiver implements Receiver {
  private app: App | undefined;

  constructor(
    private readonly options: {
      logger: Logger;
      earlyAck: EarlyAck;
      /** Bolt's logger, for its unhandled-request handler. */
      boltLogger: ConstructorParameters<typeof HTTPResponseAck>[0]['logger'];
    },
  ) {}

  init(app: App): void {
    this.app = app;
  }

  // The server is the process's (http-server.ts), started by the front end: nothing to start or stop here.
  async start(): Promise<void> {}
  async stop(): Promise<void> {}

  /**
   * Serves one verified request. `envelope` is its body as the guard decoded it (Bolt's own
   * decoding); none for Slack's unsigned ssl_check.
   */
  handle(req: BufferedIncomingMessage, res: ServerResponse, envelope?: Record<string, unknown>): void {
    if (envelope === undefined || envelope.ssl_check === '1') {
      HTTPModuleFunctions.buildSSLCheckResponse(res);
      return;
    }
    if (envelope.type === 'url_verification') {
      HTTPModuleFunctions.buildUrlVerificationResponse(res, envelope);
      return;
    }
    const early = this.options.earlyAck(envelope);
    let ack: ReceiverEvent['ack'];
    if (early) {
      HTTPModuleFunctions.buildContentResponse(res, early.body);
      ack = async () => {};
    } else {
      ack = new HTTPResponseAck({
        logger: this.options.boltLogger,
        processBeforeResponse: false,
        unhandledRequestTimeoutMillis: LISTENER_ACK_TIMEOUT_MS,
        httpRequest: req,
        httpRequestBody: envelope,
        httpResponse: res,
      }).bind();
    }
    const event: ReceiverEvent = {
      body: envelope,
      ack,
      retryNum: HTTPModuleFunctions.extractRetryNumFromHTTPRequest(req),
      retryReason: HTTPModuleFunctions.extractRetryReasonFromHTTPRequest(req),
    };
    const app = this.app;
    if (!app) throw new Error('AckFirstReceiver: init(app) was not called');
    app.processEvent(event).catch(async (error: unknown) => {
      // The guard checks what Bolt reads, so this is a bug (ours or Bolt's): log it in full.
      this.options.logger.error({ err: error }, 'Bolt could not process a Slack request');
      if (!res.headersSent) {
        await HTTPModuleFunctions.defaultProcessEventErrorHandler({
          error: error as Error,
          logger: this.options.boltLogger,
          request: req,
          response: res,
          storedResponse: undefined,
        });
      }
    });
  }
}
