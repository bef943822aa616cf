import type { types } from '@slack/bolt';
import { codeSections, type SlackMessage } from './read-result.js';
import { clipMrkdwn, mrkdwn, mrkdwnSection } from './text.js';

/** A short message: one section of composed mrkdwn (raw parts escaped by the caller, in text.ts). */
export function noticeMessage(composed: string): SlackMessage {
  return { text: clipMrkdwn(composed, 3000), blocks: [mrkdwnSection(composed, 2900)] };
}

/** `/net help <tool>`: one tool's generated help (arguments, bounds, defaults, an example), as fixed-width text. */
export function toolHelpMessage(tool: string, helpText: string): SlackMessage {
  const intro =
    `*/net ${mrkdwn(tool)} key=value …* (values: bare words, \`"quoted text"\`, \`a,b,c\` lists, \`true\`/\`false\`). ` +
    '`/net help` lists every tool.';
  const blocks: types.KnownBlock[] = [mrkdwnSection(intro)];
  blocks.push(...codeSections(helpText, { blocks: 40, chars: 11_000 }).blocks);
  return { text: `netops help: ${mrkdwn(tool)}`, blocks };
}

/** `/net help`: the generated tool list and the shortcuts, as aligned text. */
export function helpMessage(helpText: string, aliasText: string): SlackMessage {
  const intro =
    '*/net &lt;tool&gt; key=value …* runs any tool (`site_id` defaults to the configured site). ' +
    'Reads answer only you; writes post a preview here with *Approve*/*Cancel*. ' +
    '`/net help &lt;tool&gt;` explains one tool; `/net form &lt;tool&gt;` opens a form. Values: bare words, `"quoted text"`, `a,b,c` lists, `true`/`false`.';
  const blocks: types.KnownBlock[] = [mrkdwnSection(intro)];
  const body = [helpText, aliasText].filter(Boolean).join('\n\n');
  blocks.push(...codeSections(body, { blocks: 40, chars: 11_000 }).blocks);
  return { text: 'netops help', blocks };
}
