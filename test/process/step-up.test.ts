import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOURNAL_FILE } from '../../src/store/file/journal.js';
import { type BotProcess, slackHttpEnv, spawnListeningBot, stopAllBots } from '../helpers/bot-process.js';
import type { SlackCall } from '../helpers/fake-slack.js';
import { followToCallback, startTestIdp, type TestIdp } from '../helpers/oidc-idp.js';
import { buttonsOf } from '../helpers/slack-buttons.js';
import { buttonBody, commandBody, slackHeaders } from '../helpers/slack-requests.js';
import { useSlackRig } from '../helpers/slack-rig.js';

// Step-up sign-in through the built bot: a local OpenID Provider (oidc-provider) signs in whichever
// account the test picks; the "browser" is plain HTTP following redirects. U1 proposes, U2 (Alice)
// approves; Bob's account is someone else's. Network changes need the sign-in (a step_up rule).
// Carol (U0CAROL) may break glass on her word, which then waits for her own sign-in.

afterAll(stopAllBots);

const SECRET = 'step-up-signing-secret';
// What the provider redirects to; the test's browser reaches the bot's real port behind it, as a
// reverse proxy would.
const PUBLIC_URL = 'http://localhost:9';
const CLIENT = { id: 'netops', secret: 'step-up-client-secret', redirectUri: `${PUBLIC_URL}/oidc/callback` };
const LINK_SECONDS = 5;

const dir = mkdtempSync(join(tmpdir(), 'netops-step-up-'));
const POLICY = join(dir, 'policy.yaml');
writeFileSync(
  POLICY,
  `rules:
  - name: networks-need-sign-in
    when: tool.endsWith("_network")
    step_up: true
breakglass:
  allowed: [U0CAROL]
  approvals: 0
  reviewers: [U0STAN]
`,
);

interface JournalLine {
  type: string;
  id: string;
  actor: { userId: string; identity?: { issuer: string; subject: string; email?: string } };
}

describe('step-up sign-in, as `node dist/main.js` serves it', () => {
  const rig = useSlackRig({ apiVersion: '9.0' });
  let idp: TestIdp;
  let bot: BotProcess;
  let url = '';
  const post = (body: string) =>
    fetch(`${url}/slack/events`, { method: 'POST', headers: slackHeaders(SECRET, body), body });
  const previews = () => rig.slack.callsOf('chat.postMessage').filter((c) => !c.args.thread_ts);
  const journal = (): JournalLine[] => {
    const path = join(bot.dataDir, JOURNAL_FILE);
    if (!existsSync(path)) return [];
    return readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as JournalLine);
  };
  const typesOf = (id: string) =>
    journal()
      .filter((e) => e.id === id)
      .map((e) => e.type);
  const networkWrites = () =>
    rig.sim.requests.filter((r) => r.method !== 'GET' && r.route.includes('networkconf'));

  async function propose(text: string): Promise<string> {
    const before = previews().length;
    await post(commandBody({ text, user_id: 'U1', channel_id: 'C1', response_url: rig.slack.responseUrl() }));
    await rig.slack.waitFor(() => previews().length > before, 20_000);
    const id = buttonsOf(previews().at(-1) as SlackCall).find((b) => b.action_id === 'approve')?.value ?? '';
    await rig.slack.waitFor(() => typesOf(id).includes('message'), 10_000);
    return id;
  }

  /** Clicks Approve as `user`; resolves with what the clicker was told. */
  async function click(id: string, user: string): Promise<string> {
    const answer = rig.slack.responseUrl();
    await post(buttonBody({ actionId: 'approve', value: id, userId: user, response_url: answer }));
    await rig.slack.waitFor(() => rig.slack.responses.some((r) => answer.endsWith(r.path)), 20_000);
    const body = rig.slack.responses.find((r) => answer.endsWith(r.path))?.body ?? {};
    return `${String(body.text)} ${JSON.stringify(body.blocks ?? [])}`;
  }

  /** The sign-in link in the clicker's answer. */
  const linkIn = (answer: string): string => {
    // The provider is on plain http here, so the address is shown as code rather than as a link.
    const found = /Sign in at `(http[^`]+)`/.exec(answer)?.[1] ?? '';
    expect(found).toContain(`${idp.issuer}/`);
    return found.replaceAll('&amp;', '&');
  };

  /** Signs in at the provider as `subject`; returns the callback URL on the bot's real port. */
  async function signIn(link: string, subject: string): Promise<string> {
    idp.signInAs(subject);
    const callback = await followToCallback(link, CLIENT.redirectUri);
    return callback.replace(PUBLIC_URL, url);
  }

  async function open(callback: string): Promise<{ status: number; text: string }> {
    const answer = await fetch(callback);
    return { status: answer.status, text: await answer.text() };
  }

  beforeAll(async () => {
    idp = await startTestIdp({
      accounts: [
        { subject: 'alice', email: 'alice@example.com' },
        { subject: 'bob', email: 'bob@example.com' },
        { subject: 'carol', email: 'carol@example.com' },
      ],
      client: CLIENT,
    });
    rig.slack.userEmails.U0CAROL = 'carol@example.com';
    rig.slack.userEmails.U2 = 'Alice@example.com';
    rig.slack.userEmails.U3 = 'bob@example.com';
    ({ bot, url } = await spawnListeningBot({
      ...slackHttpEnv(rig.slack, SECRET, rig.sim),
      POLICY_FILE: POLICY,
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: CLIENT.id,
      OIDC_CLIENT_SECRET: CLIENT.secret,
      PUBLIC_URL,
      OIDC_LINK_SECONDS: String(LINK_SECONDS),
    }));
  }, 30_000);
  afterAll(async () => {
    await bot?.stop('SIGKILL');
    await idp?.close();
  });

  it('runs a change only after the approver signs in, records both identities, and a second use does nothing', async () => {
    const id = await propose('create_network name=Signed vlan_id=81 subnet=10.81.0.0/24');
    const answer = await click(id, 'U2');
    expect(answer).toContain(
      'Not counted yet: this change needs step-up sign-in (rule \\"networks-need-sign-in\\")',
    );
    expect(typesOf(id)).not.toContain('approved');
    expect(networkWrites()).toHaveLength(0);

    const callback = await signIn(linkIn(answer), 'alice');
    const page = await open(callback);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`Your approval of ${id} counted and the change ran.`);
    expect(rig.sim.state.findNetworkByName('default', 'Signed')).toBeDefined();
    const approved = journal().find((e) => e.id === id && e.type === 'approved');
    expect(approved?.actor).toEqual({
      userId: 'U2',
      name: 'u2',
      identity: { issuer: idp.issuer, subject: 'alice', email: 'alice@example.com' },
    });

    const writes = networkWrites().length;
    const again = await open(callback);
    expect(again.status).toBe(403);
    expect(again.text).toContain('This sign-in link was used already');
    expect(networkWrites()).toHaveLength(writes);
  });

  it('counts nothing when someone else signs in with the link', async () => {
    const id = await propose('create_network name=Bobs vlan_id=82 subnet=10.82.0.0/24');
    const page = await open(await signIn(linkIn(await click(id, 'U2')), 'bob'));
    expect(page.status).toBe(403);
    expect(page.text).toContain(
      'you signed in as bob@example.com, which is not the approver&#39;s Slack email',
    );
    expect(typesOf(id)).toEqual(['created', 'message']);
    expect(rig.sim.state.findNetworkByName('default', 'Bobs')).toBeUndefined();
  });

  it('counts nothing once the link expired', async () => {
    const id = await propose('create_network name=Late vlan_id=83 subnet=10.83.0.0/24');
    const link = linkIn(await click(id, 'U2'));
    await new Promise((resolve) => setTimeout(resolve, (LINK_SECONDS + 1) * 1000));
    const page = await open(await signIn(link, 'alice'));
    expect(page.text).toContain('This sign-in link expired');
    expect(typesOf(id)).toEqual(['created', 'message']);
    expect(rig.sim.state.findNetworkByName('default', 'Late')).toBeUndefined();
  });

  it('runs nothing when the target changed after the click (its preview is no longer what was approved)', async () => {
    const id = await propose('update_network network_id=Guest name=GuestNet');
    const link = linkIn(await click(id, 'U2'));
    const guest = rig.sim.state.findNetworkByName('default', 'Guest');
    // Someone moves Guest to another VLAN on the controller meanwhile.
    if (guest) guest.vlan = 97;
    const writes = networkWrites().length;
    const page = await open(await signIn(link, 'alice'));
    expect(page.text).toMatch(/changed since its preview; nothing ran/);
    expect(networkWrites()).toHaveLength(writes);
    expect(rig.sim.state.findNetworkByName('default', 'GuestNet')).toBeUndefined();
  });

  it('runs a break-glass change on the word only after the requester signs in, and exactly once', async () => {
    const answer = rig.slack.responseUrl();
    const said = () =>
      rig.slack.responses
        .filter((r) => answer.endsWith(r.path))
        .map((r) => `${String(r.body.text)} ${JSON.stringify(r.body.blocks ?? [])}`)
        .join('\n');
    const before = networkWrites().length;
    await post(
      commandBody({
        text: 'breakglass create_network name=Glass vlan_id=84 subnet=10.84.0.0/24 reason="uplink down"',
        user_id: 'U0CAROL',
        channel_id: 'C1',
        response_url: answer,
      }),
    );
    await rig.slack.waitFor(() => said().includes('Break-glass change'), 20_000);
    const id = /Break-glass change (\S+):/.exec(said())?.[1] ?? '';
    expect(said()).toContain('Not run yet: break-glass on your word needs step-up sign-in');
    expect(said()).toContain('runs on your word once you sign in at the identity provider');
    expect(typesOf(id)).not.toContain('approved');
    expect(networkWrites()).toHaveLength(before);

    const callback = await signIn(linkIn(said()), 'carol');
    const page = await open(callback);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`Break-glass change ${id} ran on your word.`);
    expect(rig.sim.state.findNetworkByName('default', 'Glass')).toBeDefined();
    expect(networkWrites()).toHaveLength(before + 1);
    const approved = journal().filter((e) => e.id === id && e.type === 'approved');
    expect(approved).toHaveLength(1);
    expect(approved[0]?.actor).toMatchObject({
      userId: 'U0CAROL',
      identity: { issuer: idp.issuer, subject: 'carol', email: 'carol@example.com' },
    });

    const again = await open(callback);
    expect(again.status).toBe(403);
    expect(networkWrites()).toHaveLength(before + 1);
  });
});
