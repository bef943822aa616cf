/**
 * A second process on a DATA_DIR (run bundled, test/helpers/script-process.ts): opens the file
 * store and records `count` changes (created, approved, executing, succeeded), as a console run
 * beside the bot does. Usage: journal-writer.ts <dataDir> <label> <count> [go]: with `go` it says
 * "ready" once its store is open and starts appending at the first line on its stdin, so two
 * writers let go together really append at the same moment.
 */
import { once } from 'node:events';
import type { ChangeRequest } from '../../src/model/change-request.js';
import { FileStore } from '../../src/store/file/file-store.js';

const [dataDir = '', label = 'w', countText = '1', start = ''] = process.argv.slice(2);
const store = new FileStore(dataDir);
if (start === 'go') {
  process.stdout.write('ready\n');
  await once(process.stdin, 'data');
}
const changes = store.changes();
const actor = { userId: `console:${label}` };
for (let n = 0; n < Number(countText); n++) {
  const now = Date.now();
  const id = `cr_${label}${String(n).padStart(17, 'a')}`;
  const request: ChangeRequest = {
    id,
    tool: 'create_network',
    site: 'default',
    args: { site_id: 'default', name: `${label}${n}` },
    requester: actor,
    preview: { dry_run: true },
    previewHash: 'a'.repeat(64),
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + 900_000).toISOString(),
    state: 'pending',
  };
  await changes.create(request, actor, now);
  const steps = [
    { type: 'approved', id, actor, previewHash: 'a'.repeat(64) },
    { type: 'executing', id, actor },
    { type: 'succeeded', id, actor, result: { ok: n } },
  ] as const;
  const from = [['pending'], ['approved'], ['executing']] as const;
  for (const [i, step] of steps.entries()) {
    const done = await changes.transition(id, step, { from: from[i] ?? [], at: Date.now() });
    if (!done) throw new Error(`${label}: step ${step.type} of ${id} did not happen`);
  }
}
await store.close();
process.stdout.write(`${label} done\n`);
