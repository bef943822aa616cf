import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Principal, SessionStore } from '../auth.js';
import { classicErrorBody, classicOk, htmlPage, json, type Reply } from '../envelopes.js';
import type { SimulatorFlavor } from '../types.js';

/** What the console-level routes (login, logout, `/`) need. */
export interface ConsoleDeps {
  flavor: SimulatorFlavor;
  sessions: SessionStore;
  username: string;
  password: string;
  loginRateLimit: number;
}

const credentials = z.object({
  username: z.string(),
  password: z.string(),
  rememberMe: z.boolean().optional(),
});

function validCredentials(deps: ConsoleDeps, body: unknown): boolean {
  const parsed = credentials.safeParse(body);
  return parsed.success && parsed.data.username === deps.username && parsed.data.password === deps.password;
}

// The user object UniFi OS returns on login (fixture classic/auth-login-unifios.aiounifi.json, trimmed).
function userObject(username: string) {
  const id = randomUUID();
  return {
    unique_id: id,
    username,
    first_name: 'Simulated',
    last_name: 'Admin',
    full_name: 'Simulated Admin',
    email: '',
    email_status: 'UNVERIFIED',
    phone: '',
    avatar: '',
    avatar_relative_path: '',
    status: 'ACTIVE',
    sso_account: '',
    sso_uuid: '',
    sso_username: '',
    create_time: 1_700_000_000,
    local_account_exist: true,
    extras: null,
    update_time: 1_700_000_000,
    groups: [],
    roles: [
      {
        unique_id: randomUUID(),
        name: 'Super Administrator',
        system_role: true,
        system_key: 'super_administrator',
        level: 2,
      },
    ],
    permissions: { 'network.management': ['admin'], 'system.management.user': ['admin'] },
    scopes: ['view:controller:network', 'manage:controller:network'],
    cloud_access_granted: false,
    id,
    isOwner: false,
    isSuperAdmin: true,
  };
}

/** UniFi OS `POST /api/auth/login`: rate-limited; TOKEN cookie plus X-CSRF-Token header. */
export function unifiOsLogin(deps: ConsoleDeps, body: unknown): Reply {
  const admission = deps.sessions.admitLogin(deps.loginRateLimit);
  if (!admission.admitted) {
    return {
      status: 429,
      headers: { 'Retry-After': String(admission.retryAfter) },
      body: {
        message: "You've reached the login attempt limit",
        code: 'AUTHENTICATION_FAILED_LIMIT_REACHED',
      },
    };
  }
  if (!validCredentials(deps, body)) {
    return json(
      { code: 'AUTHENTICATION_FAILED_INVALID_CREDENTIALS', message: 'Invalid username or password' },
      401,
    );
  }
  const session = deps.sessions.open('unifi-os', deps.username);
  return {
    status: 200,
    body: userObject(deps.username),
    headers: { 'Set-Cookie': `TOKEN=${session.token}; Path=/; HttpOnly`, 'X-CSRF-Token': session.csrf },
  };
}

/** Legacy `POST /api/login`: `unifises` cookie, no CSRF; bad credentials are `api.err.Invalid`. */
export function legacyLogin(deps: ConsoleDeps, body: unknown): Reply {
  if (!validCredentials(deps, body)) return { status: 400, body: classicErrorBody('api.err.Invalid') };
  const session = deps.sessions.open('self-hosted', deps.username);
  return { ...classicOk([]), headers: { 'Set-Cookie': `unifises=${session.token}; Path=/; HttpOnly` } };
}

/** Logout on either flavor; ends the session the cookie names (CSRF is checked by the dispatcher). */
export function logout(deps: ConsoleDeps, principal: Principal): Reply {
  if (principal.kind === 'session') deps.sessions.close(principal.session.token);
  const cookie = `${deps.flavor === 'unifi-os' ? 'TOKEN' : 'unifises'}=; Path=/; Max-Age=0`;
  const reply = deps.flavor === 'unifi-os' ? json({}) : classicOk([]);
  return { ...reply, headers: { 'Set-Cookie': cookie } };
}

/** `GET /`: UniFi OS answers 200 (its web app); a legacy controller redirects to /manage. */
export function rootPage(flavor: SimulatorFlavor): Reply {
  if (flavor === 'unifi-os') return htmlPage(200, 'UniFi OS');
  return { status: 302, headers: { Location: '/manage' } };
}
