// The floor of the Slack figures: a bare Bolt app in HTTP mode that only acks `/net`, with the
// bot's `/healthz` route. `/net echo` also answers through response_url, the least a read can do.
// With ANSWER_AFTER_MS set it answers every command through response_url that long after its ack
// (a second floor: the least an app that answers every command does, no controller work).
// Plain JavaScript so it runs under `node` exactly as dist/main.js does.
import { App, LogLevel } from '@slack/bolt';

const apiUrl = process.env.SLACK_API_URL;
const app = new App({
  token: process.env.SLACK_BOT_TOKEN,
  signingSecret: process.env.SLACK_SIGNING_SECRET ?? '',
  logLevel: LogLevel.ERROR,
  ...(apiUrl ? { clientOptions: { slackApiUrl: `${apiUrl}/` } } : {}),
  customRoutes: [
    {
      path: '/healthz',
      method: ['GET'],
      handler: (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"status":"ok"}');
      },
    },
  ],
});

const answerAfter =
  process.env.ANSWER_AFTER_MS === undefined ? undefined : Number(process.env.ANSWER_AFTER_MS);
// About the size of the bot's list_vlans answer: a title and a table in a code block.
const table = Array.from(
  { length: 8 },
  (_, i) => `network-${i}    ${10 + i}    10.${i}.0.1/24    corporate`,
).join('\n');

app.command('/net', async ({ ack, command, respond }) => {
  await ack();
  if (command.text === 'echo') await respond({ response_type: 'ephemeral', text: 'echo' });
  else if (answerAfter !== undefined) {
    await new Promise((resolve) => setTimeout(resolve, answerAfter));
    await respond({
      response_type: 'ephemeral',
      replace_original: false,
      text: 'List vlans: 8 row(s)',
      blocks: [
        { type: 'context', elements: [{ type: 'mrkdwn', text: '*List vlans* · site `default`' }] },
        { type: 'section', text: { type: 'mrkdwn', text: `\`\`\`\n${table}\n\`\`\`` } },
      ],
    });
  }
});

await app.start(Number(process.env.PORT ?? 3000));
process.once('SIGTERM', () => {
  void app.stop().finally(() => process.exit(143));
});
