import { isNode, LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { isTimeZone } from '../lib/time-zone.js';
import { compileCondition, isConditionProblem } from './cel.js';
import { DURATION_RULE, parseDuration } from './duration.js';
import { CONFIRM_FACES, type Policy, type PolicyRule } from './policy.js';
import { PolicyFileError, type PolicyProblem } from './policy-error.js';
import { type ChangeWindow, cronProblem, type Freeze, parseClock, WEEKDAYS } from './windows.js';

/*
 * POLICY_FILE: YAML, read once at start. Its schema (zod) and every rule's CEL condition are
 * checked here; any problem is a PolicyFileError naming the file, the line and the rule.
 */

const MAX_FILE_CHARS = 1_000_000;
const MAX_RULES = 500;

const NAME_RULE = 'must be 1–64 letters, digits, spaces, ".", "_" or "-", starting with a letter or digit';
const name = z
  .string({ error: 'must be text' })
  .regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/, { error: NAME_RULE });
const approverId = z
  .string({ error: 'must be a Slack user id (U…) or user-group id (S…)' })
  .regex(/^[UWS][A-Z0-9]{2,}$/, { error: 'must be a Slack user id (U…) or user-group id (S…)' });
// A rule's approvers may also name a PagerDuty schedule: whoever is on call in it.
const ruleApproverId = z
  .string({ error: 'must be a Slack user id (U…), user-group id (S…) or oncall:<schedule id>' })
  .regex(/^(?:[UWS][A-Z0-9]{2,}|oncall:[A-Z0-9]{2,})$/, {
    error: 'must be a Slack user id (U…), user-group id (S…) or oncall:<PagerDuty schedule id>',
  });
const approvalCount = z
  .number({ error: 'must be a whole number from 1 to 10' })
  .int({ error: 'must be a whole number from 1 to 10' })
  .min(1, { error: 'must be a whole number from 1 to 10' })
  .max(10, { error: 'must be a whole number from 1 to 10' });
const duration = z
  .string({ error: DURATION_RULE })
  .refine((v) => parseDuration(v) !== undefined, { error: DURATION_RULE });
const isoTime = z.iso.datetime({
  offset: true,
  error: 'must be a date and time with its offset, e.g. 2026-12-20T18:00:00+01:00',
});
const clock = z.string({ error: 'must be a time such as 22:00' }).refine((v) => parseClock(v) !== undefined, {
  error: 'must be a time such as 22:00 (24-hour)',
});
const timezone = z
  .string({ error: 'must be a time zone such as Europe/Berlin or UTC' })
  .refine(isTimeZone, { error: 'must be a time zone such as Europe/Berlin or UTC' });

const ruleSchema = z
  .strictObject({
    name,
    when: z.string({ error: 'must be a CEL condition (text)' }).trim().min(1, { error: 'must not be empty' }),
    deny: z.string({ error: 'must be the reason shown to the requester' }).trim().min(1).max(500).optional(),
    approvals: approvalCount.optional(),
    approvers: z
      .array(ruleApproverId, {
        error: 'must be a list of Slack user or user-group ids, or oncall:<schedule id>',
      })
      .min(1)
      .optional(),
    window: name.optional(),
    revert_after: duration.optional(),
    self_confirm: z.boolean({ error: 'must be true or false' }).optional(),
    step_up: z.boolean({ error: 'must be true or false' }).optional(),
  })
  .refine(
    (r) =>
      r.deny !== undefined ||
      r.approvals !== undefined ||
      r.approvers !== undefined ||
      r.window !== undefined ||
      r.revert_after !== undefined ||
      r.self_confirm !== undefined ||
      r.step_up !== undefined,
    { error: 'needs an effect: deny, approvals, approvers, window, revert_after, self_confirm or step_up' },
  );

const windowSchema = z
  .strictObject({
    cron: z.string({ error: 'must be a cron pattern such as "0 22 * * 1-5"' }).optional(),
    days: z
      .array(z.enum(WEEKDAYS, { error: `must be one of ${WEEKDAYS.join(', ')}` }), {
        error: `must be a list of days (${WEEKDAYS.join(', ')})`,
      })
      .min(1)
      .optional(),
    start: clock.optional(),
    end: clock.optional(),
    duration: duration.optional(),
    timezone: timezone.default('UTC'),
  })
  .superRefine((w, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (w.cron !== undefined) {
      if (w.days || w.start || w.end) issue('cron', 'is given with days/start/end: use one or the other');
      if (!w.duration) issue('duration', 'is required with cron (how long each opening lasts)');
    } else {
      if (!w.days || !w.start) issue('cron', 'or days and start are required');
      if (!w.end && !w.duration) issue('end', 'or duration is required');
      if (w.end && w.duration) issue('end', 'is given with duration: use one or the other');
    }
  });

const freezeSchema = z
  .strictObject({
    name: name.optional(),
    from: isoTime,
    to: isoTime,
    reason: z.string({ error: 'must say why (shown to the requester)' }).trim().min(1).max(500),
    approvers: z
      .array(approverId, { error: 'must be a list of Slack user or user-group ids' })
      .min(1)
      .optional(),
  })
  .refine((f) => Date.parse(f.from) < Date.parse(f.to), {
    error: 'must end (to) after it starts (from)',
    path: ['to'],
  });

const breakGlassSchema = z.strictObject({
  allowed: z.array(approverId, { error: 'must be a list of Slack user or user-group ids' }).min(1),
  approvals: z
    .number({ error: 'must be a whole number from 0 to 10' })
    .int({ error: 'must be a whole number from 0 to 10' })
    .min(0, { error: 'must be a whole number from 0 to 10' })
    .max(10, { error: 'must be a whole number from 0 to 10' })
    .default(0),
  reviewers: z.array(approverId, { error: 'must be a list of Slack user or user-group ids' }).min(1),
  review_within: duration.default('24h'),
});

const fileSchema = z.strictObject(
  {
    version: z.literal(1, { error: 'must be 1' }).optional(),
    defaults: z
      .strictObject({
        approvals: approvalCount.optional(),
        high_risk_approvals: approvalCount.optional(),
        self_confirm: z
          .array(z.enum(CONFIRM_FACES, { error: `must be one of ${CONFIRM_FACES.join(', ')}` }), {
            error: `must be a list of faces (${CONFIRM_FACES.join(', ')}), or [] for none`,
          })
          .optional(),
      })
      .optional(),
    rules: z.array(ruleSchema, { error: 'must be a list of rules' }).max(MAX_RULES).optional(),
    windows: z.record(name, windowSchema, { error: 'must be a map of window names to windows' }).optional(),
    freezes: z.array(freezeSchema, { error: 'must be a list of freezes' }).optional(),
    breakglass: breakGlassSchema.optional(),
  },
  { error: 'must be a map with rules, windows, freezes, defaults and breakglass' },
);

type PolicyFile = z.output<typeof fileSchema>;

function windowOf(windowName: string, w: z.output<typeof windowSchema>): ChangeWindow {
  if (w.cron !== undefined) {
    const seconds = parseDuration(w.duration ?? '') ?? 0;
    return {
      name: windowName,
      cron: w.cron.trim(),
      durationSeconds: seconds,
      timezone: w.timezone,
      description: `cron "${w.cron.trim()}" for ${w.duration} (${w.timezone})`,
    };
  }
  const start = parseClock(w.start ?? '') ?? 0;
  const end = w.end === undefined ? undefined : parseClock(w.end);
  // An end at or before the start runs past midnight.
  const seconds =
    end === undefined ? (parseDuration(w.duration ?? '') ?? 0) : ((end - start + 1440) % 1440 || 1440) * 60;
  const days = [...new Set(w.days ?? [])];
  const dow = days.map((d) => WEEKDAYS.indexOf(d)).sort((a, b) => a - b);
  return {
    name: windowName,
    cron: `${start % 60} ${Math.floor(start / 60)} * * ${dow.join(',')}`,
    durationSeconds: seconds,
    timezone: w.timezone,
    description: `${days.join(',')} ${w.start}–${w.end ?? `+${w.duration}`} (${w.timezone})`,
  };
}

/** Reads the YAML text of a policy file; throws PolicyFileError (and nothing else) when it cannot be used. */
export function parsePolicy(text: string, file: string): Policy {
  try {
    return parseOrThrow(text, file);
  } catch (error) {
    if (error instanceof PolicyFileError) throw error;
    // A YAML or CEL library fault on strange input is still a file the bot cannot use.
    throw new PolicyFileError(file, [
      { message: `cannot be read: ${error instanceof Error ? error.message : String(error)}` },
    ]);
  }
}

function parseOrThrow(text: string, file: string): Policy {
  if (text.length > MAX_FILE_CHARS) {
    throw new PolicyFileError(file, [{ message: `is longer than ${MAX_FILE_CHARS} characters` }]);
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const lineAt = (offset: number | undefined) =>
    offset === undefined ? undefined : lines.linePos(offset).line;
  if (doc.errors.length > 0) {
    throw new PolicyFileError(
      file,
      doc.errors.slice(0, 5).map((e) => ({
        ...(e.linePos?.[0]?.line ? { line: e.linePos[0].line } : { line: lineAt(e.pos[0]) }),
        message: `is not valid YAML: ${e.message.split('\n')[0]}`,
      })),
    );
  }
  // The deepest node on a path that exists: its line is where the problem is.
  const lineOf = (path: readonly PropertyKey[]): number | undefined => {
    for (let n = path.length; n >= 0; n -= 1) {
      const node = doc.getIn(path.slice(0, n) as unknown[], true);
      if (isNode(node) && node.range) return lineAt(node.range[0]);
    }
    return undefined;
  };
  const ruleNameAt = (index: unknown): string | undefined => {
    const value = typeof index === 'number' ? doc.getIn(['rules', index, 'name']) : undefined;
    return typeof value === 'string' ? value : undefined;
  };
  const data: unknown = doc.toJS({ maxAliasCount: 100 }) ?? {};
  const parsed = fileSchema.safeParse(data);
  if (!parsed.success) {
    throw new PolicyFileError(
      file,
      parsed.error.issues.slice(0, 10).map((issue): PolicyProblem => {
        const path = issue.path;
        const rule = path[0] === 'rules' ? ruleNameAt(path[1]) : undefined;
        // Within a rule, the rule is named: the field is said relative to it.
        const field = (rule ? path.slice(2) : path)
          .filter((p) => typeof p !== 'number')
          .map(String)
          .join('.');
        return {
          ...(lineOf(path) ? { line: lineOf(path) } : {}),
          ...(rule ? { rule } : {}),
          message: `${field || 'the file'} ${issue.message}`,
        };
      }),
    );
  }
  return compile(parsed.data, file, lineOf);
}

function compile(
  data: PolicyFile,
  file: string,
  lineOf: (path: readonly PropertyKey[]) => number | undefined,
): Policy {
  const problems: PolicyProblem[] = [];
  const windows = new Map<string, ChangeWindow>();
  for (const [windowName, w] of Object.entries(data.windows ?? {})) {
    const window = windowOf(windowName, w);
    const problem = cronProblem(window.cron, window.timezone);
    if (problem)
      problems.push({
        line: lineOf(['windows', windowName, 'cron']),
        message: `window "${windowName}": cron ${problem}`,
      });
    windows.set(windowName, window);
  }
  const rules: PolicyRule[] = [];
  const seen = new Set<string>();
  (data.rules ?? []).forEach((r, i) => {
    const line = lineOf(['rules', i]) ?? 0;
    if (seen.has(r.name)) problems.push({ line, rule: r.name, message: 'name is used by an earlier rule' });
    seen.add(r.name);
    if (r.window !== undefined && !windows.has(r.window)) {
      problems.push({
        line: lineOf(['rules', i, 'window']),
        rule: r.name,
        message: `window "${r.window}" is not defined under windows`,
      });
    }
    const condition = compileCondition(r.when);
    if (isConditionProblem(condition)) {
      problems.push({
        line: lineOf(['rules', i, 'when']),
        rule: r.name,
        message: `when ${condition.message}${condition.column ? ` (column ${condition.column} of the condition)` : ''}`,
      });
      return;
    }
    rules.push({
      name: r.name,
      line,
      when: r.when,
      condition,
      ...(r.deny !== undefined ? { deny: r.deny } : {}),
      ...(r.approvals !== undefined ? { approvals: r.approvals } : {}),
      ...(r.approvers !== undefined ? { approvers: [...new Set(r.approvers)] } : {}),
      ...(r.window !== undefined ? { window: r.window } : {}),
      ...(r.revert_after !== undefined ? { revertAfterSeconds: parseDuration(r.revert_after) } : {}),
      ...(r.self_confirm !== undefined ? { selfConfirm: r.self_confirm } : {}),
      ...(r.step_up !== undefined ? { stepUp: r.step_up } : {}),
    });
  });
  const freezes: Freeze[] = (data.freezes ?? []).map((f, i) => ({
    name: f.name ?? `freeze ${i + 1}`,
    from: Date.parse(f.from),
    to: Date.parse(f.to),
    reason: f.reason,
    ...(f.approvers ? { approvers: [...new Set(f.approvers)] } : {}),
  }));
  if (problems.length > 0) throw new PolicyFileError(file, problems);
  const approvals = data.defaults?.approvals ?? 1;
  return {
    file,
    defaults: {
      approvals,
      highRiskApprovals: Math.max(approvals, data.defaults?.high_risk_approvals ?? 2),
      selfConfirm: [...new Set(data.defaults?.self_confirm ?? CONFIRM_FACES)],
    },
    rules,
    windows,
    freezes,
    ...(data.breakglass
      ? {
          breakGlass: {
            allowed: [...new Set(data.breakglass.allowed)],
            approvals: data.breakglass.approvals,
            reviewers: [...new Set(data.breakglass.reviewers)],
            reviewWithinSeconds: parseDuration(data.breakglass.review_within) ?? 86_400,
          },
        }
      : {}),
  };
}
