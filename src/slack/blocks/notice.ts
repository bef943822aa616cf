import type { types } from '@slack/bolt';
import { codeSections, type SlackMessage } from './read-result.js';
import { clip } from './text.js';

/** A short message: one section of mrkdwn text (already escaped by the caller). */
export function noticeMessage(text: string): SlackMessage {
  return {
    text: clip(text, 3000),
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: clip(text, 2900) } }],
  };
}

/** `/net help <tool>`: one tool's generated help (arguments, bounds, defaults, an example), as fixed-width text. */
export function toolHelpMessage(tool: string, helpText: string): SlackMessage {
  const intro =
    `*/net ${tool} key=value …* (values: bare words, \`"quoted text"\`, \`a,b,c\` lists, \`true\`/\`false\`). ` +
    '`/net help` lists every tool.';
  const blocks: types.KnownBlock[] = [{ type: 'section', text: { type: 'mrkdwn', text: intro } }];
  blocks.push(...codeSections(helpText, { blocks: 40, chars: 11_000 }).blocks);
  return { text: `netops help: ${tool}`, blocks };
}

/** `/net help`: the generated tool list and the shortcuts, as aligned text. */
export function helpMessage(helpText: string, aliasText: string): SlackMessage {
  const intro =
    '*/net <tool> key=value …* runs any tool (`site_id` defaults to the configured site). ' +
    'Reads answer only you; writes post a preview here with *Approve*/*Cancel*. ' +
    '`/net help <tool>` explains one tool; `/net form <tool>` opens a form. Values: bare words, `"quoted text"`, `a,b,c` lists, `true`/`false`.';
  const blocks: types.KnownBlock[] = [{ type: 'section', text: { type: 'mrkdwn', text: intro } }];
  const body = [helpText, aliasText].filter(Boolean).join('\n\n');
  blocks.push(...codeSections(body, { blocks: 40, chars: 11_000 }).blocks);
  return { text: 'netops help', blocks };
}
