import { isBotError } from '../errors.js';
import type { Gateway } from '../gateway/types.js';
import type { Actor } from '../model/change-request.js';
import { pruneIncidents, trackConditions } from './incidents.js';
import { EMPTY_OBSERVED, observeDevices, watchedDeviceSchema } from './observe.js';
import type { Incident, RecordOutcome } from './types.js';
import { ALARM_PREFIX, DAY, scopeOf, stateKey, type WatcherOptions, type WatchState } from './watch-state.js';

const ackKey = (id: string) => `watch:ack:${id}`;

/** The poller's incidents: devices down, flapping or degraded, posted, edited and acknowledged. */
export class IncidentWatch {
  readonly #o: WatcherOptions;
  readonly #now: () => number;
  readonly #flushAlarms: () => Promise<boolean>;

  /** `flushAlarms` sums up a minute of alarms whose replica stopped before it did. */
  constructor(options: WatcherOptions, now: () => number, flushAlarms: () => Promise<boolean>) {
    this.#o = options;
    this.#now = now;
    this.#flushAlarms = flushAlarms;
  }

  /** One poll, once the lease is held: one `stat/device` read (shared with the read cache), incidents posted and edited. */
  async poll(): Promise<void> {
    const { gateway, site, data, logger, config } = this.#o;
    let devices: Awaited<ReturnType<typeof readDevices>>;
    try {
      devices = await readDevices(gateway, site);
    } catch (error) {
      if (!isBotError(error)) throw error;
      logger.warn({ site, reason: error.message }, 'watch: devices could not be read this tick');
      return;
    }
    const at = this.#now();
    const key = stateKey(scopeOf(this.#o));
    const state = (await data.get<WatchState>(key)) ?? { observed: EMPTY_OBSERVED, incidents: [] };
    const { conditions, state: observed } = observeDevices(devices, state.observed);
    const incidents = pruneIncidents(state.incidents, at, DAY + config.flapSeconds * 1000);
    const { opened, updated } = trackConditions(incidents, conditions, site, at, config.flapSeconds * 1000);
    const { console } = this.#o;
    if (console !== undefined) for (const incident of opened) incident.console = console;
    // Recorded before posting: a replica taking over mid-post never posts the same incident again.
    await data.set(key, { observed, incidents });
    if (!config.alertChannel) return;
    // A minute of alarms whose replica stopped before summing it up is summed up here.
    await this.#flushAlarms().catch((error: unknown) => {
      logger.warn({ err: error }, 'watch: the alarm summary could not be posted');
    });
    let posted = false;
    // Open incidents whose message could not be posted before (Slack down, or not ready at start)
    // are posted now, once Slack takes them.
    const owed = incidents.filter((i) => !i.message && i.resolvedAt === undefined && !opened.includes(i));
    for (const incident of [...opened, ...owed]) {
      const ref = await this.#o.notifier
        .postIncident(config.alertChannel, incident, config.alertMention)
        .catch((error: unknown) => {
          logger.warn({ err: error, incident: incident.id }, 'watch: the alert could not be posted');
          return undefined;
        });
      if (ref) {
        incident.message = ref;
        incident.mentioned = config.alertMention !== undefined;
        posted = true;
      }
    }
    // The messages are recorded before anything else: an Acknowledge clicked on one from now on is
    // shown by `acknowledge` itself. One clicked before (the alert is visible as soon as it is
    // posted) stored its ack first, so it is found just below and shown here.
    if (posted) await data.set(key, { observed, incidents });
    const edit = (incident: Incident) =>
      this.#o.notifier.updateIncident(incident).catch((error: unknown) => {
        logger.warn({ err: error, incident: incident.id }, 'watch: the alert could not be edited');
      });
    for (const incident of [...opened, ...owed]) {
      if (!incident.message || updated.includes(incident)) continue;
      if ((await this.#withAck(incident)).acknowledgedBy) await edit(incident);
    }
    for (const incident of updated) {
      if (!incident.message) continue;
      await this.#withAck(incident);
      await edit(incident);
    }
  }

  async #withAck(incident: Incident): Promise<Incident> {
    const ack = await this.#o.data.get<{ actor: Actor; at: number }>(ackKey(incident.id));
    if (ack) {
      incident.acknowledgedBy = ack.actor;
      incident.acknowledgedAt = ack.at;
    }
    return incident;
  }

  /** Whether this console and site keep the incident `id` (a poller's, or an alarm of this console). */
  async knows(id: string): Promise<boolean> {
    const state = await this.#o.data.get<WatchState>(stateKey(scopeOf(this.#o)));
    if (state?.incidents.some((incident) => incident.id === id)) return true;
    const alarm = await this.#o.data.get<Incident>(`${ALARM_PREFIX}${id}`);
    return alarm !== undefined && alarm.console === this.#o.console;
  }

  /** Records who acknowledged an incident (any replica: the ack has a key of its own). */
  async acknowledge(id: string, actor: Actor): Promise<RecordOutcome<Incident>> {
    const { data } = this.#o;
    const find = async () => {
      const state = await data.get<WatchState>(stateKey(scopeOf(this.#o)));
      return state?.incidents.find((i) => i.id === id) ?? (await data.get<Incident>(`${ALARM_PREFIX}${id}`));
    };
    if (await data.get(ackKey(id))) {
      const incident = await find();
      return incident ? { kind: 'already', value: await this.#withAck(incident) } : { kind: 'not_found', id };
    }
    // The ack is stored before the incident is read: a poll that has just posted its alert records
    // the message and then looks for an ack, so one of the two edits the message, whatever the order.
    const at = this.#now();
    await data.set(ackKey(id), { actor, at });
    const incident = await find();
    if (!incident) {
      await data.delete(ackKey(id));
      return { kind: 'not_found', id };
    }
    incident.acknowledgedBy = actor;
    incident.acknowledgedAt = at;
    if (incident.message) await this.#o.notifier.updateIncident(incident);
    return { kind: 'done', value: incident };
  }
}

/**
 * The poll's one `stat/device` read, always from the controller (`fresh`): a poller that took the
 * read cache's answer would see a device up to its TTL (10 s) late. Its answer refreshes the cache
 * for `/net` reads, and it joins an identical read already in flight, so it is shared all the same.
 */
async function readDevices(gateway: Gateway, site: string) {
  return (await gateway.classicRead(site, 'stat/device', watchedDeviceSchema, { fresh: true })).items;
}
