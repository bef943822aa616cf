import { z } from 'zod';
import { ConflictError, ValidationError } from '../../errors.js';
import type { Gateway } from '../../gateway/types.js';
import {
  actionResultSchema,
  type ControllerCommand,
  clientSummary,
  integrationAvailable,
  integrationClientId,
  sendCommand,
} from '../core/action-model.js';
import { confirm, dryRun, intInRange, nonEmpty, siteId } from '../core/arg-types.js';
import { defineTool } from '../core/define-tool.js';
import { clientLabel, type LiveClient, readLiveClients, resolveClient } from '../core/live-targets.js';
import { notRevertible } from '../core/spec-helpers.js';
import { clientChanges } from './changes.js';
import { clientImpact } from './impact.js';

/*
 * Client actions: block, unblock and kick are classic `cmd/stamgr` (the Integration API
 * has neither); guest authorization is the Integration client action when the console offers it,
 * else classic `cmd/stamgr authorize-guest`.
 */

// Deliberately alike: each action file declares its own target argument and result shape; clients and devices are resolved and summarised apart.
const clientRef = nonEmpty('must be a MAC, IP address, name or hostname').describe(
  'The client: its MAC (any notation), IP address, name or hostname',
);

const clientShape = z
  .object({ name: z.string(), mac: z.string(), ip: z.string().optional(), network: z.string().optional() })
  .describe('The client acted on');

const clientOutput = actionResultSchema.extend({ client: clientShape });

async function finish(
  gateway: Gateway,
  site: string,
  dry: boolean | undefined,
  action: string,
  client: LiveClient,
  command: ControllerCommand,
  warnings: string[],
  extra: Record<string, unknown> = {},
) {
  const facts = { client: clientSummary(client), ...extra };
  if (dry) return { dry_run: true, action, ...facts, would_send: command, warnings };
  await sendCommand(gateway, site, command);
  return { success: true as const, action, ...facts, sent: command, warnings };
}

const stamgr = (cmd: string, client: LiveClient, extra: Record<string, unknown> = {}): ControllerCommand => ({
  api: 'classic',
  method: 'POST',
  path: 'cmd/stamgr',
  body: { cmd, mac: client.mac, ...extra },
});

function where(client: LiveClient): string {
  return client.is_wired ? 'its wired port' : `Wi-Fi${client.essid ? ` (${client.essid})` : ''}`;
}

/** The arguments of an action on one client. */
const clientActionArgs = z.object({ site_id: siteId, client: clientRef, confirm, dry_run: dryRun });

// Deliberately alike: the tools below are defineTool declarations, whose shape the framework fixes; each differs in args and run.
const blockClient = defineTool({
  name: 'block_client',
  change: clientChanges.block_client,
  impact: clientImpact,
  description: 'Block a client: it is disconnected and cannot reconnect until unblocked',
  access: 'write',
  example: 'client=Galaxy-S23',
  args: clientActionArgs,
  output: clientOutput,
  async run({ site_id, client, dry_run }, { gateway }) {
    const target = await resolveClient({ gateway, site: site_id }, client, { known: true, fresh: true });
    if (target.blocked === true)
      throw new ConflictError(`${clientLabel(target)} is already blocked; nothing to do`);
    // Cached a moment ago by resolveClient: whether it is connected now, or only known.
    const online = (await readLiveClients({ gateway, site: site_id })).some((c) => c.mac === target.mac);
    const warnings = [
      `${clientLabel(target)}${online ? ` loses ${where(target)} now and` : ''} cannot connect again until unblock_client`,
    ];
    return finish(gateway, site_id, dry_run, 'block', target, stamgr('block-sta', target), warnings);
  },
});

const unblockClient = defineTool({
  name: 'unblock_client',
  change: clientChanges.unblock_client,
  description: 'Unblock a blocked client so it may connect again',
  access: 'write',
  example: 'client="Unknown Tablet"',
  args: clientActionArgs,
  output: clientOutput,
  async run({ site_id, client, dry_run }, { gateway }) {
    const target = await resolveClient({ gateway, site: site_id }, client, { known: true, fresh: true });
    if (target.blocked !== true)
      throw new ConflictError(`${clientLabel(target)} is not blocked; nothing to do`);
    const warnings = [`${clientLabel(target)} may connect again; it reconnects by itself`];
    return finish(gateway, site_id, dry_run, 'unblock', target, stamgr('unblock-sta', target), warnings);
  },
});

const reconnectClient = defineTool({
  name: 'reconnect_client',
  change: notRevertible('a client kicked off Wi-Fi has reconnected by itself; there is nothing to undo'),
  impact: clientImpact,
  description: 'Kick a Wi-Fi client off its access point; it reconnects by itself within seconds',
  access: 'write',
  example: 'client="Guest Laptop"',
  args: clientActionArgs,
  output: clientOutput,
  async run({ site_id, client, dry_run }, { gateway }) {
    const target = await resolveClient({ gateway, site: site_id }, client, { fresh: true });
    if (target.is_wired === true) {
      throw new ValidationError([
        {
          field: 'client',
          rule: `${clientLabel(target)} is wired: only a Wi-Fi client can be kicked (power_cycle_port restarts a PoE device)`,
        },
      ]);
    }
    const warnings = [`${clientLabel(target)} drops off ${where(target)} for a few seconds and reconnects`];
    return finish(gateway, site_id, dry_run, 'reconnect', target, stamgr('kick-sta', target), warnings);
  },
});

/** A guest action: the official client action where the console offers it, else classic `stamgr`. */
async function guestCommand(
  gateway: Gateway,
  site: string,
  target: LiveClient,
  body: Record<string, unknown>,
  classic: ControllerCommand,
): Promise<ControllerCommand> {
  if (!(await integrationAvailable(gateway, site, 'clients.action'))) return classic;
  const id = await integrationClientId(gateway, site, target);
  return { api: 'integration', method: 'POST', path: `clients/${id}/actions`, body };
}

function requireGuest(client: LiveClient): void {
  if (client.is_guest === true) return;
  throw new ValidationError([
    {
      field: 'client',
      rule: `${clientLabel(client)} is not a guest (it is on ${client.network ?? 'a non-guest network'}): guest access applies to clients on a guest network`,
    },
  ]);
}

const authorizeGuest = defineTool({
  name: 'authorize_guest',
  change: clientChanges.authorize_guest,
  description: 'Let a guest client through the hotspot portal, optionally with time, rate and data limits',
  access: 'write',
  example: 'client=Galaxy-S23 minutes=120',
  args: z.object({
    site_id: siteId,
    client: clientRef,
    minutes: intInRange(1, 1_000_000)
      .optional()
      .describe("How long the guest may stay, in minutes (1–1,000,000); left out: the site's guest default"),
    down_kbps: intInRange(2, 100_000).optional().describe('Download limit in kbit/s (2–100,000)'),
    up_kbps: intInRange(2, 100_000).optional().describe('Upload limit in kbit/s (2–100,000)'),
    data_mb: intInRange(1, 1_048_576).optional().describe('Data limit in megabytes (1–1,048,576)'),
    confirm,
    dry_run: dryRun,
  }),
  output: clientOutput,
  async run({ site_id, client, minutes, down_kbps, up_kbps, data_mb, dry_run }, { gateway }) {
    const target = await resolveClient({ gateway, site: site_id }, client, { fresh: true });
    requireGuest(target);
    const command = await guestCommand(
      gateway,
      site_id,
      target,
      {
        action: 'AUTHORIZE_GUEST_ACCESS',
        ...(minutes === undefined ? {} : { timeLimitMinutes: minutes }),
        ...(data_mb === undefined ? {} : { dataUsageLimitMBytes: data_mb }),
        ...(down_kbps === undefined ? {} : { rxRateLimitKbps: down_kbps }),
        ...(up_kbps === undefined ? {} : { txRateLimitKbps: up_kbps }),
      },
      stamgr('authorize-guest', target, {
        ...(minutes === undefined ? {} : { minutes }),
        ...(down_kbps === undefined ? {} : { down: down_kbps }),
        ...(up_kbps === undefined ? {} : { up: up_kbps }),
        ...(data_mb === undefined ? {} : { bytes: data_mb }),
      }),
    );
    const limits = [
      minutes === undefined ? "for the site's default guest time" : `for ${minutes} min`,
      ...(down_kbps === undefined ? [] : [`down ${down_kbps} kbit/s`]),
      ...(up_kbps === undefined ? [] : [`up ${up_kbps} kbit/s`]),
      ...(data_mb === undefined ? [] : [`${data_mb} MB`]),
    ];
    const warnings = [`${clientLabel(target)} gets guest access ${limits.join(', ')}`];
    return finish(gateway, site_id, dry_run, 'authorize guest', target, command, warnings);
  },
});

const unauthorizeGuest = defineTool({
  name: 'unauthorize_guest',
  change: clientChanges.unauthorize_guest,
  impact: clientImpact,
  description: "Withdraw a guest client's hotspot authorization; it is sent back to the portal",
  access: 'write',
  example: 'client=Galaxy-S23',
  args: clientActionArgs,
  output: clientOutput,
  async run({ site_id, client, dry_run }, { gateway }) {
    const target = await resolveClient({ gateway, site: site_id }, client, { fresh: true });
    requireGuest(target);
    const command = await guestCommand(
      gateway,
      site_id,
      target,
      { action: 'UNAUTHORIZE_GUEST_ACCESS' },
      stamgr('unauthorize-guest', target),
    );
    const warnings = [`${clientLabel(target)} loses internet access until authorized again`];
    return finish(gateway, site_id, dry_run, 'unauthorize guest', target, command, warnings);
  },
});

/** The client actions. */
export const clientActionTools = [
  blockClient,
  unblockClient,
  reconnectClient,
  authorizeGuest,
  unauthorizeGuest,
];
