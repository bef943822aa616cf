import { canonicalJson } from '../../approvals/canonical.js';
import { HISTORY_HELP, isHistoryCommand, isRevertCommand, revertChangeId } from '../../approvals/history.js';
import {
  aliasHelpText,
  helpTopicTool,
  isPictureAlias,
  resolveCommand,
  resolveCommandOnSite,
} from '../../commands/aliases.js';
import { type ParsedCommand, parseCommandLine } from '../../commands/parse-command-line.js';
import { parsePlan, planOptions } from '../../commands/plan.js';
import { type FieldIssue, ValidationError } from '../../errors.js';
import { settle } from '../../lib/settle-within.js';
import type { TopClientsAnswer } from '../../tools/clients/top-clients.js';
import { missingValueIssues } from '../../tools/core/missing-values.js';
import { isTopology, renderTopologyPng } from '../../topology/index.js';
import { AnswerQueue, SharedWork } from '../answer-work.js';
import { helpMessage, noticeMessage, toolHelpMessage } from '../blocks/notice.js';
import { planFormView } from '../blocks/plan-form.js';
import { readResultMessage, type SlackMessage } from '../blocks/read-result.js';
import { code, mention, plain } from '../blocks/text.js';
import { toolFormView } from '../blocks/tool-form.js';
import type { SlackClient, SlackDeps } from '../deps.js';
import { SlackStepError, slackErrorText } from '../error-text.js';
import { historyMessage } from '../history-answer.js';
import { parsePayload, type SlashCommand, slashCommandSchema } from '../payloads.js';
import { answerPrivately } from '../private-answer.js';
import { type Respond, respondTo } from '../response-url.js';
import type { SlackRoutes } from '../slack-routes.js';
import { topClientsChartPng } from '../top-chart.js';

const EXPORT_TOOL = 'export_topology';
const TOP_TOOL = 'top_clients';

/** Answers the user who typed the command, and only them. */
type Whisper = (message: SlackMessage) => Promise<void>;

/** Through the command's response_url, or chat.postEphemeral in its channel when that fails. */
function whisperTo(
  respond: Respond | undefined,
  client: SlackClient,
  command: SlashCommand | undefined,
  deps: SlackDeps,
): Whisper {
  return (message) =>
    answerPrivately(
      { respond, client, channel: command?.channel_id, user: command?.user_id ?? '', logger: deps.logger },
      message,
    );
}

/** Posts one private answer to the command's response_url (through the answer queue). */
type Reply = (message: SlackMessage) => Promise<void>;

/** `/net …`: acknowledged at once; then help, a read answered privately, a form, or a change request. */
export function registerNetCommand(routes: SlackRoutes, deps: SlackDeps): void {
  const answers = new AnswerQueue();
  const reads = new SharedWork<SlackMessage>();
  routes.command('/net', async ({ ack, body, client }) => {
    await ack();
    const respond = respondTo(body);
    let command: SlashCommand | undefined;
    const reply: Reply = (message) => answers.post(() => whisperTo(respond, client, command, deps)(message));
    try {
      command = parsePayload(slashCommandSchema, body, 'command');
      await handle(command, reply, client, deps, reads);
    } catch (error) {
      await reply(noticeMessage(slackErrorText(error, deps.logger)));
    }
  });
}

async function handle(
  command: SlashCommand,
  reply: Reply,
  client: SlackClient,
  deps: SlackDeps,
  reads: SharedWork<SlackMessage>,
) {
  const { registry } = deps;
  // `/net plan` and one write per following line (Slack keeps the newlines).
  const [head = '', ...lines] = command.text.split(/\r?\n/);
  const first = parseCommandLine(head);
  if (first.command === 'plan') {
    if (lines.every((line) => line.trim() === '')) {
      // `/net plan` alone: a modal with a multi-line input, one write per line.
      try {
        await client.views.open({ trigger_id: command.trigger_id, view: planFormView(command.channel_id) });
      } catch (error) {
        throw new SlackStepError('open_form', command.channel_id, error);
      }
      return;
    }
    const set = await deps.approvals.proposeSet({
      steps: parsePlan(lines.join('\n'), registry),
      ...planOptions(first.args),
      requester: { userId: command.user_id, ...(command.user_name ? { name: command.user_name } : {}) },
      channel: command.channel_id,
    });
    await deps.presenter.postProposal(set, command.channel_id);
    return;
  }
  const parsed = parseCommandLine(command.text);
  if (parsed.command === '' || parsed.command === 'help') {
    const [topic] = parsed.positionals;
    if (topic === undefined) {
      await reply(helpMessage(registry.helpText(), `${aliasHelpText(registry)}\n\n${HISTORY_HELP}`));
      return;
    }
    const tool = helpTopicTool(topic, registry);
    await reply(toolHelpMessage(tool, registry.toolHelp(tool)));
    return;
  }
  if (parsed.command === 'form') {
    const [tool] = parsed.positionals;
    if (!tool || registry.require(tool).access !== 'write') {
      throw new ValidationError([
        { field: 'tool', rule: '"/net form <tool>" opens a form for a write tool' },
      ]);
    }
    await openForm(client, command, deps, tool, parsed.args);
    return;
  }
  if (isPictureAlias(parsed.command)) {
    await uploadPicture(command, client, deps, parsed);
    return;
  }
  // The digest, posted in this channel now.
  if (parsed.command === 'digest' && deps.watch && parsed.positionals.length === 0) {
    await deps.watch.postDigest(command.channel_id);
    await reply(noticeMessage('Digest posted in this channel.'));
    return;
  }
  if (isHistoryCommand(parsed.command)) {
    await reply(await historyMessage(parsed, command.user_id, deps));
    return;
  }
  if (isRevertCommand(parsed.command)) {
    const revert = await deps.approvals.proposeRevert({
      changeId: revertChangeId(parsed),
      requester: { userId: command.user_id, ...(command.user_name ? { name: command.user_name } : {}) },
      channel: command.channel_id,
    });
    await deps.presenter.postProposal(revert, command.channel_id);
    return;
  }
  const asked = idsAsked(parsed);
  const resolved = await resolveCommandOnSite(asked.parsed, registry, deps.context.gateway);
  // `ids` is a word of reads only: a write keeps its words as typed (and refuses a stray one).
  const { tool, args } =
    registry.require(resolved.tool).access === 'read' || !asked.ids
      ? resolved
      : await resolveCommandOnSite(parsed, registry, deps.context.gateway);
  const definition = registry.require(tool);
  if (definition.access === 'read') {
    const validated = registry.validate(tool, args);
    const view = { identifiers: definition.identifierColumns ?? [], ids: asked.ids };
    const site = String(validated.site_id ?? deps.defaultSite);
    if (tool === EXPORT_TOOL) {
      const result = await registry.run(tool, validated, deps.context);
      if (typeof result !== 'string') return reply(readResultMessage(tool, site, result, undefined, view));
      await upload(client, command.channel_id, {
        content: result,
        filename: plain(`topology-${site}.${String(validated.format)}`),
        title: plain(`Topology of ${site} (${String(validated.format)})`),
        initial_comment: `Topology export of ${code(site)}, requested by ${mention(command.user_id)}.`,
      });
      return;
    }
    if (tool === TOP_TOOL) {
      const answer = (await registry.run(tool, validated, deps.context)) as TopClientsAnswer;
      await reply(readResultMessage(tool, site, answer, undefined, view));
      // The chart goes beside the table, as a file in the channel.
      const chart = await topClientsChartPng(answer, deps.context);
      if (chart) {
        await upload(client, command.channel_id, {
          file: Buffer.from(chart.png),
          filename: plain(`top-clients-${site}.png`),
          title: plain(`Top clients on ${site}, ${chart.subtitle}`),
          initial_comment: `Top clients of ${code(site)} over the last hour (${plain(chart.subtitle)}). Requested by ${mention(command.user_id)}.`,
        });
      }
      return;
    }
    // Identical reads in flight share one run and one message: the burst of commands that one
    // controller read releases builds its answer once, not once per command.
    const message = await reads.run(
      `${tool} ${canonicalJson(validated)}${asked.ids ? ' ids' : ''}`,
      async () =>
        readResultMessage(
          tool,
          site,
          await registry.run(tool, validated, deps.context),
          { tool, args },
          view,
        ),
    );
    await reply(message);
    return;
  }
  // The Approve button is what supplies confirm; a typed one is ignored rather than trusted.
  const { confirm: _ignored, ...request } = args;
  if (request.dry_run === true || request.dry_run === 'true') {
    const validated = registry.validate(tool, request);
    const preview = await registry.run(tool, validated, deps.context);
    await reply(readResultMessage(tool, String(validated.site_id), preview));
    return;
  }
  const proposal = await settle(
    deps.approvals.propose({
      tool,
      args: request,
      requester: { userId: command.user_id, ...(command.user_name ? { name: command.user_name } : {}) },
      channel: command.channel_id,
    }),
  );
  if (proposal.ok) {
    await deps.presenter.postProposal(proposal.value, command.channel_id);
    return;
  }
  // Values missing (required by the schema, or by the other arguments such as a subnet unless
  // vlan-only) are asked for in the form, prefilled with what was typed; other errors are told.
  const missing = missingValueIssues(proposal.error);
  if (!missing) throw proposal.error;
  await openForm(client, command, deps, tool, request, missing);
}

/**
 * `ids` (or `--ids`) as the last word of a read: show the id columns a short width leaves out.
 * Taken off before the words are read as arguments, so `/net who on IoT ids` asks about IoT.
 */
function idsAsked(parsed: ParsedCommand): { parsed: ParsedCommand; ids: boolean } {
  const last = parsed.positionals.at(-1)?.toLowerCase();
  if (last !== 'ids' && last !== '--ids') return { parsed, ids: false };
  return { parsed: { ...parsed, positionals: parsed.positionals.slice(0, -1) }, ids: true };
}

async function openForm(
  client: SlackClient,
  command: SlashCommand,
  deps: SlackDeps,
  tool: string,
  typed: Record<string, unknown>,
  missing: readonly FieldIssue[] = [],
): Promise<void> {
  // `site=` is the typed spelling of site_id; the form's input is site_id.
  const prefill =
    typed.site !== undefined && typed.site_id === undefined ? { ...typed, site_id: typed.site } : typed;
  const metadata = { tool, channel: command.channel_id };
  const view = toolFormView(tool, deps.registry.argumentsOf(tool), prefill, metadata, {
    site: deps.defaultSite,
    missing,
  });
  try {
    await client.views.open({ trigger_id: command.trigger_id, view });
  } catch (error) {
    throw new SlackStepError('open_form', command.channel_id, error);
  }
}

/** files.uploadV2 into the channel; what Slack refuses is told as a file that could not be posted. */
async function upload(
  client: SlackClient,
  channel: string,
  file: { filename: string; title: string; initial_comment: string } & (
    | { content: string }
    | { file: Buffer }
  ),
): Promise<void> {
  try {
    await client.filesUploadV2({ channel_id: channel, ...file });
  } catch (error) {
    throw new SlackStepError('upload_file', channel, error);
  }
}

/** `/net topology`: the site drawn as a PNG and uploaded into the channel. */
async function uploadPicture(
  command: SlashCommand,
  client: SlackClient,
  deps: SlackDeps,
  parsed: ParsedCommand,
) {
  const { tool, args } = resolveCommand(parsed, deps.registry);
  const validated = deps.registry.validate(tool, args);
  const site = String(validated.site_id);
  const topology = await deps.registry.run(tool, validated, deps.context);
  if (!isTopology(topology)) throw new Error(`${tool} did not return a topology`);
  const png = await renderTopologyPng(topology);
  await upload(client, command.channel_id, {
    file: Buffer.from(png),
    filename: plain(`topology-${site}.png`),
    title: plain(`Topology of ${site}`),
    initial_comment: `Topology of ${code(site)}: ${topology.total_devices} devices, ${topology.total_clients} clients. Requested by ${mention(command.user_id)}.`,
  });
}
