import { z } from 'zod';
import { isIpv4, isIpv4OrCidr, parseCidr } from '../../lib/ip.js';
import { refusedValues } from './schema-introspection.js';

/** Every tool's `site_id`; the registry fills it from DEFAULT_SITE (or `site=`) when omitted. */
export const siteId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'must be a site name such as default' })
  .describe('Site name (defaults to DEFAULT_SITE)');

/** The write guard: must be true for a write to run (the Approve button supplies it). */
export const confirm = z
  .boolean({ error: 'must be true or false' })
  .optional()
  .describe('Must be true to run');

/** Preview only: validates, checks the target exists, and changes nothing. */
export const dryRun = z
  .boolean({ error: 'must be true or false' })
  .optional()
  .describe('Preview without changing anything');

/** Why an enum value is refused: the full rule for the error, and a few words for help. */
export interface Refusal {
  rule: string;
  note: string;
}

/**
 * An enum whose type keeps values the spec names but the tool refuses, so they are refused with
 * the reason rather than as unknown; help lists each with its note and forms do not offer it.
 */
export function refusingValues<T extends z.ZodEnum>(
  schema: T,
  refused: Readonly<Record<string, Refusal>>,
): T {
  const checked = schema.superRefine((value, ctx) => {
    const refusal = refused[String(value)];
    if (refusal) ctx.addIssue({ code: 'custom', message: refusal.rule });
  });
  refusedValues.add(checked, {
    refused: Object.fromEntries(Object.entries(refused).map(([value, { note }]) => [value, note])),
  });
  return checked;
}

/** A whole number within [min, max], with a message that names the bounds. */
export function intInRange(min: number, max: number) {
  const rule = `must be a whole number from ${min} to ${max}`;
  return z.number({ error: rule }).int({ error: rule }).min(min, { error: rule }).max(max, { error: rule });
}

/** A non-empty trimmed string up to `max` characters. */
export function text(max: number) {
  return z
    .string({ error: 'must be text' })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(max, { error: `must be at most ${max} characters` });
}

/** An IPv4 address in dotted-quad form. */
export const ipv4 = z.string({ error: 'must be an IPv4 address' }).trim().refine(isIpv4, {
  error: 'must be an IPv4 address such as 10.0.0.1',
});

/** An IPv4 CIDR such as 10.30.0.0/24 (network or gateway form). */
export const cidr = z
  .string({ error: 'must be an IPv4 CIDR' })
  .trim()
  .refine((v) => parseCidr(v) !== undefined, { error: 'must be an IPv4 CIDR such as 10.30.0.0/24' });

/** A VLAN tag as the spec bounds it. */
export const vlanId = intInRange(1, 4094);

/** Pagination: items skipped. */
export const offset = intInRange(0, 1_000_000).default(0).describe('Items to skip');

/** Pagination: items returned at most. */
export function limit(fallback: number) {
  return intInRange(1, 10_000).default(fallback).describe('Items to return at most');
}

/** A trimmed string that must not be empty; `rule` is the one message for a wrong type and for an empty one. */
export function nonEmpty(rule: string) {
  return z.string({ error: rule }).trim().min(1, { error: rule });
}

/** An object named by id or by name (names are matched case-insensitively and must be unambiguous). */
export function idOrName(what: string) {
  const rule = `must be ${/^[aeiou]/i.test(what) ? 'an' : 'a'} ${what} id or name`;
  return nonEmpty(rule).describe(`${what.charAt(0).toUpperCase()}${what.slice(1)} id (or its name)`);
}

/** An IPv4 address or CIDR block, as firewall and ACL rules take them. */
export const ipv4OrCidr = z
  .string({ error: 'must be an IPv4 address or CIDR' })
  .trim()
  .refine((v) => isIpv4OrCidr(v, true), { error: 'must be an IPv4 address or CIDR such as 10.0.0.0/24' });

/** A TCP/UDP port number. */
export const port = intInRange(1, 65535);
