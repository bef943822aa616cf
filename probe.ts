import { resolveCommand } from './src/commands/aliases.js';
import { parseCommandLine } from './src/commands/parse-command-line.js';
import { startTestBot } from './test/helpers/test-bot.js';

const bot = await startTestBot();
const reg = bot.app.registry;
for (const t of reg.list()) {
  const line = `${t.name} ${t.example ?? ''}`;
  try {
    const c = resolveCommand(parseCommandLine(line), reg);
    const args = t.access === 'write' ? { ...c.args, dry_run: true } : c.args;
    const r = await reg.run(c.tool, args, bot.app.context);
    console.log('OK  ', line, JSON.stringify(r).slice(0, 150));
  } catch (e) {
    console.log('FAIL', line, (e as Error).message);
  }
}
await bot.close();
