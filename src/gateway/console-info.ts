import { z } from 'zod';
import { GatewayAuthError, ResourceNotFoundError } from '../errors.js';
import {
  type GroupApis,
  groupApis,
  NEWEST_KNOWN,
  type OfficialOperation,
  offersOfficial,
  parseVersion,
  type Version,
} from './capabilities.js';

// A console is upgraded rarely and restarts when it is; this long is a read of `info` trusted.
const CONSOLE_TTL_MS = 10 * 60_000;
// This long an official operation the console answered 404 for is refused without asking again:
// long enough that repeated commands cost nothing, short enough that an upgrade is noticed.
export const MISSING_TTL_MS = 10 * 60_000;

const infoSchema = z.looseObject({ applicationVersion: z.string().optional() });

/** What the bot knows of the console: its version and which endpoints each tool group uses there. */
export interface ConsoleInfo {
  /** The Network application version `GET /integration/v1/info` answered; unset when none did. */
  version?: string;
  /** Whether the official API answers (an API key, and `info` found). */
  official: boolean;
  /** Each tool group's endpoint generations on this console. */
  apis: GroupApis[];
  /** When `info` was read (ISO 8601). */
  readAt: string;
}

/**
 * Reads `GET /integration/v1/info` once (concurrent callers share the read), keeps it ten minutes,
 * and forgets it when the controller was found unreachable, so the first read after a reconnect
 * asks again (an upgrade restarts the console). A 404 (no official API: before Network 9.0) or a
 * refused key leaves the official API out; any other failure is the caller's error and is not kept.
 */
export class ConsoleVersion {
  private pending: Promise<ConsoleInfo> | undefined;
  private known: { info: ConsoleInfo; at: number } | undefined;
  /** Official operations this console answered 404 for, and when. */
  private readonly missing = new Map<OfficialOperation, number>();
  /** Official-only groups this console has answered a request of (so they need no probe). */
  private readonly seen = new Set<string>();

  constructor(
    private readonly readInfo: (() => Promise<unknown>) | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** The last info read, without a request (help and /healthz show it). */
  current(): ConsoleInfo | undefined {
    const info = this.known?.info;
    if (info === undefined) return undefined;
    const missing = this.missingNow();
    if (missing.size === 0) return info;
    return { ...info, apis: groupApis(versionOf(info), missing) };
  }

  /** Drops what is known, the 404s included: the next `read` asks the console again. */
  forget(): void {
    this.known = undefined;
    this.missing.clear();
    this.seen.clear();
  }

  /** Notes that the console answered a request of an official-only group (not with a 404). */
  markAnswered(group: string): void {
    this.seen.add(group);
  }

  /** Whether the console has answered a request of this group since it was last forgotten. */
  answered(group: string): boolean {
    return this.seen.has(group);
  }

  /** Notes that the console answered 404 for an official operation: refused for a while, unasked. */
  markMissing(operation: OfficialOperation): void {
    this.missing.set(operation, this.now());
  }

  /** Whether the console answered 404 for `operation` recently enough to refuse it unasked. */
  isMissing(operation: OfficialOperation): boolean {
    const at = this.missing.get(operation);
    if (at === undefined) return false;
    if (this.now() - at < MISSING_TTL_MS) return true;
    this.missing.delete(operation);
    return false;
  }

  private missingNow(): Set<OfficialOperation> {
    return new Set([...this.missing.keys()].filter((operation) => this.isMissing(operation)));
  }

  /** Info read fresh enough, or read now. */
  read(): Promise<ConsoleInfo> {
    if (this.known && this.now() - this.known.at < CONSOLE_TTL_MS) return Promise.resolve(this.known.info);
    this.pending ??= this.fetch().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /**
   * Whether the table picks the official endpoint of an operation on this console (reads `info`
   * when not known): false where the version predates its document or the console answered 404.
   */
  async offers(operation: OfficialOperation): Promise<boolean> {
    const info = await this.read();
    if (!info.official || this.isMissing(operation)) return false;
    return offersOfficial(versionOf(info), operation);
  }

  private async fetch(): Promise<ConsoleInfo> {
    let version: string | undefined;
    let official = false;
    if (this.readInfo !== undefined) {
      try {
        version = infoSchema.safeParse(await this.readInfo()).data?.applicationVersion;
        official = true;
      } catch (error) {
        if (!(error instanceof ResourceNotFoundError) && !(error instanceof GatewayAuthError)) throw error;
      }
    }
    const info: ConsoleInfo = {
      ...(version === undefined ? {} : { version }),
      official,
      apis: groupApis(official ? (parseVersion(version) ?? NEWEST_KNOWN) : undefined),
      readAt: new Date(this.now()).toISOString(),
    };
    this.known = { info, at: this.now() };
    return info;
  }
}

/** The version the capability table reads for a console (an unreadable one counts as the newest known). */
export function versionOf(info: ConsoleInfo): Version | undefined {
  if (!info.official) return undefined;
  return parseVersion(info.version) ?? NEWEST_KNOWN;
}
