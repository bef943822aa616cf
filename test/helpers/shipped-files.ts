import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from './bot-process.js';

/** The parts of manifest.yml the bot's wiring depends on. */
export interface Manifest {
  features: {
    slash_commands: { command: string; url?: string }[];
    app_home?: { home_tab_enabled?: boolean; messages_tab_enabled?: boolean };
  };
  oauth_config: { scopes: { bot: string[] } };
  settings: {
    interactivity: { is_enabled: boolean; request_url?: string };
    event_subscriptions?: { request_url?: string; bot_events?: string[] };
    socket_mode_enabled: boolean;
  };
}

/** What the Dockerfile tells Docker to run and check. */
export interface Dockerfile {
  /** Every ENV of the runtime stage. */
  env: Record<string, string>;
  cmd: string[];
  healthcheck: string[];
  expose: string[];
  /** Source paths of the COPY lines of each stage, by stage name. */
  copies: Record<string, string[]>;
  /** The RUN lines of each stage, by stage name. */
  runs: Record<string, string[]>;
}

export function readManifest(): Manifest {
  return parse(readFileSync(join(ROOT, 'manifest.yml'), 'utf8')) as Manifest;
}

/** Parses the Dockerfile's instructions (continuation lines joined, comments dropped). */
export function readDockerfile(): Dockerfile {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const instructions = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const result: Dockerfile = { env: {}, cmd: [], healthcheck: [], expose: [], copies: {}, runs: {} };
  let stage = '';
  for (const line of instructions) {
    const [keyword = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    switch (keyword.toUpperCase()) {
      case 'FROM':
        stage = /\bAS\s+(\S+)/i.exec(args)?.[1] ?? args;
        result.copies[stage] = [];
        result.runs[stage] = [];
        break;
      case 'ENV':
        for (const [, key, value] of args.matchAll(/(\w+)=(\S+)/g)) if (key && value) result.env[key] = value;
        break;
      case 'CMD':
        result.cmd = JSON.parse(args) as string[];
        break;
      case 'HEALTHCHECK':
        result.healthcheck = JSON.parse(args.slice(args.indexOf('CMD ') + 4)) as string[];
        break;
      case 'EXPOSE':
        result.expose.push(...rest);
        break;
      case 'COPY':
        result.copies[stage]?.push(...rest.filter((a) => !a.startsWith('--')).slice(0, -1));
        break;
      case 'RUN':
        result.runs[stage]?.push(args);
        break;
    }
  }
  return result;
}

/** The bot scope each Web API method needs (Slack's method reference); '' for none. */
export const BOT_SCOPE_OF: Record<string, string> = {
  'auth.test': '',
  'chat.postMessage': 'chat:write',
  'chat.update': 'chat:write',
  'chat.postEphemeral': 'chat:write',
  'views.open': '',
  'views.publish': '',
  'chat.getPermalink': '',
  'files.getUploadURLExternal': 'files:write',
  'files.completeUploadExternal': 'files:write',
  'usergroups.users.list': 'usergroups:read',
  'users.lookupByEmail': 'users:read.email',
  'users.info': 'users:read',
};
