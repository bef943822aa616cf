import { join } from 'node:path';
import type { Config } from './config.js';
import type { Gateway } from './gateway/types.js';
import { JsonFileStore, type KeyValueStore } from './lib/json-file-store.js';
import type { Logger } from './log.js';
import type { ToolContext } from './tools/define-tool.js';
import { createRegistry } from './tools/index.js';
import type { ToolRegistry } from './tools/registry.js';

/** Everything the app is built from; tests inject the simulator's gateway and a fake Slack. */
export interface AppDeps {
  config: Config;
  logger: Logger;
  gateway: Gateway;
  /** Bot-kept data; defaults to `DATA_DIR/bot-data.json`. */
  store?: KeyValueStore;
}

/** The assembled bot, independent of which front end drives it. */
export interface App {
  registry: ToolRegistry;
  context: ToolContext;
  close(): Promise<void>;
}

/** Builds the bot from injected parts; `main.ts` only wires real ones in. */
export function createApp(deps: AppDeps): App {
  const registry = createRegistry(deps.config.defaultSite);
  const store = deps.store ?? new JsonFileStore(join(deps.config.dataDir, 'bot-data.json'));
  const context: ToolContext = { gateway: deps.gateway, logger: deps.logger, store };
  return {
    registry,
    context,
    async close() {
      await deps.gateway.close();
    },
  };
}
