import type { types } from '@slack/bolt';
import { canonicalJson } from '../../approvals/canonical.js';
import { aliasHelpText, resolveCommand } from '../../commands/aliases.js';
import { HISTORY_HELP } from '../../commands/history.js';
import type { ParsedCommand } from '../../commands/parse-command-line.js';
import { parsePlan, planOptions } from '../../commands/plan.js';
import { type Intent, routeLine } from '../../commands/router.js';
import type { FieldIssue } from '../../errors.js';
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
import { breakGlassCommand } from './break-glass.js';
import { allowRolloutSite, scopePlanToChannel, scopeToChannel } from './channel-scope.js';
import { channelConsole, formInputsOf } from './form-inputs.js';

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
  const routed = await routeLine(command.text, {
    face: 'slack',
    registry,
    gateway: deps.context.gateway,
    digest: deps.watch !== undefined,
    // The channel's console decides what a shortcut means there (its firewall generation).
    scope: (tool, args) => scopeToChannel(tool, args, command.channel_id, deps),
  });
  // A channel bound to a console (CONSOLES_FILE) runs its calls there, and its writes nowhere else.
  const intent =
    'tool' in routed.intent && 'args' in routed.intent && typeof routed.intent.tool === 'string'
      ? {
          ...routed.intent,
          args: scopeToChannel(routed.intent.tool, routed.intent.args, command.channel_id, deps),
        }
      : routed.intent;
  const requester = { userId: command.user_id, ...(command.user_name ? { name: command.user_name } : {}) };
  switch (intent.kind) {
    case 'plan':
      return plan(intent, command, client, deps, requester);
    case 'rollout':
      return rollout(intent, command, deps, requester);
    case 'help':
      if (intent.tool === undefined) {
        return reply(helpMessage(registry.helpText(), `${aliasHelpText(registry)}\n\n${HISTORY_HELP}`));
      }
      return reply(toolHelpMessage(intent.tool, registry.toolHelp(intent.tool)));
    case 'form':
      return openForm(client, command, deps, intent.tool, intent.args);
    case 'picture':
      return uploadPicture(command, client, deps, intent.command);
    case 'digest':
      await deps.watch?.postDigest(command.channel_id);
      return reply(noticeMessage('Digest posted in this channel.'));
    case 'history':
      return reply(await historyMessage(intent.command, command.user_id, deps));
    case 'revert': {
      const input = { changeId: intent.changeId, requester, channel: command.channel_id };
      return deps.presenter.postProposal(await deps.approvals.proposeRevert(input), command.channel_id);
    }
    case 'read':
      return read(intent, command, reply, client, deps, reads);
    case 'dry_run': {
      const validated = registry.validate(intent.tool, intent.args);
      const preview = await registry.run(intent.tool, validated, deps.context);
      return reply(readResultMessage(intent.tool, String(validated.site_id), preview));
    }
    case 'write':
    case 'keep':
      return write(intent, command, client, deps, requester);
    case 'breakglass':
      return breakGlassCommand(intent, command, deps, requester, reply);
    default:
      // The console's own words (quit, clear, usage): the Slack face never routes to them.
      throw new Error(`no Slack answer for ${intent.kind}`);
  }
}

type Requester = { userId: string; name?: string };

/** `/net plan` alone opens a modal (one write per line); with lines, they are the set proposed. */
async function plan(
  intent: Extract<Intent, { kind: 'plan' }>,
  command: SlashCommand,
  client: SlackClient,
  deps: SlackDeps,
  requester: Requester,
): Promise<void> {
  if (intent.lines.every((line) => line.trim() === '')) {
    await openView(client, command, planFormView(command.channel_id));
    return;
  }
  const set = await deps.approvals.proposeSet({
    steps: scopePlanToChannel(parsePlan(intent.lines.join('\n'), deps.registry), command.channel_id, deps),
    ...planOptions(intent.options),
    requester,
    channel: command.channel_id,
  });
  await deps.presenter.postProposal(set, command.channel_id);
}

// Deliberately alike: every /net intent has a handler of this shape, taking its own intent variant.
/** `/net rollout …`: the write (or the plan on the lines after it) proposed across the sites named. */
async function rollout(
  intent: Extract<Intent, { kind: 'rollout' }>,
  command: SlashCommand,
  deps: SlackDeps,
  requester: Requester,
): Promise<void> {
  const { what, options } = intent;
  const steps =
    what.kind === 'write'
      ? [{ tool: what.tool, args: what.args }]
      : parsePlan(what.lines.join('\n'), deps.registry).map(({ tool, args }) => ({ tool, args }));
  const request = await deps.approvals.proposeRollout({
    steps,
    sites: options.sites,
    ...(options.waves !== undefined ? { waves: options.waves } : {}),
    ...(options.soak !== undefined ? { soak: options.soak } : {}),
    ...(options.title !== undefined ? { title: options.title } : {}),
    requester,
    channel: command.channel_id,
    allowSite: (site) => allowRolloutSite(site, command.channel_id, deps),
  });
  await deps.presenter.postProposal(request, command.channel_id);
}

/** A read, answered privately; an export or the top chart also goes into the channel as a file. */
async function read(
  intent: Extract<Intent, { kind: 'read' }>,
  command: SlashCommand,
  reply: Reply,
  client: SlackClient,
  deps: SlackDeps,
  reads: SharedWork<SlackMessage>,
): Promise<void> {
  const { tool, args, ids } = intent;
  const { registry } = deps;
  const validated = registry.validate(tool, args);
  const view = { identifiers: registry.require(tool).identifierColumns ?? [], ids };
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
  const message = await reads.run(`${tool} ${canonicalJson(validated)}${ids ? ' ids' : ''}`, async () =>
    readResultMessage(tool, site, await registry.run(tool, validated, deps.context), { tool, args }, view),
  );
  await reply(message);
}

/**
 * A write proposed for approval. Values missing (required by the schema, or by the other
 * arguments such as a subnet unless vlan-only) are asked for in the form, prefilled with what was
 * typed; other errors are told.
 */
async function write(
  intent: { tool: string; args: Record<string, unknown> },
  command: SlashCommand,
  client: SlackClient,
  deps: SlackDeps,
  requester: Requester,
): Promise<void> {
  const { tool, args } = intent;
  const proposal = await settle(
    deps.approvals.propose({ tool, args, requester, channel: command.channel_id }),
  );
  if (proposal.ok) {
    await deps.presenter.postProposal(proposal.value, command.channel_id);
    return;
  }
  const missing = missingValueIssues(proposal.error);
  if (!missing) throw proposal.error;
  await openForm(client, command, deps, tool, args, missing);
}

/** views.open on the command's trigger; what Slack refuses is told as a form that could not open. */
async function openView(client: SlackClient, command: SlashCommand, view: types.View): Promise<void> {
  try {
    await client.views.open({ trigger_id: command.trigger_id, view });
  } catch (error) {
    throw new SlackStepError('open_form', command.channel_id, error);
  }
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
  const site = typed.site !== undefined && typed.site_id === undefined ? { site_id: typed.site } : {};
  const bound = channelConsole(deps, command.channel_id);
  const prefill = { ...(bound ? { console: bound } : {}), ...typed, ...site };
  const metadata = { tool, channel: command.channel_id };
  const view = toolFormView(tool, formInputsOf(deps, tool), prefill, metadata, {
    site: deps.defaultSite,
    missing,
  });
  await openView(client, command, view);
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
