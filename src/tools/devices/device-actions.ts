import { z } from 'zod';
import { ResourceNotFoundError, ValidationError } from '../../errors.js';
import type { Gateway } from '../../gateway/types.js';
import {
  actionResultSchema,
  blastRadius,
  type ControllerCommand,
  deviceSummary,
  integrationAvailable,
  integrationDeviceId,
  outageSentence,
  restartDuration,
  sendCommand,
} from '../core/action-model.js';
import { confirm, dryRun, intInRange, nonEmpty, siteId } from '../core/arg-types.js';
import { defineTool } from '../core/define-tool.js';
import {
  clientLabel,
  deviceLabel,
  findLiveDevice,
  type LiveClient,
  type LiveDevice,
  type LivePort,
  readLiveClients,
  readLiveDevices,
} from '../core/live-targets.js';
import { notRevertible } from '../core/spec-helpers.js';
import { deviceImpact } from './impact.js';

/*
 * Device actions: restart, PoE power cycle, locate. Restart and power cycle go through
 * the Integration API (`RESTART`, `POWER_CYCLE`) when the console offers it (an API key), else
 * classic `cmd/devmgr`; locate is classic only (the Integration API has no locate).
 */

const deviceRef = nonEmpty('must be a device id, MAC or name').describe(
  'The device: its id, MAC (any notation) or name',
);

const deviceShape = z
  .object({ name: z.string(), mac: z.string(), model: z.string().optional(), ip: z.string().optional() })
  .describe('The device acted on');

async function liveSite(gateway: Gateway, site: string) {
  const context = { gateway, site };
  const [devices, clients] = await Promise.all([
    readLiveDevices(context, { fresh: true }),
    readLiveClients(context, { fresh: true }),
  ]);
  return { devices, clients };
}

/** The preview or the result of an action: the same facts, and the one request. */
async function finish(
  gateway: Gateway,
  site: string,
  dry: boolean | undefined,
  action: string,
  facts: Record<string, unknown>,
  command: ControllerCommand,
  warnings: string[],
) {
  if (dry) return { dry_run: true, action, ...facts, would_send: command, warnings };
  await sendCommand(gateway, site, command);
  return { success: true as const, action, ...facts, sent: command, warnings };
}

// Deliberately alike: the tools below are defineTool declarations, whose shape the framework fixes; each differs in args and run.
const restartDevice = defineTool({
  name: 'restart_device',
  change: notRevertible('a restart cannot be taken back: the device has rebooted'),
  impact: deviceImpact,
  description: 'Restart a device (gateway, switch or AP); what is behind it drops until it is back',
  access: 'write',
  example: 'device_id="Office Switch"',
  args: z.object({ site_id: siteId, device_id: deviceRef, confirm, dry_run: dryRun }),
  output: actionResultSchema.extend({ device: deviceShape }),
  async run({ site_id, device_id, dry_run }, { gateway }) {
    const { devices, clients } = await liveSite(gateway, site_id);
    const device = findLiveDevice(devices, device_id);
    const radius = blastRadius(devices, clients, [device.mac]);
    const warnings = [outageSentence(deviceLabel(device), radius, restartDuration(device))];
    if (device.state !== 1)
      warnings.push(`${deviceLabel(device)} is offline now: the restart may not reach it`);
    const command: ControllerCommand = (await integrationAvailable(gateway, site_id, 'devices.action'))
      ? {
          api: 'integration',
          method: 'POST',
          path: `devices/${await integrationDeviceId(gateway, site_id, device)}/actions`,
          body: { action: 'RESTART' },
        }
      : {
          api: 'classic',
          method: 'POST',
          path: 'cmd/devmgr',
          body: { cmd: 'restart', mac: device.mac, reboot_type: 'soft' },
        };
    return finish(gateway, site_id, dry_run, 'restart', { device: deviceSummary(device) }, command, warnings);
  },
});

function portLabel(port: LivePort): string {
  return `port ${port.port_idx}${port.name && port.name !== `Port ${port.port_idx}` ? ` (${port.name})` : ''}`;
}

/** A port gives PoE when it is PoE-capable and powering now (the controller refuses a cycle otherwise). */
function givesPoe(port: LivePort): boolean {
  return port.port_poe === true && port.poe_enable === true;
}

function findPort(device: LiveDevice, idx: number): LivePort {
  const ports = device.port_table ?? [];
  const port = ports.find((p) => p.port_idx === idx);
  if (port) return port;
  const poe = ports.filter(givesPoe).map((p) => p.port_idx);
  const range =
    ports.length > 0 ? `ports ${ports[0]?.port_idx}–${ports[ports.length - 1]?.port_idx}` : 'no ports';
  throw new ResourceNotFoundError(
    'port',
    String(idx),
    `port ${idx} not found on ${deviceLabel(device)} (it has ${range}${poe.length > 0 ? `; PoE now on ${poe.join(', ')}` : ''})`,
  );
}

/** Who is on a switch port: wired clients there, and devices whose uplink is that port. */
function onPort(
  devices: readonly LiveDevice[],
  clients: readonly LiveClient[],
  device: LiveDevice,
  idx: number,
) {
  const poweredDevices = devices.filter((d) => {
    const uplink = d.uplink?.uplink_mac ? d.uplink : d.last_uplink;
    return uplink?.uplink_mac === device.mac && uplink.uplink_remote_port === idx;
  });
  const portClients = clients.filter(
    (c) => c.is_wired === true && c.sw_mac === device.mac && c.sw_port === idx,
  );
  return { poweredDevices, portClients };
}

const powerCyclePort = defineTool({
  name: 'power_cycle_port',
  change: notRevertible('a power cycle cannot be taken back: the port was already switched off and on'),
  impact: deviceImpact,
  description: 'Cut and restore PoE power on a switch port, restarting what it powers (a camera, an AP)',
  access: 'write',
  example: 'device_id="Core Switch" port_idx=6',
  args: z.object({
    site_id: siteId,
    device_id: deviceRef.describe('The switch: its id, MAC (any notation) or name'),
    port_idx: intInRange(1, 512).describe('The port number on the switch (port_idx), 1–512'),
    confirm,
    dry_run: dryRun,
  }),
  output: actionResultSchema.extend({
    device: deviceShape,
    port: z.object({ idx: z.number(), name: z.string().optional() }).describe('The port power-cycled'),
  }),
  async run({ site_id, device_id, port_idx, dry_run }, { gateway }) {
    const { devices, clients } = await liveSite(gateway, site_id);
    const device = findLiveDevice(devices, device_id);
    const port = findPort(device, port_idx);
    if (!givesPoe(port)) {
      const why =
        port.port_poe !== true
          ? 'is not a PoE port'
          : 'supplies no PoE now (PoE is off or nothing draws power)';
      const poe = (device.port_table ?? []).filter(givesPoe).map((p) => p.port_idx);
      throw new ValidationError([
        {
          field: 'port_idx',
          rule: `${portLabel(port)} of ${deviceLabel(device)} ${why}: a power cycle only restarts what a port powers${
            poe.length > 0
              ? `; ports supplying PoE now: ${poe.join(', ')}`
              : `; no port of ${deviceLabel(device)} supplies PoE now`
          }`,
        },
      ]);
    }
    const { poweredDevices, portClients } = onPort(devices, clients, device, port_idx);
    const radius = blastRadius(
      devices,
      clients,
      poweredDevices.map((d) => d.mac),
    );
    const subject = `${deviceLabel(device)} ${portLabel(port)}`;
    const onIt = [...poweredDevices.map(deviceLabel), ...portClients.map(clientLabel)];
    const warnings = [
      onIt.length > 0
        ? `${subject}: ${onIt.join(', ')} restart${onIt.length === 1 ? 's' : ''} (about 2 minutes)${
            radius.clients + radius.devices.length > 0
              ? `; ${outageSentence(onIt.join(', '), radius, 'meanwhile').replace(/^[^:]*: /, '')}`
              : ''
          }`
        : `${subject}: nothing known is connected; the power is cut for a few seconds`,
    ];
    const command: ControllerCommand = (await integrationAvailable(gateway, site_id, 'devices.port-action'))
      ? {
          api: 'integration',
          method: 'POST',
          path: `devices/${await integrationDeviceId(gateway, site_id, device)}/interfaces/ports/${port_idx}/actions`,
          body: { action: 'POWER_CYCLE' },
        }
      : {
          api: 'classic',
          method: 'POST',
          path: 'cmd/devmgr',
          body: { cmd: 'power-cycle', mac: device.mac, port_idx },
        };
    const facts = {
      device: deviceSummary(device),
      port: { idx: port_idx, ...(port.name ? { name: port.name } : {}) },
    };
    return finish(gateway, site_id, dry_run, 'power cycle', facts, command, warnings);
  },
});

const locateDevice = defineTool({
  name: 'locate_device',
  change: notRevertible('locate only blinks the device; it stops by itself and changes nothing to undo'),
  description: "Blink a device's LED so it can be found in the rack (enabled=false stops it)",
  access: 'write',
  example: 'device_id="Living Room AP"',
  args: z.object({
    site_id: siteId,
    device_id: deviceRef,
    enabled: z
      .boolean({ error: 'must be true or false' })
      .default(true)
      .describe('true starts blinking the LED, false stops it'),
    confirm,
    dry_run: dryRun,
  }),
  output: actionResultSchema.extend({
    device: deviceShape,
    enabled: z.boolean().describe('Locate on or off'),
  }),
  async run({ site_id, device_id, enabled, dry_run }, { gateway }) {
    const device = findLiveDevice(
      await readLiveDevices({ gateway, site: site_id }, { fresh: true }),
      device_id,
    );
    const warnings: string[] = [];
    if (device.state !== 1) warnings.push(`${deviceLabel(device)} is offline now: its LED cannot blink`);
    // Classic only: the Integration API has no locate action (docs/decisions.md, "On-call actions").
    const command: ControllerCommand = {
      api: 'classic',
      method: 'POST',
      path: 'cmd/devmgr',
      body: { cmd: enabled ? 'set-locate' : 'unset-locate', mac: device.mac },
    };
    const facts = { device: deviceSummary(device), enabled };
    return finish(gateway, site_id, dry_run, enabled ? 'locate on' : 'locate off', facts, command, warnings);
  },
});

/** The device actions. */
export const deviceActionTools = [restartDevice, powerCyclePort, locateDevice];
