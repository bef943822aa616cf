import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Approvals } from '../approvals/approvals.js';
import type { Logger } from '../log.js';
import type { StoreHealth } from '../store/types.js';

/** The console as last read: its version and each tool group's endpoint generations. */
export type ControllerInfo = {
  version?: string;
  official: boolean;
  apis: { group: string; generations: string[] }[];
};

/** What /healthz reads. */
export interface HealthSources {
  mode: 'http' | 'socket';
  logger: Logger;
  approvals: Pick<Approvals, 'count'>;
  storeHealth: () => Promise<StoreHealth>;
  controllerInfo?: () => ControllerInfo | undefined;
  /** Slack's side: refused, not answered yet (or Socket Mode not connected), or ok. */
  slackState: () => { ok: boolean; error?: string };
  draining: () => boolean;
}

/**
 * GET /healthz. A replica whose store does not answer, or that Slack has not answered yet, is not
 * ready: the load balancer sends clicks elsewhere. A file journal that cannot be written leaves
 * lookups working: degraded, but still 200.
 */
export function healthzHandler(sources: HealthSources): (req: IncomingMessage, res: ServerResponse) => void {
  const { mode, logger } = sources;
  const startedAt = Date.now();
  const healthBody = async () => {
    if (sources.draining()) return { ready: false, body: { status: 'stopping', front_end: 'slack', mode } };
    const store = await sources.storeHealth();
    const readable = store.ok || store.readOnly === true;
    const pending = readable
      ? await sources.approvals.count({ state: 'pending' }).catch(() => undefined)
      : undefined;
    const storeReady = readable && pending !== undefined;
    const slack = sources.slackState();
    const ready = storeReady && slack.ok;
    const body = {
      status: ready ? (store.ok ? 'ok' : 'degraded') : 'unavailable',
      front_end: 'slack',
      mode,
      slack,
      store: {
        kind: store.kind,
        ok: store.ok && storeReady,
        ...(store.readOnly ? { read_only: true } : {}),
        ...(store.error ? { error: store.error } : {}),
      },
      ...(pending !== undefined ? { pending_changes: pending } : {}),
      ...controllerHealth(sources.controllerInfo?.()),
      uptime_s: Math.round((Date.now() - startedAt) / 1000),
    };
    return { ready, body };
  };
  return (_req, res) => {
    void healthBody().then(
      ({ ready, body }) => {
        res.writeHead(ready ? 200 : 503, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      },
      (error: unknown) => {
        logger.error({ err: error }, 'health check failed');
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 'unavailable', front_end: 'slack' }));
      },
    );
  };
}

/** /healthz's `controller`: the version and which generation each tool group uses. */
function controllerHealth(info: ControllerInfo | undefined): {
  controller?: { version: string | null; official_api: boolean; apis: Record<string, string[]> };
} {
  if (info === undefined) return {};
  return {
    controller: {
      version: info.version ?? null,
      official_api: info.official,
      apis: Object.fromEntries(info.apis.map((a) => [a.group, a.generations])),
    },
  };
}
