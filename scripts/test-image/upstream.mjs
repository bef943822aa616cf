// Stand-ins for what the bot talks to, in a container of the image under test (npm run test:image):
// a fake Slack Web API on :8080 (auth.test answers with a bot identity, every other method ok) and
// the built-in controller simulator on :8443 (it listens on loopback only, so a TCP relay exposes it).
import { createServer } from 'node:http';
import { connect, createServer as createTcpServer } from 'node:net';
import { startSimulator } from '/app/dist/simulator/index.js';

const simulator = await startSimulator({});
const simulatorPort = Number(new URL(simulator.url).port);
createTcpServer((client) => {
  const upstream = connect(simulatorPort, '127.0.0.1');
  client.pipe(upstream).pipe(client);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
}).listen(8443, '0.0.0.0');

createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const method = (req.url ?? '').split('?')[0].split('/').pop();
    const body =
      method === 'auth.test'
        ? {
            ok: true,
            user_id: 'UNETOPSBOT',
            bot_id: 'BNETOPSBOT',
            team_id: 'TIMAGETEST',
            url: 'https://image-test.slack.com/',
          }
        : { ok: true };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
}).listen(8080, '0.0.0.0', () => {
  process.stdout.write(`fake Slack on :8080, simulator (API key ${simulator.apiKey}) on :8443\n`);
});
process.once('SIGTERM', () => process.exit(0));
