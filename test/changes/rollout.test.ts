import { describe, expect, it } from 'vitest';
import {
  endsWave,
  resolveSites,
  rolloutSet,
  soakSeconds,
  splitWaves,
  stepPlace,
} from '../../src/changes/rollout.js';
import { ValidationError } from '../../src/errors.js';
import type { ConsoleSummary } from '../../src/tools/core/context.js';

/** The issue of a ValidationError thrown by `run`, as `field: rule`. */
function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error.issues.map((i) => `${i.field}: ${i.rule}`).join('; ');
    throw error;
  }
  throw new Error('not refused');
}

describe('splitWaves', () => {
  it('1,25%,rest: one site, a quarter of all (rounded up), then every site left', () => {
    expect(splitWaves('1,25%,rest', 6)).toEqual([1, 2, 3]);
    expect(splitWaves('1,25%,rest', 20)).toEqual([1, 5, 14]);
    expect(splitWaves(['1', '25%', 'rest'], 3)).toEqual([1, 1, 1]);
  });

  it('1,2,rest: fixed sizes, then the rest; waves past the last site are dropped', () => {
    expect(splitWaves('1,2,rest', 6)).toEqual([1, 2, 3]);
    expect(splitWaves('1,2,rest', 2)).toEqual([1, 1]);
    expect(splitWaves('1,2', 7)).toEqual([1, 2, 4]);
  });

  it('refuses bad input naming waves and the rule', () => {
    expect(refusal(() => splitWaves('1,rest,2', 6))).toBe('waves: rest must be the last wave (it is wave 2)');
    expect(refusal(() => splitWaves('0,rest', 6))).toBe('waves: 0: a wave holds at least one site');
    expect(refusal(() => splitWaves('1,150%', 6))).toBe(
      'waves: 150%: a percentage must be between 1% and 100%',
    );
    expect(refusal(() => splitWaves('one,rest', 6))).toMatch(/^waves: one: must list wave sizes/);
    expect(refusal(() => splitWaves('', 6))).toMatch(/^waves: must list wave sizes/);
  });
});

describe('soak', () => {
  it('reads durations, 0 for none, and refuses others naming soak', () => {
    expect(soakSeconds(undefined)).toBe(0);
    expect(soakSeconds('1s')).toBe(1);
    expect(soakSeconds('10m')).toBe(600);
    expect(refusal(() => soakSeconds('soon'))).toMatch(/^soak: must be a duration/);
    expect(refusal(() => soakSeconds('2d'))).toBe('soak: must be at most 24h (the run waits that long)');
  });
});

describe('resolveSites', () => {
  const consoles: ConsoleSummary[] = [
    { name: 'berlin', labels: { customer: 'acme' }, via: 'local', sites: ['default', 'lab'] },
    { name: 'munich', labels: { customer: 'acme' }, via: 'connector', sites: undefined },
    { name: 'vienna', labels: { customer: 'globex' }, via: 'local', sites: ['default'] },
  ];
  const listed = async (name: string) => (name === 'munich' ? ['default', 'plant'] : []);

  it('a label, *, or console/site pairs, in the file’s order, each once', async () => {
    expect(await resolveSites('customer=acme', consoles, listed)).toEqual([
      { console: 'berlin', site: 'default' },
      { console: 'berlin', site: 'lab' },
      { console: 'munich', site: 'default' },
      { console: 'munich', site: 'plant' },
    ]);
    expect((await resolveSites('*', consoles, listed)).map((s) => `${s.console}/${s.site}`)).toEqual([
      'berlin/default',
      'berlin/lab',
      'munich/default',
      'munich/plant',
      'vienna/default',
    ]);
    expect(await resolveSites(['vienna/default', 'berlin/lab', 'vienna/default'], consoles, listed)).toEqual([
      { console: 'vienna', site: 'default' },
      { console: 'berlin', site: 'lab' },
    ]);
  });

  it('refuses unknown consoles, labels matching nothing and malformed pairs, naming sites', async () => {
    await expect(resolveSites('customer=initech', consoles, listed)).rejects.toThrow(
      'no console has the label customer=initech',
    );
    await expect(resolveSites('hamburg/default', consoles, listed)).rejects.toThrow(
      'no console is named hamburg',
    );
    await expect(resolveSites('berlin', consoles, listed)).rejects.toThrow('give console/site pairs');
  });
});

describe('a rollout as a change set', () => {
  const sites = ['a', 'b', 'c', 'd', 'e', 'f'].map((site) => ({
    console: site < 'd' ? 'berlin' : 'munich',
    site,
  }));
  const set = rolloutSet(
    [
      { tool: 'update_network', args: { network_id: 'IoT', vlan_id: 71, site_id: 'ignored' } },
      { tool: 'update_network', args: { network_id: 'IoT', dhcp_dns_1: '9.9.9.9' } },
    ],
    { target: '*', waveSpec: '1,2,rest', sites, soakSeconds: 1 },
  );
  const rollout = set.rollout;
  if (!rollout) throw new Error('a rollout set carries its rollout');

  it('has every site’s steps in order, each naming its console and site, and stops on a failure', () => {
    expect(set.onFailure).toBe('stop');
    expect(set.steps).toHaveLength(12);
    expect(set.steps[0]?.args).toEqual({ network_id: 'IoT', vlan_id: 71, console: 'berlin', site_id: 'a' });
    expect(set.steps[11]?.args).toMatchObject({ console: 'munich', site_id: 'f', dhcp_dns_1: '9.9.9.9' });
    expect(rollout.waves).toEqual([1, 2, 3]);
  });

  it('knows each step’s site and wave, and which steps end a wave that a soak follows', () => {
    expect(stepPlace(rollout, 0)).toMatchObject({ console: 'berlin', site: 'a', wave: 1 });
    expect(stepPlace(rollout, 3)).toMatchObject({ site: 'b', wave: 2 });
    expect(stepPlace(rollout, 6)).toMatchObject({ console: 'munich', site: 'd', wave: 3 });
    const soaks = set.steps.map((_, i) => endsWave(rollout, i)).filter((w) => w !== undefined);
    // After wave 1 (step 2) and wave 2 (step 6); none after the last wave.
    expect(set.steps.map((_, i) => endsWave(rollout, i))).toEqual([
      undefined,
      1,
      undefined,
      undefined,
      undefined,
      2,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(soaks).toEqual([1, 2]);
  });
});
