import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpRoute } from '../http-server.js';
import type { Logger } from '../log.js';
import type { CompletedStepUp, StepUp } from './step-up.js';

/** What the face did with a sign-in that maps to the approver: the page's sentence, and whether it counted. */
export interface StepUpFinish {
  counted: boolean;
  text: string;
}

export const OIDC_CALLBACK_PATH = '/oidc/callback';

/**
 * GET /oidc/callback: the identity provider sends the browser back here. The link is checked and
 * used up by `stepUp`; a sign-in that maps to the approver is handed to `finish`, which records
 * the approval exactly as a click would. The page says in plain words what happened.
 */
export function oidcCallbackRoute(
  stepUp: StepUp,
  finish: (signIn: CompletedStepUp) => Promise<StepUpFinish>,
  logger: Logger,
): HttpRoute {
  return {
    path: OIDC_CALLBACK_PATH,
    methods: ['GET'],
    handler: (req, res) => void answer(req, res, stepUp, finish, logger),
  };
}

async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  stepUp: StepUp,
  finish: (signIn: CompletedStepUp) => Promise<StepUpFinish>,
  logger: Logger,
): Promise<void> {
  try {
    const url = new URL(req.url ?? '/', 'http://callback.invalid');
    const result = await stepUp.complete(url);
    if (!result.ok) return page(res, 403, 'Not approved', result.reason);
    const done = await finish(result.signIn);
    return page(res, done.counted ? 200 : 409, done.counted ? 'Approved' : 'Not approved', done.text);
  } catch (error) {
    logger.error({ err: error }, 'step-up sign-in callback failed');
    return page(res, 500, 'Not approved', 'Something went wrong; nothing was approved. Click Approve again.');
  }
}

function page(res: ServerResponse, status: number, title: string, text: string): void {
  const body = `<!doctype html><html><head><meta charset="utf-8"><title>${htmlText(title)}</title></head><body><h1>${htmlText(title)}</h1><p>${htmlText(text)}</p></body></html>`;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'content-security-policy': "default-src 'none'",
  });
  res.end(body);
}

function htmlText(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
