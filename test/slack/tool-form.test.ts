import { describe, expect, it } from 'vitest';
import { viewProblems } from '../../src/slack/blocks/limits.js';
import { formArguments, type ToolFormOptions, toolFormView } from '../../src/slack/blocks/tool-form.js';
import { missingValue } from '../../src/tools/core/missing-values.js';
import { createRegistry } from '../../src/tools/index.js';

const registry = createRegistry('default');

type Input = { type: string; block_id: string; optional: boolean; element: Record<string, unknown> };
const inputs = (tool: string, prefill: Record<string, unknown> = {}, options: ToolFormOptions = {}) =>
  toolFormView(tool, registry.argumentsOf(tool), prefill, { tool, channel: 'C1' }, options).blocks.filter(
    (b): b is Input & typeof b => b.type === 'input',
  ) as unknown as Input[];
const byId = (list: Input[], id: string) => list.find((i) => i.block_id === id);

describe('tool forms generated from the zod schemas', () => {
  it('fits Slack limits for every tool, empty and with every argument flagged missing', () => {
    for (const tool of registry.list()) {
      const args = registry.argumentsOf(tool.name);
      const metadata = { tool: tool.name, channel: 'C1' };
      const missing = args.map((a) => missingValue(a.name, `is required when ${'x'.repeat(300)}`));
      expect(viewProblems(toolFormView(tool.name, args, {}, metadata)), tool.name).toEqual([]);
      expect(
        viewProblems(toolFormView(tool.name, args, {}, metadata, { site: 'default', missing })),
        tool.name,
      ).toEqual([]);
    }
  });

  it('shows enum choices as options, bounds on number inputs, and bounds and defaults as hints', () => {
    const form = inputs('create_network', {}, { site: 'hq' });
    const hint = (id: string) => (byId(form, id) as { hint?: { text: string } } | undefined)?.hint?.text;
    expect(byId(form, 'vlan_id')?.element).toMatchObject({
      type: 'number_input',
      min_value: '1',
      max_value: '4094',
    });
    expect(hint('vlan_id')).toBe('VLAN tag, 1–4094 · Whole number 1–4094');
    const purpose = byId(form, 'purpose')?.element.options as { value: string }[];
    // wan is in the enum (the spec names it) but always refused: not offered.
    expect(purpose.map((o) => o.value)).toEqual(['corporate', 'guest', 'vlan-only']);
    expect(hint('purpose')).toBe(
      'What the network is for: corporate (a LAN), guest (isolated) or vlan-only (a tag, no subnet or DHCP) · Default: corporate',
    );
    expect(byId(form, 'name')?.element).toMatchObject({ type: 'plain_text_input', max_length: 128 });
    expect(hint('name')).toBe('Network name · Text, at most 128 characters');
    expect(hint('site_id')).toBe('Site name (defaults to DEFAULT_SITE) · Default: hq');
    // A bounded number with a default: both limits on the input, the default as its initial value.
    const priority = byId(inputs('create_acl_rule'), 'priority') as
      | (Input & { hint?: { text: string } })
      | undefined;
    expect(priority?.element).toMatchObject({
      type: 'number_input',
      is_decimal_allowed: false,
      min_value: '1',
      max_value: '10000',
      initial_value: '100',
    });
    expect(priority?.hint?.text).toContain('Whole number 1–10000 · Default: 100');
    // rule_index depends on the ruleset (one block per family) and defaults to the next free index
    // at run time: no fixed bounds or initial value, and the hint says so.
    const rule = byId(inputs('create_firewall_rule'), 'rule_index') as
      | (Input & { hint?: { text: string } })
      | undefined;
    expect(rule?.optional).toBe(true);
    expect(rule?.element).toMatchObject({ type: 'number_input', is_decimal_allowed: false });
    expect(rule?.element).not.toHaveProperty('min_value');
    expect(rule?.element).not.toHaveProperty('max_value');
    expect(rule?.element).not.toHaveProperty('initial_value');
    expect(rule?.hint?.text).toContain('LAN 20000s, WAN 30000s, GUEST 40000s');
    expect(rule?.hint?.text).toContain("default: after the ruleset's last rule");
    const ruleset = byId(inputs('create_firewall_rule'), 'ruleset')?.element as {
      options: { value: string }[];
      initial_option?: { value: string };
    };
    expect(ruleset.options.map((o) => o.value)).toContain('WAN_IN');
    expect(ruleset.initial_option?.value).toBe('WAN_IN');
    const items = byId(inputs('create_traffic_matching_list'), 'items') as
      | { hint?: { text: string } }
      | undefined;
    expect(items?.hint?.text).toContain('List a,b,c, at least 1 items');
  });

  it('flags the values the bot found missing, at the top and under their inputs', () => {
    const view = toolFormView(
      'create_network',
      registry.argumentsOf('create_network'),
      { name: 'Lab', vlan_id: '91' },
      {
        tool: 'create_network',
        channel: 'C1',
      },
      { missing: [missingValue('subnet', 'is required unless purpose is vlan-only')] },
    );
    const context = view.blocks[0] as { elements: { text: string }[] };
    expect(context.elements[0]?.text).toContain(
      '*Still needed:* `subnet` (is required unless purpose is vlan-only)',
    );
    const subnet = view.blocks.find((b) => b.block_id === 'subnet') as {
      hint?: { text: string };
      optional?: boolean;
    };
    expect(subnet.hint?.text).toMatch(
      /^Missing: subnet is required unless purpose is vlan-only\. Subnet, e\.g\./,
    );
    // Still optional in Slack's eyes: with purpose vlan-only it must stay empty.
    expect(subnet.optional).toBe(true);
    const name = view.blocks.find((b) => b.block_id === 'name') as { hint?: { text: string } };
    expect(name.hint?.text).not.toContain('Missing');
  });

  it('has the limits checker catch a hint over 2000 characters and a prefilled number out of range', () => {
    const input = (hint: string, element: Record<string, unknown>) => ({
      type: 'modal',
      title: { type: 'plain_text', text: 'T' },
      blocks: [
        {
          type: 'input',
          block_id: 'n',
          label: { type: 'plain_text', text: 'n' },
          hint: { type: 'plain_text', text: hint },
          element,
        },
      ],
    });
    const number = (initial: string) => ({
      type: 'number_input',
      action_id: 'value',
      min_value: '1',
      max_value: '4094',
      initial_value: initial,
    });
    expect(viewProblems(input('ok', number('91')))).toEqual([]);
    expect(viewProblems(input('x'.repeat(2001), number('91')))).toEqual(['block 0: input hint too long']);
    expect(viewProblems(input('ok', number('5000')))).toEqual([
      'block 0: number_input initial_value out of range',
    ]);
    expect(viewProblems(input('ok', number('abc')))).toEqual([
      'block 0: number_input initial_value is not a number',
    ]);
  });

  it('prefills only numbers Slack accepts: numeric text within the input range', () => {
    expect(byId(inputs('create_network', { vlan_id: '91' }), 'vlan_id')?.element.initial_value).toBe('91');
    expect(
      byId(inputs('create_network', { vlan_id: 'abc' }), 'vlan_id')?.element.initial_value,
    ).toBeUndefined();
    expect(
      byId(inputs('create_network', { vlan_id: '5000' }), 'vlan_id')?.element.initial_value,
    ).toBeUndefined();
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
    expect(purposeOptions.map((o) => o.value)).toEqual(['corporate', 'guest', 'vlan-only']);
    const zone = inputs('create_firewall_zone');
    expect(byId(zone, 'network_ids')?.element).toMatchObject({ type: 'plain_text_input', multiline: true });
  });

  it('leaves out of selects the values a tool always refuses (help says why)', () => {
    const values = (tool: string, id: string) =>
      ((byId(inputs(tool), id)?.element.options ?? []) as { value: string }[]).map((o) => o.value);
    expect(values('update_network', 'purpose')).toEqual(['corporate', 'guest', 'vlan-only']);
    expect(values('create_acl_rule', 'protocol')).toEqual(['tcp', 'udp', 'tcp_udp', 'all']);
    expect(values('update_acl_rule', 'protocol')).toEqual(['tcp', 'udp', 'tcp_udp', 'all']);
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
