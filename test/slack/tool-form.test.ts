import { describe, expect, it } from 'vitest';
import { viewProblems } from '../../src/slack/blocks/limits.js';
import { formArguments, toolFormView } from '../../src/slack/blocks/tool-form.js';
import { createRegistry } from '../../src/tools/index.js';

const registry = createRegistry('default');

type Input = { type: string; block_id: string; optional: boolean; element: Record<string, unknown> };
const inputs = (tool: string, prefill: Record<string, unknown> = {}) =>
  toolFormView(tool, registry.argumentsOf(tool), prefill, { tool, channel: 'C1' }).blocks.filter(
    (b): b is Input & typeof b => b.type === 'input',
  ) as unknown as Input[];
const byId = (list: Input[], id: string) => list.find((i) => i.block_id === id);

describe('tool forms generated from the zod schemas', () => {
  it('fits Slack limits for every write tool', () => {
    for (const tool of registry.list().filter((t) => t.access === 'write')) {
      const view = toolFormView(
        tool.name,
        registry.argumentsOf(tool.name),
        {},
        { tool: tool.name, channel: 'C1' },
      );
      expect(viewProblems(view), tool.name).toEqual([]);
    }
  });

  it('uses number inputs, selects for enums, multi-line inputs for lists, and prefills', () => {
    const form = inputs('create_network', { name: 'Lab', vlan_id: '40' });
    expect(byId(form, 'name')?.element).toMatchObject({ type: 'plain_text_input', initial_value: 'Lab' });
    expect(byId(form, 'name')?.optional).toBe(false);
    expect(byId(form, 'vlan_id')?.element).toMatchObject({
      type: 'number_input',
      initial_value: '40',
      is_decimal_allowed: false,
    });
    expect(byId(form, 'purpose')?.element).toMatchObject({
      type: 'static_select',
      initial_option: { value: 'corporate' },
    });
    const purposeOptions = (byId(form, 'purpose')?.element.options ?? []) as { value: string }[];
    expect(purposeOptions.map((o) => o.value)).toEqual(['corporate', 'guest', 'vlan-only', 'wan']);
    const zone = inputs('create_firewall_zone');
    expect(byId(zone, 'network_ids')?.element).toMatchObject({ type: 'plain_text_input', multiline: true });
  });

  it('uses a checkbox for a boolean with a default, and a three-way select for an optional one', () => {
    const create = byId(inputs('create_network'), 'dhcp_enabled');
    expect(create?.element).toMatchObject({ type: 'checkboxes', initial_options: [{ value: 'true' }] });
    const update = byId(inputs('update_network'), 'dhcp_enabled');
    expect(update?.element).toMatchObject({ type: 'static_select' });
    expect(update?.element.initial_option).toBeUndefined();
  });

  it('turns a submission into raw arguments: empty fields left out, ticks as booleans, lists split', () => {
    const args = formArguments(registry.argumentsOf('create_firewall_zone'), {
      name: { value: { type: 'plain_text_input', value: ' Cameras ' } },
      description: { value: { type: 'plain_text_input', value: '' } },
      network_ids: { value: { type: 'plain_text_input', value: 'IoT\nCameras, Guest\n\n' } },
    });
    expect(args).toEqual({ name: 'Cameras', network_ids: ['IoT', 'Cameras', 'Guest'] });
    const ticks = formArguments(registry.argumentsOf('create_network'), {
      dhcp_enabled: { value: { type: 'checkboxes', selected_options: [] } },
      purpose: { value: { type: 'static_select', selected_option: { value: 'guest' } } },
    });
    expect(ticks).toEqual({ dhcp_enabled: false, purpose: 'guest' });
  });
});
