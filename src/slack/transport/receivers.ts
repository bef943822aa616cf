import type { Receiver } from '@slack/bolt';
import type { Config } from '../../config.js';
import type { HttpRoute } from '../../http-server.js';
import type { Logger } from '../../log.js';
import { boltLogger, slackClientOptions } from '../slack-client.js';
import { AckFirstReceiver, slackEarlyAck } from './ack-first-receiver.js';
import { guardSlackRequests, type ServedEnvelopes } from './request-guard.js';
import { SocketAckFirstReceiver } from './socket-ack-first-receiver.js';

/** Where Slack sends every request in HTTP mode. */
const EVENTS_PATH = '/slack/events';

/** Bolt's receiver and, in HTTP mode, the route Slack's requests arrive on. */
export interface SlackTransport {
  receiver: Receiver;
  /** `POST /slack/events`; none in Socket Mode, which has no request URL. */
  events?: HttpRoute;
}

/**
 * The ack goes out once a request is verified and decoded (HTTP) or an envelope parsed and checked
 * (Socket Mode), before Bolt's authorize, middleware and listeners; a form's submission alone waits
 * for its listener (its ack may carry validation errors). While stopping, a command's ack says so.
 */
export function slackTransport(
  config: Config,
  logger: Logger,
  served: ServedEnvelopes,
  draining: () => boolean,
): SlackTransport {
  const earlyAck = slackEarlyAck(draining);
  const { appToken, signingSecret } = config.slack;
  // Socket Mode: our receiver (socket-ack-first-receiver.ts) on Slack's Socket Mode client, its
  // envelopes checked like the HTTP guard's bodies. apps.connections.open honours SLACK_API_URL
  // (the Socket Mode process tests rely on it).
  if (appToken) {
    return {
      receiver: new SocketAckFirstReceiver({
        appToken,
        clientOptions: slackClientOptions(config, logger),
        logger,
        boltLogger: boltLogger(logger),
        earlyAck,
        served,
      }),
    };
  }
  // HTTP mode: our receiver (ack-first-receiver.ts) behind a guard (size, signature, timestamp,
  // envelope shape: see request-guard.ts), on the process's HTTP server beside /healthz.
  const receiver = new AckFirstReceiver({ logger, boltLogger: boltLogger(logger), earlyAck });
  const handler = guardSlackRequests(
    { signingSecret: signingSecret ?? '', served, logger },
    (req, res, envelope) => receiver.handle(req, res, envelope),
  );
  return { receiver, events: { path: EVENTS_PATH, methods: ['POST'], handler } };
}
