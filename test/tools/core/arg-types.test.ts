import { describe, expect, it } from 'vitest';
import { idOrName, nonEmpty } from '../../../src/tools/core/arg-types.js';

function messageOf(result: { success: boolean; error?: { issues: { message: string }[] } }): string {
  return result.error?.issues.map((i) => i.message).join('; ') ?? '';
}

describe('nonEmpty', () => {
  const arg = nonEmpty('must be a device id, MAC or name');

  it('trims what it accepts', () => {
    expect(arg.parse('  Core Switch ')).toBe('Core Switch');
  });

  it('refuses a blank string and a non-string with the one rule', () => {
    expect(messageOf(arg.safeParse('   '))).toBe('must be a device id, MAC or name');
    expect(messageOf(arg.safeParse(42))).toBe('must be a device id, MAC or name');
  });
});

describe('idOrName', () => {
  it('names the object in its rule and description, with the right article', () => {
    const acl = idOrName('ACL rule');
    expect(messageOf(acl.safeParse(''))).toBe('must be an ACL rule id or name');
    expect(acl.description).toBe('ACL rule id (or its name)');
    const network = idOrName('network');
    expect(messageOf(network.safeParse(undefined))).toBe('must be a network id or name');
    expect(network.description).toBe('Network id (or its name)');
    expect(network.parse(' IoT ')).toBe('IoT');
  });
});
