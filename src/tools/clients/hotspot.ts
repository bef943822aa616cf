import { z } from 'zod';
import { ResourceNotFoundError } from '../../errors.js';
import type { Gateway } from '../../gateway/types.js';
import { numberish, stringish } from '../../records/lenient.js';
import {
  actionResultSchema,
  type ControllerCommand,
  integrationAvailable,
  sendCommand,
} from '../core/action-model.js';
import { confirm, dryRun, intInRange, nonEmpty, siteId, text } from '../core/arg-types.js';
import { defineTool } from '../core/define-tool.js';
import { notRevertible } from '../core/spec-helpers.js';

/*
 * Hotspot vouchers: the Integration API's `hotspot/vouchers` (list, generate, delete)
 * when the console offers it, else classic `stat/voucher` and `cmd/hotspot`. Both are shown the
 * same way; a voucher's id is the one of the API that listed it.
 */

// Deliberately alike: the Integration and classic voucher records are two APIs' shapes, each validated on its own.
const integrationVoucherSchema = z.looseObject({
  id: z.string().min(1),
  createdAt: stringish,
  name: stringish,
  code: stringish,
  authorizedGuestLimit: numberish,
  authorizedGuestCount: numberish,
  expiresAt: stringish,
  expired: z.boolean().optional().catch(undefined),
  timeLimitMinutes: numberish,
  dataUsageLimitMBytes: numberish,
  rxRateLimitKbps: numberish,
  txRateLimitKbps: numberish,
});

const classicVoucherSchema = z.looseObject({
  _id: z.string().min(1),
  code: stringish,
  create_time: numberish,
  duration: numberish,
  quota: numberish,
  used: numberish,
  note: stringish,
  qos_rate_max_up: numberish,
  qos_rate_max_down: numberish,
  qos_usage_quota: numberish,
});

/** A voucher as the tools show it, from either API. */
export const voucherSchema = z.object({
  id: z.string().describe('Voucher id (Integration UUID, or classic _id without an API key)'),
  code: z.string().describe('The code a guest types, as 12345-67890'),
  note: z.string().describe('The note printed with the voucher'),
  minutes: z.number().nullable().describe('Minutes of access from first use'),
  guests_allowed: z.number().nullable().describe('Guests who may use it; null = any number'),
  guests_used: z.number().describe('Guests who have used it'),
  down_kbps: z.number().nullable().describe('Download limit in kbit/s; null = none'),
  up_kbps: z.number().nullable().describe('Upload limit in kbit/s; null = none'),
  data_mb: z.number().nullable().describe('Data limit in MB; null = none'),
  created_at: z.string().nullable().describe('When it was made (ISO 8601)'),
  expired: z.boolean().describe('Used up or past its time'),
});

/** A voucher as the tools show it. */
export type Voucher = z.output<typeof voucherSchema>;

/** 4861409510 → 48614-09510, as the controller prints codes. */
function formatCode(code: string | undefined): string {
  const digits = (code ?? '').replace(/\D/g, '');
  return digits.length === 10 ? `${digits.slice(0, 5)}-${digits.slice(5)}` : (code ?? '');
}

function fromIntegration(v: z.output<typeof integrationVoucherSchema>): Voucher {
  return {
    id: v.id,
    code: formatCode(v.code),
    note: v.name ?? '',
    minutes: v.timeLimitMinutes ?? null,
    guests_allowed: v.authorizedGuestLimit ?? null,
    guests_used: v.authorizedGuestCount ?? 0,
    down_kbps: v.rxRateLimitKbps ?? null,
    up_kbps: v.txRateLimitKbps ?? null,
    data_mb: v.dataUsageLimitMBytes ?? null,
    created_at: v.createdAt ?? null,
    expired: v.expired === true,
  };
}

function fromClassic(v: z.output<typeof classicVoucherSchema>): Voucher {
  const allowed = v.quota === undefined || v.quota === 0 ? null : v.quota;
  return {
    id: v._id,
    code: formatCode(v.code),
    note: v.note ?? '',
    minutes: v.duration ?? null,
    guests_allowed: allowed,
    guests_used: v.used ?? 0,
    down_kbps: v.qos_rate_max_down ?? null,
    up_kbps: v.qos_rate_max_up ?? null,
    data_mb: v.qos_usage_quota ?? null,
    created_at: v.create_time === undefined ? null : new Date(v.create_time * 1000).toISOString(),
    expired: allowed !== null && (v.used ?? 0) >= allowed,
  };
}

async function readVouchers(
  gateway: Gateway,
  site: string,
  integration: boolean,
  fresh: boolean,
): Promise<Voucher[]> {
  if (integration) {
    const { items } = await gateway.integrationList(site, 'hotspot/vouchers', integrationVoucherSchema, {
      fresh,
    });
    return items.map(fromIntegration);
  }
  const { items } = await gateway.classicRead(site, 'stat/voucher', classicVoucherSchema, { fresh });
  return items.map(fromClassic);
}

// Deliberately alike: the tools below are defineTool declarations, whose shape the framework fixes; each differs in args and run.
const listVouchers = defineTool({
  name: 'list_vouchers',
  description: 'List the hotspot vouchers: code, note, minutes, guests allowed and used, limits',
  access: 'read',
  example: '',
  args: z.object({ site_id: siteId }),
  output: z.array(voucherSchema),
  async run({ site_id }, { gateway }) {
    return readVouchers(
      gateway,
      site_id,
      await integrationAvailable(gateway, site_id, 'hotspot.vouchers'),
      false,
    );
  },
});

const createVouchers = defineTool({
  name: 'create_vouchers',
  change: notRevertible(
    'vouchers may have been handed out already; revoke the ones you want gone with revoke_voucher',
  ),
  description: 'Make hotspot vouchers for guests (each good for `minutes` from first use)',
  access: 'write',
  example: 'count=3 minutes=480 note="Workshop"',
  args: z.object({
    site_id: siteId,
    count: intInRange(1, 1000).describe('How many vouchers to make (1–1,000)'),
    minutes: intInRange(1, 1_000_000).describe('Minutes of access each gives from first use (1–1,000,000)'),
    quota: intInRange(0, 1000)
      .default(1)
      .describe('Guests who may use each voucher (1 = single use; 0 = any number)'),
    down_kbps: intInRange(2, 100_000).optional().describe('Download limit in kbit/s (2–100,000)'),
    up_kbps: intInRange(2, 100_000).optional().describe('Upload limit in kbit/s (2–100,000)'),
    note: text(128)
      .default('netops-bot')
      .describe('Note printed with the vouchers (the Integration API needs one)'),
    confirm,
    dry_run: dryRun,
  }),
  output: actionResultSchema.extend({ vouchers: z.array(voucherSchema).describe('The vouchers made') }),
  async run({ site_id, count, minutes, quota, down_kbps, up_kbps, note, dry_run }, { gateway }) {
    const integration = await integrationAvailable(gateway, site_id, 'hotspot.vouchers');
    const rates = {
      ...(down_kbps === undefined ? {} : integration ? { rxRateLimitKbps: down_kbps } : { down: down_kbps }),
      ...(up_kbps === undefined ? {} : integration ? { txRateLimitKbps: up_kbps } : { up: up_kbps }),
    };
    const command: ControllerCommand = integration
      ? {
          api: 'integration',
          method: 'POST',
          path: 'hotspot/vouchers',
          body: {
            count,
            name: note,
            timeLimitMinutes: minutes,
            ...(quota === 0 ? {} : { authorizedGuestLimit: quota }),
            ...rates,
          },
        }
      : {
          api: 'classic',
          method: 'POST',
          path: 'cmd/hotspot',
          body: { cmd: 'create-voucher', n: count, expire: minutes, quota, note, ...rates },
        };
    const guests = quota === 0 ? 'any number of guests' : quota === 1 ? 'one guest' : `${quota} guests`;
    const warnings = [`${count} voucher${count === 1 ? '' : 's'} of ${minutes} min, each for ${guests}`];
    if (dry_run) return { dry_run: true, action: 'create vouchers', would_send: command, warnings };
    const answer = await sendCommand(gateway, site_id, command);
    let vouchers: Voucher[];
    if (integration) {
      const parsed = z.object({ vouchers: z.array(integrationVoucherSchema) }).safeParse(answer);
      vouchers = parsed.success ? parsed.data.vouchers.map(fromIntegration) : [];
    } else {
      // The classic answer carries only the batch's create_time; the codes are read back by it.
      const [first] = Array.isArray(answer) ? answer : [];
      const created = numberish.safeParse((first as { create_time?: unknown } | undefined)?.create_time);
      const all = await readVouchers(gateway, site_id, false, true);
      const stamp =
        created.success && created.data !== undefined
          ? new Date(created.data * 1000).toISOString()
          : undefined;
      vouchers = all.filter((v) => v.note === note && v.created_at === stamp);
    }
    return { success: true as const, action: 'create vouchers', vouchers, sent: command, warnings };
  },
});

const revokeVoucher = defineTool({
  name: 'revoke_voucher',
  change: notRevertible('a revoked voucher cannot be restored (a new one has a new code)'),
  description: 'Revoke a hotspot voucher so it can no longer be used',
  access: 'write',
  example: 'voucher_id=48614-09510',
  args: z.object({
    site_id: siteId,
    voucher_id: nonEmpty('must be a voucher id or code').describe(
      'The voucher: its id, or its code (with or without the dash)',
    ),
    confirm,
    dry_run: dryRun,
  }),
  output: actionResultSchema.extend({ voucher: voucherSchema }),
  async run({ site_id, voucher_id, dry_run }, { gateway }) {
    const integration = await integrationAvailable(gateway, site_id, 'hotspot.vouchers');
    const vouchers = await readVouchers(gateway, site_id, integration, true);
    const digits = voucher_id.replace(/[\s-]/g, '');
    const voucher = vouchers.find(
      (v) => v.id === voucher_id || (/^\d+$/.test(digits) && v.code.replace(/-/g, '') === digits),
    );
    if (!voucher) {
      const shown = vouchers.slice(0, 5).map((v) => `${v.code}${v.note ? ` (${v.note})` : ''}`);
      const more = vouchers.length > 5 ? `, … ${vouchers.length - 5} more` : '';
      const hint =
        vouchers.length === 0 ? 'the site has no vouchers' : `the site has ${shown.join(', ')}${more}`;
      throw new ResourceNotFoundError(
        'voucher',
        voucher_id,
        `voucher ${voucher_id} not found (voucher_id); ${hint}`,
      );
    }
    const command: ControllerCommand = integration
      ? { api: 'integration', method: 'DELETE', path: `hotspot/vouchers/${voucher.id}` }
      : {
          api: 'classic',
          method: 'POST',
          path: 'cmd/hotspot',
          body: { cmd: 'delete-voucher', _id: voucher.id },
        };
    const warnings = [
      voucher.guests_used > 0
        ? `${voucher.code}: used by ${voucher.guests_used} guest(s); no new guest can use it`
        : `${voucher.code}: no guest can use it any more`,
    ];
    const shown = { id: voucher.id, code: voucher.code, note: voucher.note, minutes: voucher.minutes };
    if (dry_run)
      return { dry_run: true, action: 'revoke voucher', voucher: shown, would_send: command, warnings };
    await sendCommand(gateway, site_id, command);
    return { success: true as const, action: 'revoke voucher', voucher, sent: command, warnings };
  },
});

/** The hotspot voucher tools. */
export const hotspotTools = [listVouchers, createVouchers, revokeVoucher];
