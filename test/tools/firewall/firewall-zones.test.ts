import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  ConfirmationRequiredError,
  ConflictError,
  GatewayRejectedError,
  NotSupportedError,
  ResourceNotFoundError,
} from '../../../src/errors.js';
import { DEMO_NETWORKS, DEMO_ZONES, SIMULATOR_DEFAULTS } from '../../../src/simulator/index.js';
import type { Zone } from '../../../src/tools/firewall/zone-model.js';
import { startTestBot } from '../../helpers/test-bot.js';
import { rejection, useTestBot, validationIssues } from '../../helpers/tool-test.js';

const N = DEMO_NETWORKS;
const ZONES_ROUTE = `/integration/v1/sites/88f7af54-98f8-306a-a1c7-c9349722b1f6/firewall/zones`;

const bot = useTestBot();
beforeEach(async () => {
  for (const key of await bot.app.context.store.keys()) await bot.app.context.store.delete(key);
});

function zone(name: string) {
  const found = bot.sim.state.findZoneByName('default', name);
  if (!found) throw new Error(`no zone ${name}`);
  return found;
}

/** The zone writes the simulator saw, as method, zone path suffix and body. */
function zoneWrites() {
  return bot
    .writes()
    .map((r) => ({ method: r.method, route: r.route.replace(ZONES_ROUTE, ''), body: r.body }));
}

// Deliberately alike: the demo zones are data, listed whole here and in the simulator's test.
describe('list_firewall_zones', () => {
  it('lists every zone with classic network ids, names, origin and what may change', async () => {
    const zones = (await bot.run('list_firewall_zones')) as Zone[];
    expect(zones.map((z) => z.name)).toEqual([
      'Internal',
      'External',
      'Gateway',
      'Vpn',
      'Hotspot',
      'Dmz',
      'IoT Devices',
    ]);
    expect(zones.find((z) => z.name === 'IoT Devices')).toEqual({
      id: DEMO_ZONES.iotDevices,
      name: 'IoT Devices',
      description: null,
      network_ids: [N.iot.uuid, N.cameras.uuid],
      network_names: ['IoT', 'Cameras'],
      origin: 'USER_DEFINED',
      editable: 'all',
    });
    expect(zones.find((z) => z.name === 'Internal')).toMatchObject({
      network_ids: [N.defaultLan.uuid],
      origin: 'SYSTEM_DEFINED',
      editable: 'networks',
    });
    expect(zones.find((z) => z.name === 'External')).toMatchObject({
      network_ids: [N.wan.uuid],
      editable: 'none',
    });
  });

  // Deliberately alike: a refusal before any request, checked per tool with that tool's own argument and words.
  it('refuses a malformed site_id without asking the controller', async () => {
    expect(await validationIssues(bot, 'list_firewall_zones', { site_id: 'my site' })).toEqual([
      { field: 'site_id', rule: 'must be a site name such as default' },
    ]);
    expect(bot.sim.requests).toHaveLength(0);
  });
});

describe('create_firewall_zone', () => {
  it('creates a zone with networks named any way, keeps its description in the bot, and POSTs UUIDs', async () => {
    const result = (await bot.run('create_firewall_zone', {
      name: 'Lab',
      description: 'Test benches',
      network_ids: ['Servers'],
      confirm: true,
    })) as { success: boolean; zone: Zone; moves: unknown[]; warnings: string[] };
    expect(zoneWrites()).toEqual([
      { method: 'POST', route: '', body: { name: 'Lab', networkIds: [N.servers.uuid] } },
    ]);
    expect(result.success).toBe(true);
    expect(result.moves).toEqual([]);
    expect(result.zone).toMatchObject({
      name: 'Lab',
      description: 'Test benches',
      network_ids: [N.servers.uuid],
      network_names: ['Servers'],
      origin: 'USER_DEFINED',
    });
    expect(await bot.app.context.store.get(`zone-description:default:${result.zone.id}`)).toBe(
      'Test benches',
    );
    const listed = (await bot.run('list_firewall_zones')) as Zone[];
    expect(listed.find((z) => z.name === 'Lab')?.description).toBe('Test benches');
  });

  it('creates an empty zone when network_ids is omitted', async () => {
    await bot.run('create_firewall_zone', { name: 'Empty', confirm: true });
    expect(zoneWrites()).toEqual([{ method: 'POST', route: '', body: { name: 'Empty', networkIds: [] } }]);
    expect(zone('Empty').networkIds).toEqual([]);
  });

  it('accepts a classic id, an Integration UUID and a name, without repeats', async () => {
    await bot.run('create_firewall_zone', {
      name: 'Mixed',
      network_ids: [N.servers.id, N.servers.uuid, 'servers'],
      confirm: true,
    });
    expect(zone('Mixed').networkIds).toEqual([N.servers.uuid]);
  });

  it('previews the payload and the move of a network from its zone, and changes nothing', async () => {
    const before = JSON.stringify(bot.site().zones);
    const preview = await bot.run('create_firewall_zone', {
      name: 'Sensors',
      network_ids: ['IoT'],
      dry_run: true,
    });
    expect(preview).toEqual({
      dry_run: true,
      would_create: { name: 'Sensors', description: null, network_ids: [N.iot.uuid], network_names: ['IoT'] },
      would_send: { name: 'Sensors', networkIds: [N.iot.uuid] },
      moves: [
        {
          network_id: N.iot.uuid,
          network_name: 'IoT',
          from_zone_id: DEMO_ZONES.iotDevices,
          from_zone: 'IoT Devices',
        },
      ],
      // Sent first: IoT leaves its old zone, which keeps Cameras.
      would_send_first: [
        { zone_id: DEMO_ZONES.iotDevices, body: { name: 'IoT Devices', networkIds: [N.cameras.uuid] } },
      ],
      // Deliberately alike: every zone preview is expected whole, names of all ids it shows included.
      names: {
        [N.iot.uuid]: 'IoT',
        [N.iot.uuid]: 'IoT',
        [N.cameras.uuid]: 'Cameras',
        [DEMO_ZONES.iotDevices]: 'IoT Devices',
      },
      warnings: [
        'IoT moves from zone "IoT Devices" to "Sensors": the policies of "IoT Devices" stop applying to it',
      ],
    });
    expect(JSON.stringify(bot.site().zones)).toBe(before);
    expect(bot.writes()).toHaveLength(0);
  });

  it('moves a network from its old zone first, then creates the zone', async () => {
    await bot.run('create_firewall_zone', { name: 'Sensors', network_ids: ['IoT'], confirm: true });
    expect(zoneWrites()).toEqual([
      {
        method: 'PUT',
        route: `/${DEMO_ZONES.iotDevices}`,
        body: { name: 'IoT Devices', networkIds: [N.cameras.uuid] },
      },
      { method: 'POST', route: '', body: { name: 'Sensors', networkIds: [N.iot.uuid] } },
    ]);
    expect(zone('Sensors').networkIds).toEqual([N.iot.uuid]);
    expect(zone('IoT Devices').networkIds).toEqual([N.cameras.uuid]);
  });

  it('says exactly what state was left when the create fails after the move', async () => {
    bot.sim.injectFault({ method: 'POST', route: /firewall\/zones$/, kind: 'status', status: 400 });
    const error = await rejection(
      bot.run('create_firewall_zone', { name: 'Sensors', network_ids: ['IoT'], confirm: true }),
    );
    expect(error).toBeInstanceOf(GatewayRejectedError);
    expect(error.message).toContain(
      'State left: IoT removed from zone "IoT Devices" and now in no zone (not undone); creating zone "Sensors" did not happen',
    );
    expect(zone('IoT Devices').networkIds).toEqual([N.cameras.uuid]);
  });

  it('refuses a name already taken, before any write', async () => {
    const error = await rejection(bot.run('create_firewall_zone', { name: 'iot devices', confirm: true }));
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.message).toBe(
      `a firewall zone named "IoT Devices" already exists (${DEMO_ZONES.iotDevices})`,
    );
    expect(bot.writes()).toHaveLength(0);
  });

  it.each([
    [{ name: '' }, 'name', 'must not be empty'],
    [{ name: 'x'.repeat(129) }, 'name', 'must be at most 128 characters'],
    [{ description: 'x'.repeat(257) }, 'description', 'must be at most 256 characters'],
    [{ network_ids: [''] }, 'network_ids.0', 'must be a network id or name'],
  ])('refuses %o naming %s, with no request sent', async (bad, field, rule) => {
    expect(
      await validationIssues(bot, 'create_firewall_zone', { name: 'Lab', ...bad, confirm: true }),
    ).toEqual([{ field, rule }]);
    expect(bot.sim.requests).toHaveLength(0);
  });

  it('raises ResourceNotFoundError for an unknown network', async () => {
    const error = await rejection(
      bot.run('create_firewall_zone', { name: 'Lab', network_ids: ['Nope'], confirm: true }),
    );
    expect(error).toBeInstanceOf(ResourceNotFoundError);
    expect(bot.writes()).toHaveLength(0);
  });

  it('sends nothing at all without confirm', async () => {
    await expect(bot.run('create_firewall_zone', { name: 'Lab' })).rejects.toBeInstanceOf(
      ConfirmationRequiredError,
    );
    expect(bot.sim.requests).toHaveLength(0);
  });
});

describe('update_firewall_zone', () => {
  it('replaces the whole network list (no append), PUTting name and UUIDs', async () => {
    const result = (await bot.run('update_firewall_zone', {
      firewall_zone_id: DEMO_ZONES.iotDevices,
      network_ids: ['Cameras', 'Servers'],
      confirm: true,
    })) as { changes: unknown; warnings: string[]; zone: Zone };
    expect(zoneWrites()).toEqual([
      {
        method: 'PUT',
        route: `/${DEMO_ZONES.iotDevices}`,
        body: { name: 'IoT Devices', networkIds: [N.cameras.uuid, N.servers.uuid] },
      },
    ]);
    expect(result.changes).toEqual({
      network_ids: { from: [N.iot.uuid, N.cameras.uuid], to: [N.cameras.uuid, N.servers.uuid] },
    });
    expect(result.warnings).toEqual([
      'IoT leaves zone "IoT Devices" and will be in no zone; zone policies stop applying to it',
    ]);
    expect(result.zone.network_ids).toEqual([N.cameras.uuid, N.servers.uuid]);
  });

  it('renames by zone name and keeps the networks; zone_id is not its argument name', async () => {
    await bot.run('update_firewall_zone', { firewall_zone_id: 'IoT Devices', name: 'Things', confirm: true });
    expect(zoneWrites()).toEqual([
      {
        method: 'PUT',
        route: `/${DEMO_ZONES.iotDevices}`,
        body: { name: 'Things', networkIds: [N.iot.uuid, N.cameras.uuid] },
      },
    ]);
    expect(
      await validationIssues(bot, 'update_firewall_zone', { zone_id: 'IoT Devices', confirm: true }),
    ).toEqual([
      {
        field: 'zone_id',
        rule: 'is not an argument of update_firewall_zone; did you mean firewall_zone_id?',
      },
    ]);
  });

  // Deliberately alike: tool tests share the harness's call-then-check shape; the tool, its arguments and the expected answer differ.
  it('changes only the bot-kept description without writing to the controller; empty clears it', async () => {
    const result = await bot.run('update_firewall_zone', {
      firewall_zone_id: 'Internal',
      description: 'Trusted LAN',
      confirm: true,
    });
    expect(result).toMatchObject({
      success: true,
      changes: { description: { from: null, to: 'Trusted LAN' } },
      zone: { description: 'Trusted LAN' },
    });
    expect(bot.writes()).toHaveLength(0);
    await bot.run('update_firewall_zone', { firewall_zone_id: 'Internal', description: '', confirm: true });
    expect(
      await bot.app.context.store.get(`zone-description:default:${DEMO_ZONES.internal}`),
    ).toBeUndefined();
  });

  it('previews a diff and the move, and changes nothing', async () => {
    const before = JSON.stringify(bot.site().zones);
    const preview = await bot.run('update_firewall_zone', {
      firewall_zone_id: 'Internal',
      network_ids: ['Default', 'Guest'],
      dry_run: true,
    });
    expect(preview).toEqual({
      dry_run: true,
      zone_id: DEMO_ZONES.internal,
      name: 'Internal',
      changes: { network_ids: { from: [N.defaultLan.uuid], to: [N.defaultLan.uuid, N.guest.uuid] } },
      moves: [
        {
          network_id: N.guest.uuid,
          network_name: 'Guest',
          from_zone_id: DEMO_ZONES.hotspot,
          from_zone: 'Hotspot',
        },
      ],
      would_send: { name: 'Internal', networkIds: [N.defaultLan.uuid, N.guest.uuid] },
      would_send_first: [{ zone_id: DEMO_ZONES.hotspot, body: { name: 'Hotspot', networkIds: [] } }],
      names: {
        [DEMO_ZONES.internal]: 'Internal',
        [N.defaultLan.uuid]: 'Default',
        [N.defaultLan.uuid]: 'Default',
        [N.guest.uuid]: 'Guest',
        [N.guest.uuid]: 'Guest',
        [DEMO_ZONES.hotspot]: 'Hotspot',
      },
      warnings: [
        'Guest moves from zone "Hotspot" to "Internal": the policies of "Hotspot" stop applying to it',
      ],
    });
    expect(JSON.stringify(bot.site().zones)).toBe(before);
    expect(bot.writes()).toHaveLength(0);
  });

  it('refuses to rename a system zone or change a non-configurable one, before any write', async () => {
    const rename = await rejection(
      bot.run('update_firewall_zone', { firewall_zone_id: 'Internal', name: 'Inside', confirm: true }),
    );
    expect(rename).toBeInstanceOf(NotSupportedError);
    expect(rename.message).toBe(
      'zone "Internal" is system-defined: only its networks can change, not its name',
    );
    const locked = await rejection(
      bot.run('update_firewall_zone', {
        firewall_zone_id: 'Gateway',
        network_ids: ['Servers'],
        confirm: true,
      }),
    );
    expect(locked.message).toBe('zone "Gateway" is system-defined and cannot be changed');
    expect(bot.writes()).toHaveLength(0);
  });

  it('sends no write when nothing changes (same networks in another order)', async () => {
    const result = await bot.run('update_firewall_zone', {
      firewall_zone_id: 'IoT Devices',
      network_ids: ['Cameras', 'IoT'],
      name: 'IoT Devices',
      confirm: true,
    });
    expect(result).toMatchObject({ success: true, changes: {} });
    expect(bot.writes()).toHaveLength(0);
  });

  it('raises ResourceNotFoundError for an unknown zone', async () => {
    await expect(
      bot.run('update_firewall_zone', { firewall_zone_id: 'Nope', name: 'x', confirm: true }),
    ).rejects.toBeInstanceOf(ResourceNotFoundError);
  });

  it('refuses a bad name with no request sent, and sends nothing without confirm', async () => {
    expect(
      await validationIssues(bot, 'update_firewall_zone', {
        firewall_zone_id: 'Dmz',
        name: '  ',
        confirm: true,
      }),
    ).toEqual([{ field: 'name', rule: 'must not be empty' }]);
    await expect(
      bot.run('update_firewall_zone', { firewall_zone_id: 'Dmz', name: 'X' }),
    ).rejects.toBeInstanceOf(ConfirmationRequiredError);
    expect(bot.sim.requests).toHaveLength(0);
  });
});

describe('delete_firewall_zone', () => {
  it('deletes a user zone and its description; its networks stay', async () => {
    await bot.app.context.store.set(`zone-description:default:${DEMO_ZONES.iotDevices}`, 'things');
    const networksBefore = JSON.stringify(bot.site().networks);
    const result = await bot.run('delete_firewall_zone', { zone_id: 'IoT Devices', confirm: true });
    expect(result).toEqual({ success: true, deleted_zone_id: DEMO_ZONES.iotDevices });
    expect(zoneWrites()).toEqual([{ method: 'DELETE', route: `/${DEMO_ZONES.iotDevices}`, body: undefined }]);
    expect(await bot.app.context.store.keys()).toEqual([]);
    expect(JSON.stringify(bot.site().networks)).toBe(networksBefore);
  });

  it('previews, naming the networks that stay, and deletes nothing', async () => {
    const preview = (await bot.run('delete_firewall_zone', {
      zone_id: DEMO_ZONES.iotDevices,
      dry_run: true,
    })) as {
      would_delete: Zone;
      warnings: string[];
    };
    expect(preview.would_delete.id).toBe(DEMO_ZONES.iotDevices);
    expect(preview.warnings).toEqual([
      'deletion is irreversible',
      'its networks (IoT, Cameras) stay as they are, in no zone',
    ]);
    expect(bot.writes()).toHaveLength(0);
  });

  it('refuses a system zone, before any write', async () => {
    const error = await rejection(bot.run('delete_firewall_zone', { zone_id: 'Dmz', confirm: true }));
    expect(error).toBeInstanceOf(NotSupportedError);
    expect(error.message).toBe('zone "Dmz" is system-defined and cannot be deleted');
    expect(bot.writes()).toHaveLength(0);
  });

  it('checks existence on a dry run, refuses an empty zone_id unsent, and sends nothing without confirm', async () => {
    await expect(bot.run('delete_firewall_zone', { zone_id: 'Nope', dry_run: true })).rejects.toBeInstanceOf(
      ResourceNotFoundError,
    );
    bot.sim.clearRequests();
    expect(await validationIssues(bot, 'delete_firewall_zone', { zone_id: ' ', confirm: true })).toEqual([
      { field: 'zone_id', rule: 'must be a zone id or name' },
    ]);
    await expect(bot.run('delete_firewall_zone', { zone_id: 'IoT Devices' })).rejects.toBeInstanceOf(
      ConfirmationRequiredError,
    );
    expect(bot.sim.requests).toHaveLength(0);
  });
});

describe('assign_network_to_zone', () => {
  it('adds a network with one PUT of the full list', async () => {
    const result = await bot.run('assign_network_to_zone', {
      zone_id: 'IoT Devices',
      network_id: N.servers.uuid,
      confirm: true,
    });
    expect(zoneWrites()).toEqual([
      {
        method: 'PUT',
        route: `/${DEMO_ZONES.iotDevices}`,
        body: { name: 'IoT Devices', networkIds: [N.iot.uuid, N.cameras.uuid, N.servers.uuid] },
      },
    ]);
    expect(result).toMatchObject({
      success: true,
      already_assigned: false,
      assignment: {
        zone_id: DEMO_ZONES.iotDevices,
        zone_name: 'IoT Devices',
        network_id: N.servers.uuid,
        network_name: 'Servers',
      },
      zone: { network_ids: [N.iot.uuid, N.cameras.uuid, N.servers.uuid] },
    });
  });

  it('is a no-op returning the existing assignment when already a member', async () => {
    const result = await bot.run('assign_network_to_zone', {
      zone_id: 'IoT Devices',
      network_id: 'IoT',
      confirm: true,
    });
    expect(result).toMatchObject({
      success: true,
      already_assigned: true,
      assignment: { zone_id: DEMO_ZONES.iotDevices, network_id: N.iot.uuid, network_name: 'IoT' },
    });
    expect(bot.writes()).toHaveLength(0);
  });

  it('moves a network out of its old zone; the dry run says so and changes nothing', async () => {
    const preview = (await bot.run('assign_network_to_zone', {
      zone_id: 'IoT Devices',
      network_id: N.guest.uuid,
      dry_run: true,
    })) as { moves: unknown[]; warnings: string[]; would_send_first: unknown; names: unknown };
    // The write that takes Guest out of Hotspot is previewed as it is sent, before the target's.
    expect(preview.would_send_first).toEqual([
      { zone_id: DEMO_ZONES.hotspot, body: { name: 'Hotspot', networkIds: [] } },
    ]);
    expect(preview.names).toMatchObject({ [DEMO_ZONES.hotspot]: 'Hotspot', [N.guest.uuid]: 'Guest' });
    expect(preview.moves).toEqual([
      {
        network_id: N.guest.uuid,
        network_name: 'Guest',
        from_zone_id: DEMO_ZONES.hotspot,
        from_zone: 'Hotspot',
      },
    ]);
    expect(preview.warnings).toEqual([
      'Guest moves from zone "Hotspot" to "IoT Devices": the policies of "Hotspot" stop applying to it',
    ]);
    expect(bot.writes()).toHaveLength(0);

    await bot.run('assign_network_to_zone', { zone_id: 'IoT Devices', network_id: 'Guest', confirm: true });
    expect(zoneWrites()).toEqual([
      { method: 'PUT', route: `/${DEMO_ZONES.hotspot}`, body: { name: 'Hotspot', networkIds: [] } },
      {
        method: 'PUT',
        route: `/${DEMO_ZONES.iotDevices}`,
        body: { name: 'IoT Devices', networkIds: [N.iot.uuid, N.cameras.uuid, N.guest.uuid] },
      },
    ]);
    expect(zone('Hotspot').networkIds).toEqual([]);
  });

  it('says what state was left when the second write of a move fails', async () => {
    bot.sim.injectFault({ method: 'PUT', route: DEMO_ZONES.iotDevices, kind: 'status', status: 400 });
    const error = await rejection(
      bot.run('assign_network_to_zone', { zone_id: 'IoT Devices', network_id: 'Guest', confirm: true }),
    );
    expect(error.message).toContain(
      'State left: Guest removed from zone "Hotspot" and now in no zone (not undone); adding Guest to zone "IoT Devices" did not happen',
    );
    expect(zone('Hotspot').networkIds).toEqual([]);
    expect(zone('IoT Devices').networkIds).not.toContain(N.guest.uuid);
  });

  it('refuses a non-configurable zone, and a network a system zone cannot give up', async () => {
    const locked = await rejection(
      bot.run('assign_network_to_zone', { zone_id: 'Vpn', network_id: 'Servers', confirm: true }),
    );
    expect(locked.message).toBe('zone "Vpn" is system-defined and cannot be changed');
    const wan = await rejection(
      bot.run('assign_network_to_zone', { zone_id: 'Dmz', network_id: 'WAN', confirm: true }),
    );
    // The official network list (10.1) has no WANs: the External zone's member is no network to move.
    expect(wan).toBeInstanceOf(ResourceNotFoundError);
    expect(wan.message).toBe('network WAN not found');
    expect(bot.writes()).toHaveLength(0);
  });

  it('names the missing zone or network', async () => {
    const noZone = await rejection(
      bot.run('assign_network_to_zone', { zone_id: 'Nope', network_id: 'IoT', confirm: true }),
    );
    expect(noZone).toBeInstanceOf(ResourceNotFoundError);
    expect(noZone.message).toBe('firewall zone Nope not found');
    const noNetwork = await rejection(
      bot.run('assign_network_to_zone', { zone_id: 'Dmz', network_id: 'Nope', confirm: true }),
    );
    expect(noNetwork.message).toBe('network Nope not found');
  });

  it('refuses missing arguments with no request sent, and sends nothing without confirm', async () => {
    expect(await validationIssues(bot, 'assign_network_to_zone', { zone_id: 'Dmz', confirm: true })).toEqual([
      { field: 'network_id', rule: 'is required', missing: true },
    ]);
    await expect(
      bot.run('assign_network_to_zone', { zone_id: 'Dmz', network_id: 'IoT' }),
    ).rejects.toBeInstanceOf(ConfirmationRequiredError);
    expect(bot.sim.requests).toHaveLength(0);
  });
});

describe('unassign_network_from_zone', () => {
  it('removes the network with one PUT and warns it is in no zone now', async () => {
    const result = await bot.run('unassign_network_from_zone', {
      zone_id: 'IoT Devices',
      network_id: 'Cameras',
      confirm: true,
    });
    expect(zoneWrites()).toEqual([
      {
        method: 'PUT',
        route: `/${DEMO_ZONES.iotDevices}`,
        body: { name: 'IoT Devices', networkIds: [N.iot.uuid] },
      },
    ]);
    expect(result).toMatchObject({
      success: true,
      changes: { network_ids: { from: [N.iot.uuid, N.cameras.uuid], to: [N.iot.uuid] } },
      warnings: [
        'Cameras leaves zone "IoT Devices" and will be in no zone; zone policies stop applying to it',
      ],
      zone: { network_ids: [N.iot.uuid] },
    });
  });

  it('is a clear error for a network that is not a member, naming its zone', async () => {
    const error = await rejection(
      bot.run('unassign_network_from_zone', { zone_id: 'IoT Devices', network_id: 'Guest', confirm: true }),
    );
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.message).toBe(
      `network Guest (${N.guest.uuid}) is not in zone "IoT Devices"; it is in zone "Hotspot"`,
    );
    const loose = await rejection(
      bot.run('unassign_network_from_zone', { zone_id: 'Dmz', network_id: 'Servers', dry_run: true }),
    );
    expect(loose.message).toBe(`network Servers (${N.servers.uuid}) is not in zone "Dmz"; it is in no zone`);
    expect(bot.writes()).toHaveLength(0);
  });

  it('previews and changes nothing; sends nothing without confirm', async () => {
    const preview = await bot.run('unassign_network_from_zone', {
      zone_id: 'Internal',
      network_id: 'Default',
      dry_run: true,
    });
    expect(preview).toMatchObject({
      dry_run: true,
      would_send: { name: 'Internal', networkIds: [] },
      changes: { network_ids: { from: [N.defaultLan.uuid], to: [] } },
    });
    expect(bot.writes()).toHaveLength(0);
    bot.sim.clearRequests();
    await expect(
      bot.run('unassign_network_from_zone', { zone_id: 'Internal', network_id: 'Default' }),
    ).rejects.toBeInstanceOf(ConfirmationRequiredError);
    expect(bot.sim.requests).toHaveLength(0);
  });

  it('raises ResourceNotFoundError for an unknown zone', async () => {
    await expect(
      bot.run('unassign_network_from_zone', { zone_id: 'Nope', network_id: 'IoT', confirm: true }),
    ).rejects.toBeInstanceOf(ResourceNotFoundError);
  });
});

describe('get_zone_networks', () => {
  it('lists the members with names, VLANs and subnets from the network data', async () => {
    const networks = await bot.run('get_zone_networks', { zone_id: 'IoT Devices' });
    expect(networks).toEqual([
      {
        id: N.iot.uuid,
        name: 'IoT',
        purpose: 'corporate',
        vlan_id: 20,
        ip_subnet: '10.20.0.1/24',
        dhcpd_enabled: true,
      },
      {
        id: N.cameras.uuid,
        name: 'Cameras',
        purpose: 'corporate',
        vlan_id: 60,
        ip_subnet: '10.60.0.1/24',
        dhcpd_enabled: true,
      },
    ]);
    expect(await bot.run('get_zone_networks', { zone_id: DEMO_ZONES.gateway })).toEqual([]);
  });

  it('raises ResourceNotFoundError for an unknown zone, and refuses an empty zone_id unsent', async () => {
    await expect(bot.run('get_zone_networks', { zone_id: 'Nope' })).rejects.toBeInstanceOf(
      ResourceNotFoundError,
    );
    bot.sim.clearRequests();
    expect(await validationIssues(bot, 'get_zone_networks', { zone_id: '' })).toEqual([
      { field: 'zone_id', rule: 'must be a zone id or name' },
    ]);
    expect(bot.sim.requests).toHaveLength(0);
  });
});

describe('cloud mode', () => {
  it.each([
    ['list_firewall_zones', {}],
    ['create_firewall_zone', { name: 'Lab', confirm: true }],
    ['update_firewall_zone', { firewall_zone_id: 'Dmz', name: 'X', confirm: true }],
    ['delete_firewall_zone', { zone_id: 'Dmz', confirm: true }],
    ['assign_network_to_zone', { zone_id: 'Dmz', network_id: 'IoT', confirm: true }],
    ['unassign_network_from_zone', { zone_id: 'Dmz', network_id: 'IoT', confirm: true }],
    ['get_zone_networks', { zone_id: 'Dmz' }],
  ])('%s refuses with "needs GATEWAY_API_TYPE=local" and sends nothing', async (tool, args) => {
    // A data dir of its own: the main bot of this file holds the default one open.
    const dataDir = mkdtempSync(join(tmpdir(), 'netops-zones-cloud-'));
    const cloud = await startTestBot({
      gateway: { apiType: 'cloud', consoleId: SIMULATOR_DEFAULTS.consoleId },
      env: { DATA_DIR: dataDir },
    });
    try {
      const error = await rejection(cloud.run(tool, args));
      expect(error).toBeInstanceOf(NotSupportedError);
      expect(error.message).toMatch(/^firewall zone tools need GATEWAY_API_TYPE=local/);
      expect(cloud.sim.requests).toHaveLength(0);
    } finally {
      await cloud.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('on a console with the traditional (legacy) firewall', () => {
  const legacy = useTestBot({ simulator: { firewall: 'legacy' } });

  it.each([
    ['list_firewall_zones', {}],
    ['create_firewall_zone', { name: 'Lab', confirm: true }],
    ['update_firewall_zone', { firewall_zone_id: 'Dmz', name: 'X', dry_run: true }],
    ['delete_firewall_zone', { zone_id: 'Dmz', confirm: true }],
    ['assign_network_to_zone', { zone_id: 'Dmz', network_id: 'IoT', confirm: true }],
    ['unassign_network_from_zone', { zone_id: 'Dmz', network_id: 'IoT', confirm: true }],
    ['get_zone_networks', { zone_id: 'Dmz' }],
  ])(
    '%s says the console has no zones, names the rule tools, and asks the zone API nothing',
    async (tool, args) => {
      const error = await rejection(legacy.run(tool, args));
      expect(error).toBeInstanceOf(NotSupportedError);
      expect(error.message).toContain('site default uses the traditional firewall');
      expect(error.message).toContain('it has no firewall zones and no firewall policies');
      expect(error.message).toContain('list_firewall_rules, create_firewall_rule');
      expect(legacy.sim.requests.some((r) => r.route.includes('/firewall/zones'))).toBe(false);
      expect(legacy.writes()).toHaveLength(0);
    },
  );
});
