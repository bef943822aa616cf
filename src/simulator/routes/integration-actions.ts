import { z } from 'zod';
import { json } from '../envelopes.js';
import { portOf, powerCyclePort, restartDevice } from '../live-actions.js';
import type { Router } from '../router.js';
import type { ClientRecord, DeviceRecord, SiteState } from '../state.js';
import { authorizeGuest, createVouchers, requireGuest, requirePoe, unauthorizeGuest } from './classic-cmd.js';
import type { Handler, RequestContext } from './context.js';
import { param, uuidSite } from './context.js';
import { listPage, notFound, parseBody } from './integration-common.js';
import { integrationIdOf } from './integration-live.js';

/*
 * The Integration API's device, port and client actions, and hotspot vouchers, as
 * it documents them (Network API 9.4/10.1): device `RESTART`, port `POWER_CYCLE`, client
 * `AUTHORIZE_GUEST_ACCESS` / `UNAUTHORIZE_GUEST_ACCESS`, voucher create, list and delete.
 * Devices and clients are named by the ids integration-live.ts lists them with (derived from their
 * MACs), so both APIs name the same records.
 */

function integrationVoucher(voucher: SiteState['vouchers'][number]) {
  return {
    id: voucher.id,
    createdAt: new Date(voucher.createdAt).toISOString(),
    name: voucher.note,
    code: voucher.code,
    ...(voucher.authorizedGuestLimit === null ? {} : { authorizedGuestLimit: voucher.authorizedGuestLimit }),
    authorizedGuestCount: voucher.authorizedGuestCount,
    expired: false,
    timeLimitMinutes: voucher.timeLimitMinutes,
    ...(voucher.dataUsageLimitMBytes === undefined
      ? {}
      : { dataUsageLimitMBytes: voucher.dataUsageLimitMBytes }),
    ...(voucher.rxRateLimitKbps === undefined ? {} : { rxRateLimitKbps: voucher.rxRateLimitKbps }),
    ...(voucher.txRateLimitKbps === undefined ? {} : { txRateLimitKbps: voucher.txRateLimitKbps }),
  };
}

function deviceById(site: SiteState, ctx: RequestContext): DeviceRecord {
  const id = param(ctx, 'deviceId');
  const found = site.devices.find((d) => integrationIdOf(d.mac) === id);
  if (!found) throw notFound('Device', id);
  return found;
}

function clientById(site: SiteState, ctx: RequestContext): ClientRecord {
  const id = param(ctx, 'clientId');
  const found = site.clients.find((c) => integrationIdOf(c.mac) === id);
  if (!found) throw notFound('Client', id);
  return found;
}

const limits = {
  timeLimitMinutes: z.number().int().min(1).max(1_000_000).optional(),
  dataUsageLimitMBytes: z.number().int().min(1).max(1_048_576).optional(),
  rxRateLimitKbps: z.number().int().min(2).max(100_000).optional(),
  txRateLimitKbps: z.number().int().min(2).max(100_000).optional(),
};

const clientAction = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('AUTHORIZE_GUEST_ACCESS'), ...limits }),
  z.strictObject({ action: z.literal('UNAUTHORIZE_GUEST_ACCESS') }),
]);

const voucherCreate = z.strictObject({
  count: z.number().int().min(1).max(1000).default(1),
  name: z.string().min(1),
  authorizedGuestLimit: z.number().int().min(1).optional(),
  ...limits,
  timeLimitMinutes: z.number().int().min(1).max(1_000_000),
});

/**
 * Registers the Integration actions, hotspot vouchers and Wi-Fi broadcasts of the on-call tools (the
 * device and client reads are in integration-live.ts).
 */
export function registerIntegrationActions(router: Router<Handler>): void {
  const base = '/integration/v1/sites/:siteId';
  router
    .on(
      'POST',
      `${base}/devices/:deviceId/actions`,
      uuidSite((ctx, site) => {
        const device = deviceById(site, ctx);
        parseBody(z.strictObject({ action: z.literal('RESTART') }), ctx);
        restartDevice(site, device, Date.now() + ctx.state.actionDelayMs);
        return json({});
      }),
    )
    .on(
      'POST',
      `${base}/devices/:deviceId/interfaces/ports/:portIdx/actions`,
      uuidSite((ctx, site) => {
        const device = deviceById(site, ctx);
        const idx = Number(param(ctx, 'portIdx'));
        if (!Number.isInteger(idx) || !portOf(device, idx)) throw notFound('Port', param(ctx, 'portIdx'));
        parseBody(z.strictObject({ action: z.literal('POWER_CYCLE') }), ctx);
        requirePoe(site, device.mac, idx);
        powerCyclePort(site, device, idx, Date.now() + ctx.state.actionDelayMs);
        return json({});
      }),
    )
    .on(
      'POST',
      `${base}/clients/:clientId/actions`,
      uuidSite((ctx, site) => {
        const client = clientById(site, ctx);
        const body = parseBody(clientAction, ctx);
        requireGuest(client);
        if (body.action === 'UNAUTHORIZE_GUEST_ACCESS') {
          const revoked = unauthorizeGuest(site, client.mac);
          return json({ action: body.action, ...(revoked ? { revokedAuthorization: revoked } : {}) });
        }
        const revoked = site.guestAuthorizations[client.mac];
        const granted = authorizeGuest(
          site,
          client.mac,
          {
            minutes: body.timeLimitMinutes,
            down: body.rxRateLimitKbps,
            up: body.txRateLimitKbps,
            mb: body.dataUsageLimitMBytes,
          },
          Date.now(),
        );
        return json({
          action: body.action,
          ...(revoked ? { revokedAuthorization: revoked } : {}),
          grantedAuthorization: granted,
        });
      }),
    )
    .on(
      'GET',
      `${base}/hotspot/vouchers`,
      uuidSite((ctx, site) =>
        listPage(
          ctx,
          site.vouchers.map((v) => integrationVoucher(v)),
        ),
      ),
    )
    .on(
      'POST',
      `${base}/hotspot/vouchers`,
      uuidSite((ctx, site) => {
        const body = parseBody(voucherCreate, ctx);
        const created = createVouchers(
          ctx.state,
          site,
          body.count,
          {
            note: body.name,
            timeLimitMinutes: body.timeLimitMinutes,
            authorizedGuestLimit: body.authorizedGuestLimit ?? null,
            ...(body.dataUsageLimitMBytes === undefined
              ? {}
              : { dataUsageLimitMBytes: body.dataUsageLimitMBytes }),
            ...(body.rxRateLimitKbps === undefined ? {} : { rxRateLimitKbps: body.rxRateLimitKbps }),
            ...(body.txRateLimitKbps === undefined ? {} : { txRateLimitKbps: body.txRateLimitKbps }),
          },
          Date.now(),
        );
        return json({ vouchers: created.map((v) => integrationVoucher(v)) }, 201);
      }),
    )
    .on(
      'GET',
      `${base}/hotspot/vouchers/:voucherId`,
      uuidSite((ctx, site) => {
        const voucher = site.vouchers.find((v) => v.id === param(ctx, 'voucherId'));
        if (!voucher) throw notFound('Voucher', param(ctx, 'voucherId'));
        return json(integrationVoucher(voucher));
      }),
    )
    .on(
      'DELETE',
      `${base}/hotspot/vouchers/:voucherId`,
      uuidSite((ctx, site) => {
        const index = site.vouchers.findIndex((v) => v.id === param(ctx, 'voucherId'));
        if (index < 0) throw notFound('Voucher', param(ctx, 'voucherId'));
        site.vouchers.splice(index, 1);
        return json({ vouchersDeleted: 1 });
      }),
    );
}
