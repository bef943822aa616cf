import type { webApi } from '@slack/bolt';
import type { Logger } from '../log.js';
import type { MessageRef } from '../model/change-request.js';
import type { FleetDigest } from '../watch/fleet-digest.js';
import type { FleetDigestNotifier } from '../watch/fleet-digest-watch.js';
import type { AlarmSummary, Digest, DigestChart, Drift, Incident, WatchNotifier } from '../watch/types.js';
import { alarmSummaryMessage, incidentMessage } from './blocks/alerts.js';
import { digestMessage } from './blocks/digest.js';
import { driftMessage } from './blocks/drift.js';
import { fleetDigestMessage } from './blocks/fleet-digest.js';
import { plain } from './blocks/text.js';

/** The watcher's notifier port, in Slack: alerts, drift and the digest as messages. */
export function slackWatchNotifier(
  client: webApi.WebClient,
  logger: Logger,
  timeZone?: string,
): WatchNotifier & FleetDigestNotifier {
  const post = async (channel: string, message: { text: string; blocks: unknown[] }) => {
    const answer = await client.chat.postMessage({
      channel,
      text: message.text,
      blocks: message.blocks as never,
      unfurl_links: false,
    });
    return answer.ts
      ? ({ channel: answer.channel ?? channel, ts: answer.ts } satisfies MessageRef)
      : undefined;
  };
  const update = async (ref: MessageRef, message: { text: string; blocks: unknown[] }) => {
    await client.chat.update({
      channel: ref.channel,
      ts: ref.ts,
      text: message.text,
      blocks: message.blocks as never,
    });
  };
  return {
    postIncident: (channel: string, incident: Incident, mention?: string) =>
      post(
        channel,
        incidentMessage(incident, { ...(timeZone ? { timeZone } : {}), ...(mention ? { mention } : {}) }),
      ),
    async updateIncident(incident: Incident) {
      // Edits drop the mention: only a new incident pings the group.
      if (incident.message)
        await update(incident.message, incidentMessage(incident, timeZone ? { timeZone } : {}));
    },
    postAlarmSummary: (channel: string, summary: AlarmSummary) =>
      post(channel, alarmSummaryMessage(summary, timeZone ? { timeZone } : {})),
    postDrift: (channel: string, drift: Drift) =>
      post(channel, driftMessage(drift, timeZone ? { timeZone } : {})),
    async updateDrift(drift: Drift) {
      if (drift.message) await update(drift.message, driftMessage(drift, timeZone ? { timeZone } : {}));
    },
    async postDigest(channel: string, digest: Digest, chart?: DigestChart) {
      const ref = await post(channel, digestMessage(digest));
      if (chart) {
        try {
          const file = {
            channel_id: channel,
            file: Buffer.from(chart.png),
            filename: plain(`digest-${digest.site}.png`),
            title: plain(chart.title),
          };
          // In the digest's thread when it was posted; in the channel otherwise.
          await client.filesUploadV2(ref ? { ...file, thread_ts: ref.ts } : file);
        } catch (error) {
          logger.warn({ err: error, channel }, 'watch: the digest chart could not be uploaded');
        }
      }
      return ref;
    },
    postFleetDigest: (channel: string, digest: FleetDigest) => post(channel, fleetDigestMessage(digest)),
  };
}
