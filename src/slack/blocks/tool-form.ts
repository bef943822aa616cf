import type { types } from '@slack/bolt';
import type { ArgumentInfo } from '../../tools/schema-introspection.js';
import { clip, humanize } from './text.js';

/** callback_id of every tool form. */
export const TOOL_FORM_CALLBACK = 'tool_form';
/** action_id of the single element inside each input block. */
export const FORM_VALUE_ACTION = 'value';

/** What travels in the modal's private_metadata: only what is needed to route the submission. */
export interface ToolFormMetadata {
  tool: string;
  channel: string;
}

// Not asked in the form: the Approve button supplies confirm, and a form always previews.
const HIDDEN = new Set(['confirm', 'dry_run']);

function text(value: string): types.PlainTextElement {
  return { type: 'plain_text', text: value };
}

function option(value: string): types.PlainTextOption {
  return { text: text(clip(value, 75)), value: clip(value, 75) };
}

function prefillText(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  return Array.isArray(value) ? value.map(String).join('\n') : String(value);
}

/** A boolean with a default (or required) is on or off; unticked means false. */
function hasTwoStates(arg: ArgumentInfo): boolean {
  return arg.required || arg.defaultValue !== undefined;
}

function elementFor(arg: ArgumentInfo, prefill: unknown): types.InputBlock['element'] {
  const initial = prefillText(prefill) ?? prefillText(arg.defaultValue);
  switch (arg.kind) {
    case 'number':
      return {
        type: 'number_input',
        action_id: FORM_VALUE_ACTION,
        is_decimal_allowed: false,
        ...(initial !== undefined ? { initial_value: initial } : {}),
      };
    case 'enum': {
      const options = (arg.options ?? []).slice(0, 100).map(option);
      const selected = options.find((o) => o.value === initial);
      return {
        type: 'static_select',
        action_id: FORM_VALUE_ACTION,
        options,
        ...(selected ? { initial_option: selected } : {}),
      };
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
      const selected = options.find((o) => o.value === initial);
      return {
        type: 'static_select',
        action_id: FORM_VALUE_ACTION,
        options,
        ...(selected ? { initial_option: selected } : {}),
      };
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
        ...(initial !== undefined ? { initial_value: initial } : {}),
      };
  }
}

/** A modal for one tool: an input per argument, block_id = the argument's name, prefilled with what was typed. */
export function toolFormView(
  tool: string,
  args: readonly ArgumentInfo[],
  prefill: Record<string, unknown>,
  metadata: ToolFormMetadata,
): types.ModalView {
  const blocks: types.KnownBlock[] = args
    .filter((a) => !HIDDEN.has(a.name))
    .map((arg) => ({
      type: 'input',
      block_id: arg.name,
      // An unticked checkbox is an answer (false), so a checkbox input is never "missing".
      optional: !arg.required || arg.name === 'site_id' || arg.kind === 'boolean',
      label: text(clip(arg.name, 2000)),
      ...(arg.description ? { hint: text(clip(arg.description, 2000)) } : {}),
      element: elementFor(arg, prefill[arg.name]),
    }));
  return {
    type: 'modal',
    callback_id: TOOL_FORM_CALLBACK,
    private_metadata: JSON.stringify(metadata),
    title: text(clip(humanize(tool), 24)),
    submit: text('Preview'),
    close: text('Cancel'),
    blocks: [
      {
        type: 'context',
        elements: [
          {
            type: 'mrkdwn',
            text: `\`${tool}\`: the preview is posted in the channel; nothing changes until it is approved.`,
          },
        ],
      },
      ...blocks,
    ],
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
