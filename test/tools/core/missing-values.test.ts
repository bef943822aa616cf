import { describe, expect, it } from 'vitest';
import { ConflictError, ValidationError } from '../../../src/errors.js';
import { missingValue, missingValueIssues } from '../../../src/tools/core/missing-values.js';

describe('missingValueIssues (does an incomplete write call for a form?)', () => {
  it('answers the issues when every one is a missing value, required always or by the other arguments', () => {
    const issues = [missingValue('name'), missingValue('subnet', 'is required unless purpose is vlan-only')];
    expect(missingValueIssues(new ValidationError(issues))).toEqual([
      { field: 'name', rule: 'is required', missing: true },
      { field: 'subnet', rule: 'is required unless purpose is vlan-only', missing: true },
    ]);
  });

  it('answers undefined when any issue is a wrong value, so the mistake is named instead', () => {
    const mixed = new ValidationError([
      missingValue('subnet'),
      { field: 'vlan_id', rule: 'must be a whole number from 1 to 4094' },
    ]);
    expect(missingValueIssues(mixed)).toBeUndefined();
    expect(missingValueIssues(new ValidationError([{ field: 'vlan', rule: 'is not an argument' }]))).toBe(
      undefined,
    );
  });

  it('answers undefined for other errors and an empty issue list', () => {
    expect(missingValueIssues(new ConflictError('VLAN 20 is already used'))).toBeUndefined();
    expect(missingValueIssues(new Error('boom'))).toBeUndefined();
    expect(missingValueIssues(new ValidationError([]))).toBeUndefined();
  });
});
