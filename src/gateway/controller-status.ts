import { z } from 'zod';
import { scrubSecrets } from '../log.js';
import { apiRoute, type Deployment } from './paths.js';
import type { Call } from './pipeline.js';
import type { ControllerStatus } from './types.js';

// A status shown on App Home need not be fresher than this; every open would otherwise probe.
const STATUS_TTL_MS = 30_000;

const infoSchema = z.looseObject({ applicationVersion: z.string().optional() });
const sysinfoSchema = z.array(z.looseObject({ version: z.string().optional() }));

/** What the probe needs from the pipeline: one read, the last answered read, and the controller kind. */
export interface StatusSource {
  apiType: 'local' | 'cloud';
  /** True: the Integration API (`/integration/v1/info`) answers the version; false: classic sysinfo. */
  hasApiKey: boolean;
  read(call: Call): Promise<unknown>;
  lastReadAt(): number | undefined;
  deployment(): Deployment | undefined;
}

/**
 * Reachability and version of the controller, from one cheap read (Integration `info` with an API
 * key, classic `stat/sysinfo` with a session), kept for 30 s and shared by concurrent callers.
 * Read-only, and never throws: an unreachable controller is an answer.
 */
export class StatusProbe {
  private cached: { site: string; at: number; status: Promise<ControllerStatus> } | undefined;

  constructor(
    private readonly source: StatusSource,
    private readonly now: () => number = Date.now,
  ) {}

  status(site: string): Promise<ControllerStatus> {
    const at = this.now();
    if (this.cached && this.cached.site === site && at - this.cached.at < STATUS_TTL_MS) {
      return this.cached.status.then((status) => this.withLastRead(status));
    }
    const status = this.probe(site);
    this.cached = { site, at, status };
    return status;
  }

  private async probe(site: string): Promise<ControllerStatus> {
    const base = { apiType: this.source.apiType, checkedAt: new Date(this.now()).toISOString() };
    try {
      const version = await this.version(site);
      return this.withLastRead({ ...base, reachable: true, ...(version ? { version } : {}) });
    } catch (error) {
      const message = scrubSecrets(error instanceof Error ? error.message : String(error));
      return this.withLastRead({ ...base, reachable: false, error: message });
    }
  }

  private async version(site: string): Promise<string | undefined> {
    if (this.source.hasApiKey) {
      const path = 'info';
      const body = await this.source.read({
        api: 'integration',
        method: 'GET',
        path,
        route: apiRoute('integration', undefined, path),
      });
      return infoSchema.safeParse(body).data?.applicationVersion;
    }
    const path = 'stat/sysinfo';
    const body = await this.source.read({
      api: 'classic',
      method: 'GET',
      site,
      path,
      route: apiRoute('classic', site, path),
    });
    return sysinfoSchema.safeParse(body).data?.[0]?.version;
  }

  /** The kind and the last answered read as they are now (a tool may have read since the probe). */
  private withLastRead(status: ControllerStatus): ControllerStatus {
    const { lastReadAt: _old, kind: _kind, ...rest } = status;
    const last = this.source.lastReadAt();
    const kind = this.source.apiType === 'cloud' ? 'cloud' : this.source.deployment();
    return {
      ...rest,
      ...(kind ? { kind } : {}),
      ...(last === undefined ? {} : { lastReadAt: new Date(last).toISOString() }),
    };
  }
}
