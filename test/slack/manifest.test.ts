import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { APPROVE_ACTION, CANCEL_ACTION } from '../../src/slack/blocks/change-request.js';

interface Manifest {
  features: {
    slash_commands: { command: string; description: string; usage_hint?: string }[];
    bot_user?: unknown;
  };
  oauth_config: { scopes: { bot: string[] } };
  settings: { interactivity: { is_enabled: boolean }; socket_mode_enabled: boolean };
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
  'views.open': '',
  'auth.test': '',
  // The link an MCP client gets to a change request's message; no scope needed.
  'chat.getPermalink': '',
};

describe('manifest.yml matches the app', () => {
  it('declares the /net command the app listens to, with a description and usage hint', () => {
    expect(slackSource).toContain("app.command('/net'");
    expect(manifest.features.slash_commands.map((c) => c.command)).toEqual(['/net']);
    expect(manifest.features.slash_commands[0]?.description.length).toBeGreaterThan(10);
    expect(manifest.features.slash_commands[0]?.usage_hint).toContain('help');
    expect(manifest.features.bot_user).toBeDefined();
  });

  it('enables interactivity, which the buttons and forms need, and Socket Mode', () => {
    expect(slackSource).toMatch(/app\.action\(APPROVE_ACTION/);
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
      ...called.map((m) => METHOD_SCOPES[m]).filter((s): s is string => Boolean(s)),
    ]);
    expect(new Set(manifest.oauth_config.scopes.bot)).toEqual(needed);
  });

  it('calls no Web API method the scope table does not know', () => {
    const calls = [...slackSource.matchAll(/client\.(\w+)\.(\w+(?:\.\w+)?)\(/g)].map(
      (m) => `${m[1]}.${m[2]}`,
    );
    for (const call of new Set(calls)) expect(Object.keys(METHOD_SCOPES), call).toContain(call);
  });
});
