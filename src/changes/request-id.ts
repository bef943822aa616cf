import { randomBytes } from 'node:crypto';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** 'cr_' + 20 base32 characters (100 random bits): unguessable, URL-safe, fits a button value. */
export function newRequestId(): string {
  // 256 is a multiple of 32, so masking each byte keeps the characters uniform.
  return `cr_${[...randomBytes(20)].map((byte) => BASE32[byte & 31]).join('')}`;
}
