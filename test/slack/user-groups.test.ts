import { webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { GROUP_MEMBERS_CACHE_MS, SlackUserGroups } from '../../src/slack/user-groups.js';
import { type FakeSlack, startFakeSlack } from '../helpers/fake-slack.js';

describe('SlackUserGroups: members of APPROVERS and REQUESTERS groups', () => {
  let slack: FakeSlack;
  let now: number;
  let groups: SlackUserGroups;
  const lookups = () => slack.callsOf('usergroups.users.list').length;

  beforeEach(async () => {
    slack = await startFakeSlack();
    now = 1_700_000_000_000;
    const client = new webApi.WebClient('xoxb-test', {
      slackApiUrl: `${slack.apiUrl}/`,
      retryConfig: { retries: 0 },
    });
    groups = new SlackUserGroups(client, silentLogger(), { now: () => now });
  });

  afterEach(() => slack.close());

  it('reuses an answer for at most 10 s, so a removed member loses the right within seconds', async () => {
    slack.userGroups.S0ADMINS = ['U5', 'U6'];
    expect(await groups.members('S0ADMINS')).toEqual(['U5', 'U6']);

    slack.userGroups.S0ADMINS = ['U6'];
    now += 1_000;
    expect(await groups.members('S0ADMINS')).toEqual(['U5', 'U6']);
    now += GROUP_MEMBERS_CACHE_MS;

    expect(await groups.members('S0ADMINS')).toEqual(['U6']);
    expect(GROUP_MEMBERS_CACHE_MS).toBeLessThanOrEqual(10_000);
    expect(lookups()).toBe(2);
  });

  it('never keeps an answer longer than 10 s, whatever it is asked for', async () => {
    const client = new webApi.WebClient('xoxb-test', { slackApiUrl: `${slack.apiUrl}/` });
    const lazy = new SlackUserGroups(client, silentLogger(), { maxAgeMs: 300_000, now: () => now });
    slack.userGroups.S0ADMINS = ['U5'];
    await lazy.members('S0ADMINS');
    slack.userGroups.S0ADMINS = [];
    now += 10_001;

    expect(await lazy.members('S0ADMINS')).toEqual([]);
  });

  it('asks Slack once for twenty concurrent clicks', async () => {
    slack.userGroups.S0ADMINS = ['U5'];

    const answers = await Promise.all(Array.from({ length: 20 }, () => groups.members('S0ADMINS')));

    expect(answers.every((users) => users.includes('U5'))).toBe(true);
    expect(lookups()).toBe(1);
  });

  it('throws when Slack cannot say, and asks again on the next click instead of keeping the failure', async () => {
    await expect(groups.members('S0MISSING')).rejects.toThrow(/no_such_subteam/);
    slack.userGroups.S0MISSING = ['U7'];

    expect(await groups.members('S0MISSING')).toEqual(['U7']);
    expect(lookups()).toBe(2);
  });

  it('drops the old answer when a fresh lookup fails, so nobody is approved from stale data', async () => {
    slack.userGroups.S0ADMINS = ['U5'];
    await groups.members('S0ADMINS');
    delete slack.userGroups.S0ADMINS;
    now += GROUP_MEMBERS_CACHE_MS;

    await expect(groups.members('S0ADMINS')).rejects.toThrow(/no_such_subteam/);
    await expect(groups.members('S0ADMINS')).rejects.toThrow(/no_such_subteam/);
  });
});
