/**
 * Block Kit limits, checked on everything the bot renders. Slack rejects a message or view that
 * breaks one (`invalid_blocks`, `msg_too_long`), and the user then sees nothing at all.
 */
export const LIMITS = {
  messageBlocks: 50,
  viewBlocks: 100,
  sectionText: 3000,
  sectionFields: 10,
  fieldText: 2000,
  headerText: 150,
  contextElements: 10,
  actionsElements: 25,
  buttonText: 75,
  buttonValue: 2000,
  actionId: 255,
  blockId: 255,
  options: 100,
  optionText: 75,
  optionValue: 75,
  confirmTitle: 100,
  confirmText: 300,
  confirmButton: 30,
  viewTitle: 24,
  privateMetadata: 3000,
  callbackId: 255,
  inputLabel: 2000,
  inputHint: 2000,
  contextText: 3000,
  plainTextInputLength: 3000,
  messageText: 40_000,
  // Slack's documented per-block limits allow more, but messages past ~13k characters of block
  // text have been refused (msg_blocks_too_long); we stay under this total.
  messageBlockChars: 12_000,
} as const;

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const textOf = (v: unknown): string => (isObject(v) && typeof v.text === 'string' ? v.text : '');
const arrayOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function checkElement(element: unknown, where: string, problems: string[]): void {
  if (!isObject(element)) return;
  const type = element.type;
  const actionId = element.action_id;
  if (typeof actionId === 'string' && actionId.length > LIMITS.actionId)
    problems.push(`${where}: action_id too long`);
  if (type === 'button') {
    if (textOf(element.text).length > LIMITS.buttonText)
      problems.push(`${where}: button text over ${LIMITS.buttonText}`);
    if (typeof element.value === 'string' && element.value.length > LIMITS.buttonValue) {
      problems.push(`${where}: button value over ${LIMITS.buttonValue}`);
    }
  }
  if (type === 'number_input' && element.initial_value !== undefined) {
    // Slack refuses the whole view when a prefilled number is not a number or is out of range.
    const value = typeof element.initial_value === 'string' ? Number(element.initial_value) : Number.NaN;
    const min = element.min_value === undefined ? Number.NEGATIVE_INFINITY : Number(element.min_value);
    const max = element.max_value === undefined ? Number.POSITIVE_INFINITY : Number(element.max_value);
    if (Number.isNaN(value) || element.initial_value === '')
      problems.push(`${where}: number_input initial_value is not a number`);
    else if (value < min || value > max) problems.push(`${where}: number_input initial_value out of range`);
  }
  const options = [...arrayOf(element.options), ...arrayOf(element.initial_options)];
  if (arrayOf(element.options).length > LIMITS.options)
    problems.push(`${where}: more than ${LIMITS.options} options`);
  for (const option of [...options, element.initial_option]) {
    if (!isObject(option)) continue;
    if (textOf(option.text).length > LIMITS.optionText)
      problems.push(`${where}: option text over ${LIMITS.optionText}`);
    if (typeof option.value === 'string' && option.value.length > LIMITS.optionValue) {
      problems.push(`${where}: option value over ${LIMITS.optionValue}`);
    }
  }
  if (isObject(element.confirm)) {
    const c = element.confirm;
    if (textOf(c.title).length > LIMITS.confirmTitle) problems.push(`${where}: confirm title too long`);
    if (textOf(c.text).length > LIMITS.confirmText)
      problems.push(`${where}: confirm text over ${LIMITS.confirmText}`);
    for (const key of ['confirm', 'deny']) {
      if (textOf(c[key]).length > LIMITS.confirmButton)
        problems.push(`${where}: confirm ${key} text too long`);
    }
  }
}

function checkBlocks(blocks: unknown[], problems: string[]): number {
  const blockIds = new Set<string>();
  let chars = 0;
  blocks.forEach((block, index) => {
    const where = `block ${index}`;
    if (!isObject(block)) {
      problems.push(`${where}: not an object`);
      return;
    }
    if (typeof block.block_id === 'string') {
      if (block.block_id.length > LIMITS.blockId) problems.push(`${where}: block_id too long`);
      if (blockIds.has(block.block_id)) problems.push(`${where}: duplicate block_id ${block.block_id}`);
      blockIds.add(block.block_id);
    }
    switch (block.type) {
      case 'section': {
        const text = textOf(block.text);
        chars += text.length;
        if (text.length > LIMITS.sectionText)
          problems.push(`${where}: section text ${text.length} > ${LIMITS.sectionText}`);
        const fields = arrayOf(block.fields);
        if (!text && fields.length === 0) problems.push(`${where}: section without text or fields`);
        if (fields.length > LIMITS.sectionFields)
          problems.push(`${where}: more than ${LIMITS.sectionFields} fields`);
        for (const field of fields) {
          const t = textOf(field);
          chars += t.length;
          if (t.length > LIMITS.fieldText) problems.push(`${where}: field text over ${LIMITS.fieldText}`);
        }
        checkElement(block.accessory, where, problems);
        break;
      }
      case 'header': {
        const text = textOf(block.text);
        chars += text.length;
        if (text.length > LIMITS.headerText) problems.push(`${where}: header over ${LIMITS.headerText}`);
        break;
      }
      case 'context': {
        const elements = arrayOf(block.elements);
        if (elements.length > LIMITS.contextElements)
          problems.push(`${where}: more than ${LIMITS.contextElements} elements`);
        for (const e of elements) chars += textOf(e).length;
        break;
      }
      case 'actions': {
        const elements = arrayOf(block.elements);
        if (elements.length > LIMITS.actionsElements)
          problems.push(`${where}: more than ${LIMITS.actionsElements} elements`);
        const ids = new Set<string>();
        for (const e of elements) {
          checkElement(e, where, problems);
          const id = isObject(e) ? e.action_id : undefined;
          if (typeof id === 'string') {
            if (ids.has(id)) problems.push(`${where}: duplicate action_id ${id}`);
            ids.add(id);
          }
        }
        break;
      }
      case 'input': {
        if (textOf(block.label).length > LIMITS.inputLabel) problems.push(`${where}: input label too long`);
        if (textOf(block.hint).length > LIMITS.inputHint) problems.push(`${where}: input hint too long`);
        if (typeof block.block_id !== 'string') problems.push(`${where}: input without block_id`);
        checkElement(block.element, where, problems);
        break;
      }
      default:
        break;
    }
  });
  return chars;
}

/** Every broken limit of a message (`{text, blocks}`), empty when it is fine. */
export function messageProblems(message: { text?: unknown; blocks?: unknown }): string[] {
  const problems: string[] = [];
  const blocks = arrayOf(message.blocks);
  if (blocks.length > LIMITS.messageBlocks)
    problems.push(`${blocks.length} blocks > ${LIMITS.messageBlocks}`);
  if (typeof message.text !== 'string' || message.text.length === 0) problems.push('no fallback text');
  else if (message.text.length > LIMITS.messageText) problems.push('fallback text too long');
  const chars = checkBlocks(blocks, problems);
  if (chars > LIMITS.messageBlockChars)
    problems.push(`${chars} characters of block text > ${LIMITS.messageBlockChars}`);
  return problems;
}

/** Every broken limit of a modal view, empty when it is fine. */
export function viewProblems(view: unknown): string[] {
  const problems: string[] = [];
  if (!isObject(view)) return ['view is not an object'];
  const blocks = arrayOf(view.blocks);
  if (blocks.length > LIMITS.viewBlocks) problems.push(`${blocks.length} blocks > ${LIMITS.viewBlocks}`);
  for (const key of ['title', 'submit', 'close']) {
    if (textOf(view[key]).length > LIMITS.viewTitle) problems.push(`view ${key} over ${LIMITS.viewTitle}`);
  }
  if (typeof view.private_metadata === 'string' && view.private_metadata.length > LIMITS.privateMetadata) {
    problems.push('private_metadata too long');
  }
  if (typeof view.callback_id === 'string' && view.callback_id.length > LIMITS.callbackId) {
    problems.push('callback_id too long');
  }
  checkBlocks(blocks, problems);
  return problems;
}
