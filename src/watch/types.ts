import type { Generation } from '../gateway/capabilities.js';
import type { Actor, ChangeRequest, MessageRef } from '../model/change-request.js';

/** What kind of trouble an incident is. */
export const INCIDENT_KINDS = [
  'device_offline',
  'wan_down',
  'wan_failover',
  'uplink_changed',
  'poe_stopped',
  'alarm',
] as const;
export type IncidentKind = (typeof INCIDENT_KINDS)[number];

/** One incident: one Slack message, edited as it changes. Times are ms since the epoch. */
export interface Incident {
  /** Stable per subject and kind (`device_offline:<mac>`), plus the start time: unique. */
  id: string;
  /** What identifies the trouble while it lasts (`device_offline:<mac>`): the dedup key. */
  key: string;
  site: string;
  /** The console of a fleet it happened on; unset for the one GATEWAY_* console. */
  console?: string;
  kind: IncidentKind;
  /** The device, WAN or port in words ("Garage AP"). */
  subject: string;
  /** A device MAC the incident is about, when there is one (webhook alarms are matched on it). */
  mac?: string;
  /** More words ("uplink moved from Core Switch to Office Switch"). */
  detail?: string;
  startedAt: number;
  /** When it was last seen back; while within ALERT_FLAP_SECONDS a new failure reopens this incident. */
  resolvedAt?: number;
  /** How often it came back and failed again within the flap window. */
  flaps: number;
  /** A one-off event (an uplink change, an alarm): resolved as it is posted. */
  event?: boolean;
  source: 'poller' | 'webhook';
  acknowledgedBy?: Actor;
  acknowledgedAt?: number;
  message?: MessageRef;
  /** Whether the message was mentioned ALERT_MENTION already (only new incidents mention). */
  mentioned?: boolean;
}

/** One field that differs between the last known state and now. */
export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

/** The configuration kinds the bot manages and watches for drift. */
export const DRIFT_KINDS = [
  'networks',
  'zones',
  'policies',
  'firewall_rules',
  'acl_rules',
  'lists',
  'routes',
  'wifi',
] as const;
export type DriftKind = (typeof DRIFT_KINDS)[number];

/** A configuration object changed outside the bot, as posted to DRIFT_CHANNEL. */
export interface Drift {
  id: string;
  site: string;
  /** The console of a fleet it happened on; unset for the one GATEWAY_* console. */
  console?: string;
  kind: DriftKind;
  /**
   * `official` when the kind was read from the console's official API (the id is the
   * official UUID, the fields are the official model's, the Revert maps them); absent: the kind's
   * classic or v2 read, as before.
   */
  generation?: Generation;
  objectId: string;
  objectName: string;
  change: 'changed' | 'added' | 'removed';
  fields: FieldChange[];
  /** The whole record before (undefined for an added object) and after (undefined when removed). */
  before?: Record<string, unknown>;
  after?: Record<string, unknown>;
  noticedAt: number;
  /** Who changed it per the controller's admin log, when readable. */
  changedBy?: string;
  acceptedBy?: Actor;
  acceptedAt?: number;
  /** The change request proposed to put it back. */
  revertRequestId?: string;
  revertedBy?: Actor;
  /** Why Revert is not offered (a field no tool of the bot sets), when it is not. */
  revertUnavailable?: string;
  message?: MessageRef;
}

/**
 * The Alarm Manager alarms of one minute that were not posted one by one (past the channel's
 * ALERT_ALARMS_PER_MINUTE), summed up in one message when the minute closes.
 */
export interface AlarmSummary {
  site: string;
  /** The console of a fleet; unset for the one GATEWAY_* console. */
  console?: string;
  /** The minute: from its first alarm, 60 s. */
  from: number;
  to: number;
  /** How many alarms were held back, and how many of the minute were posted one by one. */
  count: number;
  posted: number;
  /** Alarm names and devices with how many of each, most first; past a few, the rest as `others`. */
  kinds: { name: string; count: number }[];
  devices: { name: string; count: number }[];
  /** The first few held back, in arrival order. */
  first: { subject: string; name?: string }[];
}

/** The day in a few lines: what the digest shows. */
export interface Digest {
  site: string;
  /** The console of a fleet; unset for the one GATEWAY_* console. */
  console?: string;
  from: number;
  to: number;
  timeZone?: string;
  changes: {
    id: string;
    tool: string;
    requester: string;
    approver?: string;
    state: string;
    at: string;
  }[];
  drift: { kind: DriftKind; objectName: string; change: string; noticedAt: number; accepted: boolean }[];
  incidents: { subject: string; kind: IncidentKind; startedAt: number; resolvedAt?: number }[];
  offlineNow: string[];
  topClients: { name: string; bytes: number }[];
  topApps: { name: string; bytes: number }[];
  pendingApprovals: { id: string; tool: string; requester: string }[];
  /** Break-glass changes past their review deadline, unreviewed: raised every day until reviewed. */
  overdueReviews?: { id: string; tool: string; requester: string; reason: string; dueAt: string }[];
  /** Why a part is missing (the controller did not answer), when one is. */
  notes: string[];
  /** Why the console could not be read (down, or the bot's key refused), when it could not. */
  unreachable?: string;
}

/** A chart to post beside the digest. */
export interface DigestChart {
  png: Uint8Array;
  title: string;
}

/**
 * Where the watcher's messages go (a port: app.ts wires it to the Slack front end, so watch/ never
 * imports a front end). A post resolves with the message, or undefined when it could not be posted.
 */
export interface WatchNotifier {
  postIncident(channel: string, incident: Incident, mention?: string): Promise<MessageRef | undefined>;
  updateIncident(incident: Incident): Promise<void>;
  postAlarmSummary(channel: string, summary: AlarmSummary): Promise<MessageRef | undefined>;
  postDrift(channel: string, drift: Drift): Promise<MessageRef | undefined>;
  updateDrift(drift: Drift): Promise<void>;
  postDigest(channel: string, digest: Digest, chart?: DigestChart): Promise<MessageRef | undefined>;
}

/** What a Revert click starts: a change request, for the front end to show. */
export type RevertOutcome =
  | { kind: 'proposed'; drift: Drift; request: ChangeRequest }
  | { kind: 'unavailable'; drift: Drift; reason: string }
  | { kind: 'already'; drift: Drift }
  | { kind: 'not_found'; id: string };

/** What an Accept or Acknowledge click led to. */
export type RecordOutcome<T> =
  | { kind: 'done'; value: T }
  | { kind: 'already'; value: T }
  | { kind: 'not_found'; id: string };
