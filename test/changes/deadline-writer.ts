/**
 * A second process on a DATA_DIR (run with `node --import tsx`): schedules `count` deadlines far in
 * the future, as a console run beside the bot does, starting at `startAt` so it really writes
 * while the bot compacts. Usage: deadline-writer.ts <dataDir> <label> <count> <startAt ms>.
 */
import { FileDeadlineStore } from '../../src/store/file/deadline-file.js';

const [dataDir = '', label = 'w', countText = '1', startAt = '0'] = process.argv.slice(2);
const store = new FileDeadlineStore(dataDir);
await new Promise((go) => setTimeout(go, Math.max(0, Number(startAt) - Date.now())));
for (let n = 0; n < Number(countText); n++) {
  const now = Date.now();
  await store.schedule({ kind: 'temporary', changeId: `cr_${label}${n}`, dueAt: now + 3_600_000, at: now });
}
