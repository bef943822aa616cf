import { type FieldIssue, ValidationError } from '../../errors.js';

/** An issue for a value that is required here and was not given; `rule` says when it is required. */
export function missingValue(field: string, rule = 'is required'): FieldIssue {
  return { field, rule, missing: true };
}

/** zod `params` that mark a custom issue (from a refinement) as a missing value. */
export const MISSING_PARAMS = { missing: true } as const;

/**
 * The issues of an incomplete request: a ValidationError whose every issue is a missing value.
 * Undefined for anything else (a wrong value, an unknown argument, any other error), because a
 * form would hide that mistake instead of naming it.
 */
export function missingValueIssues(error: unknown): FieldIssue[] | undefined {
  if (!(error instanceof ValidationError) || error.issues.length === 0) return undefined;
  return error.issues.every((issue) => issue.missing === true) ? error.issues : undefined;
}
