import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { APPROVE_ACTION, CANCEL_ACTION } from '../../src/slack/blocks/change-request.js';
import { HOME_OPENED_EVENT } from '../../src/slack/listeners/home.js';

interface Manifest {
  features: {
    slash_commands: { command: string; description: string; usage_hint?: string }[];
    bot_user?: unknown;
    app_home?: Record<string, boolean>;
  };
  oauth_config: { scopes: { bot: string[] } };
  settings: {
    interactivity: { is_enabled: boolean };
    socket_mode_enabled: boolean;
    event_subscriptions?: { bot_events?: string[] };
  };
}

const manifest = parse(readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8')) as Manifest;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

// Everything that talks to Slack lives in src/slack (and app.ts builds the user-group client).
const slackSource = [
  ...sourceFiles(join(process.cwd(), 'src', 'slack')),
  join(process.cwd(), 'src', 'app.ts'),
]
  .map((f) => readFileSync(f, 'utf8'))
  .join('\n');

// The scope each Web API method the bot calls needs (from the method reference pages).
const METHOD_SCOPES: Record<string, string> = {
  'chat.postMessage': 'chat:write',
  'chat.update': 'chat:write',
  'chat.postEphemeral': 'chat:write',
  filesUploadV2: 'files:write',
  'usergroups.users.list': 'usergroups:read',
  // Slack grants users:read.email only beside users:read.
  'users.lookupByEmail': 'users:read users:read.email',
  'users.info': 'users:read',
  'views.open': '',
  'views.publish': '',
  // Thread links on App Home and the link an MCP client gets to a change request; no scope needed.
  'chat.getPermalink': '',
  'auth.test': '',
};

// The event each bot event subscription needs a listener for (and the scope it would need; none here).
const EVENT_SCOPES: Record<string, string> = { app_home_opened: '' };

describe('manifest.yml matches the app', () => {
  it('declares the /net command the app listens to, with a description and usage hint', () => {
    expect(slackSource).toContain("routes.command('/net'");
    expect(manifest.features.slash_commands.map((c) => c.command)).toEqual(['/net']);
    expect(manifest.features.slash_commands[0]?.description.length).toBeGreaterThan(10);
    expect(manifest.features.slash_commands[0]?.usage_hint).toContain('help');
    expect(manifest.features.bot_user).toBeDefined();
  });

  it('enables interactivity, which the buttons and forms need, and Socket Mode', () => {
    expect(slackSource).toMatch(/routes\.action\(\s*APPROVE_ACTION/);
    expect([APPROVE_ACTION, CANCEL_ACTION]).toEqual(['approve', 'cancel']);
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.settings.socket_mode_enabled).toBe(true);
  });

  it('asks for exactly the scopes of the Web API methods the code calls', () => {
    const called = Object.keys(METHOD_SCOPES).filter((method) => {
      const [family, ...rest] = method.split('.');
      const pattern = rest.length > 0 ? `${family}.${rest.join('.')}(` : `${family}(`;
      return slackSource.includes(pattern);
    });
    expect(called).toEqual(
      expect.arrayContaining(['chat.postMessage', 'chat.update', 'filesUploadV2', 'usergroups.users.list']),
    );
    const needed = new Set([
      'commands',
      ...called.flatMap((m) => (METHOD_SCOPES[m] ?? '').split(' ')).filter(Boolean),
    ]);
    for (const event of manifest.settings.event_subscriptions?.bot_events ?? []) {
      const scope = EVENT_SCOPES[event];
      if (scope) needed.add(scope);
    }
    expect(new Set(manifest.oauth_config.scopes.bot)).toEqual(needed);
  });

  it('has as many scopes as the README and the Slack page say it needs', () => {
    const words = ['none', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
    const count = words[manifest.oauth_config.scopes.bot.length];
    for (const page of ['../../README.md', '../../docs/slack.md']) {
      const text = readFileSync(new URL(page, import.meta.url), 'utf8').replace(/\s+/g, ' ');
      expect(text, page).toContain(`${count} scopes`);
      expect(text, page).not.toMatch(new RegExp(`\\b(?!${count}\\b)(${words.join('|')}) scopes`));
    }
  });

  it('enables the Home tab and subscribes to exactly the events the app listens to', () => {
    const listened = [...slackSource.matchAll(/routes\.event\('(\w+)'/g)].map((m) => m[1]);
    expect(listened).toEqual(['app_home_opened']);
    // The request guard in front of Bolt lets through exactly the events a listener handles.
    expect([HOME_OPENED_EVENT]).toEqual(listened);
    expect(manifest.settings.event_subscriptions?.bot_events).toEqual(listened);
    for (const event of listened) expect(Object.keys(EVENT_SCOPES)).toContain(event);
    expect(slackSource).toContain('views.publish(');
    expect(manifest.features.app_home).toEqual({
      home_tab_enabled: true,
      messages_tab_enabled: false,
      messages_tab_read_only_enabled: false,
    });
  });

  it('calls no Web API method the scope table does not know', () => {
    const calls = [...slackSource.matchAll(/client\.(\w+)\.(\w+(?:\.\w+)?)\(/g)].map(
      (m) => `${m[1]}.${m[2]}`,
    );
    for (const call of new Set(calls)) expect(Object.keys(METHOD_SCOPES), call).toContain(call);
  });
});
