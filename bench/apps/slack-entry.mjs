// Stand-in for `node dist/main.js` in Slack HTTP mode, used only while the built entry point
// refuses SLACK_BOT_TOKEN (issue 8). It does what main.ts's Slack path does, over the same dist
// modules, and imports everything main.ts imports so start-up loads the same code. Delete it once
// dist/main.js starts the Slack bot (bench/lib/processes.ts then stops choosing it).
import { createApp } from '../../dist/app.js';
import { loadConfig } from '../../dist/config.js';
import '../../dist/console/index.js';
import '../../dist/errors.js';
import { createGateway, gatewayOptionsFromConfig } from '../../dist/gateway/index.js';
import { createLogger } from '../../dist/log.js';

const config = loadConfig();
const logger = createLogger(config.logLevel);
const app = createApp({
  config,
  logger,
  gateway: createGateway(gatewayOptionsFromConfig(config, logger)),
});
if (!app.slack) {
  process.stderr.write('slack-entry: SLACK_BOT_TOKEN is not set\n');
  process.exit(2);
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    void app.close().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });
}
const { port, mode } = await app.slack.start();
logger.info({ mode, port }, `listening on port ${port}: POST /slack/events, GET /healthz`);
