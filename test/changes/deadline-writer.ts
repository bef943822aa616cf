/**
 * A second process on a DATA_DIR (run bundled, test/helpers/script-process.ts): schedules `count`
 * deadlines far in the future, as a console run beside the bot does. It says "ready" once its store
 * is open and starts at the first line on its stdin, so it really writes while the bot compacts.
 * Usage: deadline-writer.ts <dataDir> <label> <count> go.
 */
import { once } from 'node:events';
import { FileDeadlineStore } from '../../src/store/file/deadline-file.js';

const [dataDir = '', label = 'w', countText = '1'] = process.argv.slice(2);
const store = new FileDeadlineStore(dataDir);
process.stdout.write('ready\n');
await once(process.stdin, 'data');
for (let n = 0; n < Number(countText); n++) {
  const now = Date.now();
  await store.schedule({ kind: 'temporary', changeId: `cr_${label}${n}`, dueAt: now + 3_600_000, at: now });
}
