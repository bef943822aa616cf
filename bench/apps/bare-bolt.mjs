// The floor of the Slack figures: a bare Bolt app in HTTP mode that only acks `/net`, with the
// bot's `/healthz` route. `/net echo` also answers through response_url, the least a read can do.
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

app.command('/net', async ({ ack, command, respond }) => {
  await ack();
  if (command.text === 'echo') await respond({ response_type: 'ephemeral', text: 'echo' });
});

await app.start(Number(process.env.PORT ?? 3000));
process.once('SIGTERM', () => {
  void app.stop().finally(() => process.exit(143));
});
