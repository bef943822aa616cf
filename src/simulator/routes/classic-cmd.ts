import { z } from 'zod';
import { classicOk, SimError } from '../envelopes.js';
import {
  blockClient,
  kickClient,
  knownClients,
  portGivesPoe,
  portOf,
  powerCyclePort,
  restartDevice,
  setWlanEnabled,
  unblockClient,
  type Voucher,
} from '../live-actions.js';
import type { Router } from '../router.js';
import type { SimulatorState, SiteState } from '../state.js';
import { describeZodError } from '../validation.js';
import { type Handler, namedSite, param, type RequestContext } from './context.js';

/*
 * The classic commands of the on-call actions, as Art-of-WiFi's client sends them:
 * `cmd/devmgr` (restart, power-cycle, set-locate, unset-locate), `cmd/stamgr` (block-sta,
 * unblock-sta, kick-sta, authorize-guest, unauthorize-guest), `cmd/hotspot` (create-voucher,
 * delete-voucher), and the reads and write around them: `stat/voucher`, `rest/user`,
 * `PUT rest/wlanconf/{_id}`. Error codes for a refused command are this simulator's choice in the
 * classic pattern (`api.err.UnknownDevice`, `api.err.UnknownStation`, …).
 */

const mac = z
  .string()
  .regex(/^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$/)
  .transform((v) => v.toLowerCase());
const positive = z.number().int().positive();

const devmgr = z.discriminatedUnion('cmd', [
  z.object({ cmd: z.literal('restart'), mac, reboot_type: z.enum(['soft', 'hard']).optional() }),
  z.object({ cmd: z.literal('power-cycle'), mac, port_idx: positive }),
  z.object({ cmd: z.literal('set-locate'), mac }),
  z.object({ cmd: z.literal('unset-locate'), mac }),
]);

const stamgr = z.discriminatedUnion('cmd', [
  z.object({ cmd: z.literal('block-sta'), mac }),
  z.object({ cmd: z.literal('unblock-sta'), mac }),
  z.object({ cmd: z.literal('kick-sta'), mac }),
  z.object({
    cmd: z.literal('authorize-guest'),
    mac,
    minutes: positive.optional(),
    up: positive.optional(),
    down: positive.optional(),
    bytes: positive.optional(),
    ap_mac: mac.optional(),
  }),
  z.object({ cmd: z.literal('unauthorize-guest'), mac }),
]);

const hotspot = z.discriminatedUnion('cmd', [
  z.object({
    cmd: z.literal('create-voucher'),
    expire: positive,
    n: z.number().int().min(1).max(1000),
    quota: z.number().int().min(0).optional(),
    note: z.string().max(128).optional(),
    up: positive.optional(),
    down: positive.optional(),
    bytes: positive.optional(),
  }),
  z.object({ cmd: z.literal('delete-voucher'), _id: z.string().min(1) }),
]);

function command<T>(schema: z.ZodType<T>, ctx: RequestContext): T {
  const parsed = schema.safeParse(ctx.body);
  if (!parsed.success) {
    throw new SimError(400, 'api.err.InvalidPayload', describeZodError(parsed.error));
  }
  return parsed.data;
}

function device(site: SiteState, wanted: string) {
  const found = site.devices.find((d) => d.mac === wanted);
  if (!found) throw new SimError(400, 'api.err.UnknownDevice', `No device ${wanted}`);
  return found;
}

function onlineClient(site: SiteState, wanted: string) {
  const found = site.clients.find((c) => c.mac === wanted);
  if (!found) throw new SimError(400, 'api.err.UnknownStation', `No connected client ${wanted}`);
  return found;
}

/** A client the controller knows (connected or not): blocking works on either. */
function knownClient(site: SiteState, wanted: string) {
  const found = knownClients(site).find((c) => c.mac === wanted);
  if (!found) throw new SimError(400, 'api.err.UnknownStation', `No client ${wanted}`);
  return found;
}

/** The same refusals on both APIs: a guest action needs a guest; a power cycle needs PoE. */
export function requireGuest(client: { is_guest?: unknown; mac: string }): void {
  if (client.is_guest !== true) {
    throw new SimError(400, 'api.err.NotGuest', `Client ${client.mac} is not a guest`);
  }
}

export function requirePoe(site: SiteState, deviceMac: string, idx: number): void {
  const found = device(site, deviceMac);
  const port = portOf(found, idx);
  if (!port) throw new SimError(400, 'api.err.InvalidPortIdx', `Device ${deviceMac} has no port ${idx}`);
  if (!portGivesPoe(port)) {
    throw new SimError(400, 'api.err.PortNotPoe', `Port ${idx} of ${deviceMac} does not supply PoE`);
  }
}

/** A guest authorization as both APIs record it. */
export function authorizeGuest(
  site: SiteState,
  clientMac: string,
  limits: { minutes?: number; down?: number; up?: number; mb?: number },
  now: number,
) {
  const minutes = limits.minutes ?? 480;
  const authorization = {
    authorizedAt: new Date(now).toISOString(),
    authorizationMethod: 'MANUAL' as const,
    expiresAt: new Date(now + minutes * 60_000).toISOString(),
    timeLimitMinutes: minutes,
    ...(limits.mb === undefined ? {} : { dataUsageLimitMBytes: limits.mb }),
    ...(limits.down === undefined ? {} : { rxRateLimitKbps: limits.down }),
    ...(limits.up === undefined ? {} : { txRateLimitKbps: limits.up }),
  };
  site.guestAuthorizations[clientMac] = authorization;
  const client = site.clients.find((c) => c.mac === clientMac);
  if (client) client.authorized = true;
  return authorization;
}

export function unauthorizeGuest(site: SiteState, clientMac: string) {
  const revoked = site.guestAuthorizations[clientMac];
  delete site.guestAuthorizations[clientMac];
  const client = site.clients.find((c) => c.mac === clientMac);
  if (client) client.authorized = false;
  return revoked;
}

/** A voucher as classic `stat/voucher` shows it. */
export function classicVoucher(site: SiteState, voucher: Voucher) {
  const limit = voucher.authorizedGuestLimit;
  return {
    _id: voucher._id,
    site_id: site._id,
    code: voucher.code,
    create_time: Math.round(voucher.createdAt / 1000),
    duration: voucher.timeLimitMinutes,
    quota: limit ?? 0,
    used: voucher.authorizedGuestCount,
    note: voucher.note,
    status: limit === 1 ? 'VALID_ONE' : 'VALID_MULTI',
    ...(voucher.rxRateLimitKbps === undefined ? {} : { qos_rate_max_down: voucher.rxRateLimitKbps }),
    ...(voucher.txRateLimitKbps === undefined ? {} : { qos_rate_max_up: voucher.txRateLimitKbps }),
    ...(voucher.dataUsageLimitMBytes === undefined ? {} : { qos_usage_quota: voucher.dataUsageLimitMBytes }),
    qos_overwrite: voucher.rxRateLimitKbps !== undefined || voucher.txRateLimitKbps !== undefined,
  };
}

/** Stores `count` new vouchers with the given limits. */
export function createVouchers(
  state: SimulatorState,
  site: SiteState,
  count: number,
  fields: Omit<Voucher, '_id' | 'id' | 'code' | 'createdAt' | 'authorizedGuestCount'>,
  now: number,
): Voucher[] {
  const created = Array.from({ length: count }, () => ({
    _id: state.newObjectId(),
    id: state.newUuid(),
    code: state.newVoucherCode(site),
    createdAt: now,
    authorizedGuestCount: 0,
    ...fields,
  }));
  site.vouchers.push(...created);
  return created;
}

/**
 * Registers `cmd/devmgr`, `cmd/stamgr`, `cmd/hotspot`, `stat/voucher`, `rest/user` and `PUT
 * rest/wlanconf/{_id}`. One function: a table of routes, each a few lines, read as one list.
 */
export function registerClassicCommands(router: Router<Handler>): void {
  const base = '/api/s/:site';
  // Deliberately alike: route registrations share the router's chain shape; each handler reads its own records.
  router
    .on(
      'POST',
      `${base}/cmd/devmgr`,
      namedSite((ctx, site) => {
        const body = command(devmgr, ctx);
        const target = device(site, body.mac);
        const until = Date.now() + ctx.state.actionDelayMs;
        switch (body.cmd) {
          case 'restart':
            restartDevice(site, target, until);
            break;
          case 'power-cycle':
            requirePoe(site, body.mac, body.port_idx);
            powerCyclePort(site, target, body.port_idx, until);
            break;
          case 'set-locate':
          case 'unset-locate':
            target.locating = body.cmd === 'set-locate';
            break;
        }
        return classicOk([]);
      }),
    )
    // Deliberately alike: each cmd manager is its own POST route; only the command schema and the switch differ.
    .on(
      'POST',
      `${base}/cmd/stamgr`,
      namedSite((ctx, site) => {
        const body = command(stamgr, ctx);
        const until = Date.now() + ctx.state.actionDelayMs;
        switch (body.cmd) {
          case 'block-sta': {
            const known = knownClient(site, body.mac);
            blockClient(site, body.mac);
            return classicOk([{ ...known, blocked: true }]);
          }
          case 'unblock-sta': {
            const known = knownClient(site, body.mac);
            unblockClient(site, body.mac, until);
            return classicOk([{ ...known, blocked: false }]);
          }
          case 'kick-sta': {
            const client = onlineClient(site, body.mac);
            if (client.is_wired) {
              throw new SimError(400, 'api.err.WiredStation', `Client ${body.mac} is wired`);
            }
            kickClient(site, body.mac, until);
            return classicOk([]);
          }
          case 'authorize-guest': {
            requireGuest(onlineClient(site, body.mac));
            authorizeGuest(
              site,
              body.mac,
              { minutes: body.minutes, down: body.down, up: body.up, mb: body.bytes },
              Date.now(),
            );
            return classicOk([]);
          }
          case 'unauthorize-guest':
            requireGuest(onlineClient(site, body.mac));
            unauthorizeGuest(site, body.mac);
            return classicOk([]);
        }
      }),
    )
    .on(
      'POST',
      `${base}/cmd/hotspot`,
      namedSite((ctx, site) => {
        const body = command(hotspot, ctx);
        if (body.cmd === 'delete-voucher') {
          const index = site.vouchers.findIndex((v) => v._id === body._id);
          if (index < 0) throw new SimError(400, 'api.err.IdInvalid', `No voucher ${body._id}`);
          site.vouchers.splice(index, 1);
          return classicOk([]);
        }
        const now = Date.now();
        createVouchers(
          ctx.state,
          site,
          body.n,
          {
            note: body.note ?? '',
            timeLimitMinutes: body.expire,
            authorizedGuestLimit: body.quota === undefined || body.quota === 0 ? null : body.quota,
            ...(body.bytes === undefined ? {} : { dataUsageLimitMBytes: body.bytes }),
            ...(body.down === undefined ? {} : { rxRateLimitKbps: body.down }),
            ...(body.up === undefined ? {} : { txRateLimitKbps: body.up }),
          },
          now,
        );
        // The controller answers with the batch's create_time; clients read stat/voucher for the codes.
        return classicOk([{ create_time: Math.round(now / 1000) }]);
      }),
    )
    .on(
      'GET',
      `${base}/stat/voucher`,
      namedSite((_ctx, site) => classicOk(site.vouchers.map((v) => classicVoucher(site, v)))),
    )
    .on(
      'GET',
      `${base}/rest/user`,
      namedSite((_ctx, site) => classicOk(knownClients(site))),
    )
    .on(
      'PUT',
      `${base}/rest/wlanconf/:id`,
      namedSite((ctx, site) => {
        const wlan = site.wlans.find((w) => w._id === param(ctx, 'id'));
        if (!wlan) throw new SimError(400, 'api.err.IdInvalid', `No wlanconf with _id ${param(ctx, 'id')}`);
        const body = command(z.looseObject({ enabled: z.boolean().optional() }), ctx);
        const { _id: _ignored, site_id: _site, ...fields } = body as Record<string, unknown>;
        const wasEnabled = wlan.enabled;
        Object.assign(wlan, fields);
        if (wlan.enabled !== wasEnabled) {
          setWlanEnabled(site, wlan.name, wlan.enabled, Date.now() + ctx.state.actionDelayMs);
        }
        return classicOk([wlan]);
      }),
    );
}
