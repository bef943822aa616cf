import { z } from 'zod';
import { ValidationError } from '../errors.js';

// Slack user ids are U… or W…. Anything else (a user-group id S…, a name, markup) is refused here,
// so it can never match an APPROVERS entry or be shown as a mention (found by test/fuzz).
const userId = z.string().regex(/^[UW][A-Z0-9]+$/, 'must be a Slack user id (U… or W…)');

/** The fields of a slash command the bot uses. */
export const slashCommandSchema = z.object({
  text: z.string().default(''),
  user_id: userId,
  user_name: z.string().optional(),
  channel_id: z.string().min(1),
  trigger_id: z.string().min(1),
  response_url: z.string().url(),
});
export type SlashCommand = z.infer<typeof slashCommandSchema>;

/** A click on Approve or Cancel: who clicked, which request, on which message. */
export const buttonClickSchema = z.object({
  user: z.object({ id: userId, name: z.string().optional(), username: z.string().optional() }),
  actions: z
    .array(
      z.object({
        action_id: z.string(),
        value: z.string().max(2000).optional(),
        // Carries the preview hash of the clicked message (decisionActions); at most 255 in Block Kit.
        block_id: z.string().max(255).optional(),
      }),
    )
    .min(1),
  channel: z.object({ id: z.string() }).optional(),
  // `type` is 'message' for a channel message, 'view' for App Home (no channel, no response_url).
  container: z
    .object({
      type: z.string().optional(),
      channel_id: z.string().optional(),
      message_ts: z.string().optional(),
    })
    .optional(),
  response_url: z.string().url().optional(),
});
export type ButtonClick = z.infer<typeof buttonClickSchema>;

const submittedValueSchema = z.looseObject({
  type: z.string().optional(),
  value: z.string().nullable().optional(),
  selected_option: z.object({ value: z.string().optional() }).nullable().optional(),
  selected_options: z
    .array(z.object({ value: z.string().optional() }))
    .nullable()
    .optional(),
});

/** A modal submission: who, the state of every input, and the metadata the bot put in. */
export const viewSubmissionSchema = z.object({
  user: z.object({ id: userId, name: z.string().optional() }),
  view: z.object({
    callback_id: z.string(),
    private_metadata: z.string(),
    state: z.object({ values: z.record(z.string(), z.record(z.string(), submittedValueSchema)) }),
  }),
});
export type ViewSubmission = z.infer<typeof viewSubmissionSchema>;

/** Parses a payload; a malformed one is a ValidationError naming the first bad field, never a crash. */
export function parsePayload<T>(schema: z.ZodType<T>, payload: unknown, what: string): T {
  const parsed = schema.safeParse(payload);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ValidationError([
    { field: `${what}.${issue?.path.map(String).join('.') ?? ''}`, rule: issue?.message ?? 'is malformed' },
  ]);
}
