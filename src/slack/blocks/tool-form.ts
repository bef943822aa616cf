import type { types } from '@slack/bolt';
import type { FieldIssue } from '../../errors.js';
import type { ArgumentInfo } from '../../tools/core/schema-introspection.js';
import { argumentHint } from '../../tools/core/tool-help.js';
import { LIMITS } from './limits.js';
import { clip, clipMrkdwn, code, humanize, mrkdwn, mrkdwnText, plainText } from './text.js';

/** callback_id of every tool form. */
export const TOOL_FORM_CALLBACK = 'tool_form';
/** action_id of the single element inside each input block. */
export const FORM_VALUE_ACTION = 'value';
/** The input of a form opened outside a channel (App Home): where to post the preview. */
export const FORM_CHANNEL_BLOCK = 'netops_post_channel';
export const FORM_CHANNEL_ACTION = 'channel';

/** What travels in the modal's private_metadata: only what is needed to route the submission. */
export interface ToolFormMetadata {
  tool: string;
  channel: string;
}

// Not asked in the form: the Approve button supplies confirm, and a form always previews.
const HIDDEN = new Set(['confirm', 'dry_run']);

function text(value: string, max?: number): types.PlainTextElement {
  return plainText(value, max);
}

function option(value: string): types.PlainTextOption {
  // The value travels back in the submission, so it stays as it is; only the shown text is made visible.
  return { text: text(value, 75), value: clip(value, 75) };
}

function prefillText(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  return Array.isArray(value) ? value.map(String).join('\n') : String(value);
}

/** What a form shows besides the arguments: the configured site (a hint) and what is still missing. */
export interface ToolFormOptions {
  /** The site used when site_id is left empty. */
  site?: string;
  /** Missing values that made the bot open the form; each is flagged under its input. */
  missing?: readonly FieldIssue[];
  /** Opened from App Home, with no channel: the form asks where to post the preview (`initial` first). */
  pickChannel?: { initial?: string };
}

/** A boolean with a default (or required) is on or off; unticked means false. */
function hasTwoStates(arg: ArgumentInfo): boolean {
  return arg.required || arg.defaultValue !== undefined;
}

/** A prefilled number Slack accepts: numeric text within the input's range (else the view is refused). */
function numberWithin(arg: ArgumentInfo, value: string | undefined): string | undefined {
  if (value === undefined || !/^-?\d+(\.\d+)?$/.test(value.trim())) return undefined;
  const n = Number(value);
  return (arg.min === undefined || n >= arg.min) && (arg.max === undefined || n <= arg.max)
    ? value.trim()
    : undefined;
}

/** A single-choice menu of `options`, on `initial` when it is one of them. */
function staticSelect(options: types.PlainTextOption[], initial: string | undefined): types.StaticSelect {
  const selected = options.find((o) => o.value === initial);
  return {
    type: 'static_select',
    action_id: FORM_VALUE_ACTION,
    options,
    ...(selected ? { initial_option: selected } : {}),
  };
}

function elementFor(arg: ArgumentInfo, prefill: unknown): types.InputBlock['element'] {
  const typed = prefillText(prefill) ?? prefillText(arg.defaultValue);
  const initial = arg.kind === 'number' ? numberWithin(arg, typed) : typed;
  switch (arg.kind) {
    case 'number':
      return {
        type: 'number_input',
        action_id: FORM_VALUE_ACTION,
        is_decimal_allowed: arg.integer !== true,
        ...(arg.min !== undefined ? { min_value: String(arg.min) } : {}),
        ...(arg.max !== undefined ? { max_value: String(arg.max) } : {}),
        ...(initial !== undefined ? { initial_value: initial } : {}),
      };
    case 'enum': {
      // A value the tool always refuses is not offered (help says why it is refused).
      const options = (arg.options ?? [])
        .filter((v) => arg.refused?.[v] === undefined)
        .slice(0, 100)
        .map(option);
      return staticSelect(options, initial);
    }
    case 'boolean': {
      if (hasTwoStates(arg)) {
        const checked = { text: text(arg.name), value: 'true' };
        return {
          type: 'checkboxes',
          action_id: FORM_VALUE_ACTION,
          options: [checked],
          ...(initial === 'true' ? { initial_options: [checked] } : {}),
        };
      }
      // An update's optional flag has three states: on, off, and leave as it is; a checkbox has two.
      const options = [option('true'), option('false')];
      return staticSelect(options, initial);
    }
    case 'array':
      return {
        type: 'plain_text_input',
        action_id: FORM_VALUE_ACTION,
        multiline: true,
        placeholder: text('one per line'),
        ...(initial !== undefined ? { initial_value: initial } : {}),
      };
    default:
      return {
        type: 'plain_text_input',
        action_id: FORM_VALUE_ACTION,
        ...(arg.kind === 'string' && arg.max !== undefined && arg.max <= LIMITS.plainTextInputLength
          ? { max_length: arg.max }
          : {}),
        ...(initial !== undefined ? { initial_value: initial } : {}),
      };
  }
}

/** The hint under an input: what is missing first, then bounds, default and description. */
function hintFor(arg: ArgumentInfo, options: ToolFormOptions): string | undefined {
  const missing = options.missing?.find((m) => m.field === arg.name);
  const parts = [
    missing ? `Missing: ${arg.name} ${missing.rule}.` : undefined,
    argumentHint(arg, options.site ?? 'the configured site'),
  ].filter((p): p is string => p !== undefined);
  return parts.length > 0 ? parts.join(' ') : undefined;
}

/** The line above the inputs: what the form is for, and what is still needed when it was opened for that. */
function introText(tool: string, missing: readonly FieldIssue[]): string {
  const intro = `${code(tool)}: the preview is posted in the channel; nothing changes until it is approved.`;
  if (missing.length === 0) return intro;
  const needed = missing.map((m) => `${code(m.field)} (${mrkdwn(m.rule)})`).join(', ');
  return `${intro}\n*Still needed:* ${needed}`;
}

/**
 * A modal for one tool: an input per argument, block_id = the argument's name, prefilled with
 * what was typed. Hints show bounds and defaults, selects the allowed values, number inputs their
 * range; values the bot found missing are flagged at the top and under their inputs.
 */
export function toolFormView(
  tool: string,
  args: readonly ArgumentInfo[],
  prefill: Record<string, unknown>,
  metadata: ToolFormMetadata,
  options: ToolFormOptions = {},
): types.ModalView {
  const blocks: types.KnownBlock[] = args
    .filter((a) => !HIDDEN.has(a.name))
    .map((arg) => {
      const hint = hintFor(arg, options);
      return {
        type: 'input',
        block_id: arg.name,
        // An unticked checkbox is an answer (false), so a checkbox input is never "missing".
        optional: !arg.required || arg.name === 'site_id' || arg.kind === 'boolean',
        label: text(arg.name, LIMITS.inputLabel),
        ...(hint ? { hint: text(hint, LIMITS.inputHint) } : {}),
        element: elementFor(arg, prefill[arg.name]),
      };
    });
  return {
    type: 'modal',
    callback_id: TOOL_FORM_CALLBACK,
    private_metadata: JSON.stringify(metadata),
    title: text(humanize(tool), 24),
    submit: text('Preview'),
    close: text('Cancel'),
    blocks: [
      {
        type: 'context',
        elements: [mrkdwnText(clipMrkdwn(introText(tool, options.missing ?? []), LIMITS.contextText))],
      },
      ...(options.pickChannel ? [channelInput(options.pickChannel.initial)] : []),
      ...blocks,
    ],
  };
}

/** "Post the preview in": a channel picker, for a form that was not opened from a channel. */
function channelInput(initial: string | undefined): types.InputBlock {
  return {
    type: 'input',
    block_id: FORM_CHANNEL_BLOCK,
    label: text('Post the preview in'),
    hint: text('Approvers review and approve it there; the bot must be a member of the channel.'),
    element: {
      type: 'conversations_select',
      action_id: FORM_CHANNEL_ACTION,
      filter: {
        include: ['public', 'private'],
        exclude_bot_users: true,
        exclude_external_shared_channels: true,
      },
      ...(initial ? { initial_conversation: initial } : {}),
    },
  };
}

/** One submitted element, as Slack sends it in `view.state.values[block_id][action_id]`. */
export interface SubmittedValue {
  type?: string;
  value?: string | null;
  selected_option?: { value?: string } | null;
  selected_options?: { value?: string }[] | null;
}

/** The submitted form as raw arguments (text), leaving empty fields out so defaults and "unchanged" apply. */
export function formArguments(
  args: readonly ArgumentInfo[],
  values: Record<string, Record<string, SubmittedValue>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const arg of args) {
    const submitted = values[arg.name]?.[FORM_VALUE_ACTION];
    if (!submitted) continue;
    if (submitted.type === 'checkboxes') {
      out[arg.name] = (submitted.selected_options ?? []).some((o) => o.value === 'true');
      continue;
    }
    const raw = submitted.selected_option?.value ?? submitted.value ?? undefined;
    if (raw === undefined || raw === null || raw.trim() === '') continue;
    out[arg.name] =
      arg.kind === 'array'
        ? raw
            .split(/[\n,]/)
            .map((s) => s.trim())
            .filter(Boolean)
        : raw.trim();
  }
  return out;
}
