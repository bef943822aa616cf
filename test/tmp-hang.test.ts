import { createServer } from 'node:http';
import { it } from 'vitest';
import { startSlackBot } from './helpers/slack-bot.js';

it('hang', async () => {
  const server = createServer(() => {});
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  for (const tool of ['list_vlans', 'list_traffic_routes', 'list_acl_rules']) {
  const bot = await startSlackBot({ gateway: { url: `http://127.0.0.1:${port}` } });
  void bot.app.context.gateway.warmUp('default');
  const t0 = Date.now();
  const { responseUrl } = await bot.command(tool);
  await bot.slack.waitFor(() => bot.slack.responses.some((r) => responseUrl.endsWith(r.path)), 30000);
  console.log(tool, Date.now() - t0, JSON.stringify(bot.slack.responses.find((r) => responseUrl.endsWith(r.path))?.body?.text));
  await bot.close();
  }
  server.closeAllConnections(); server.close();
}, 60000);
