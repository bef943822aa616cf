import { afterEach, describe, expect, it, vi } from 'vitest';

const RealCollator = Intl.Collator;

afterEach(() => {
  Intl.Collator = RealCollator;
  vi.resetModules();
});

describe('byName (the name collator is made on first use)', () => {
  it('orders names as String.prototype.localeCompare does', async () => {
    const { byName } = await import('../../src/lib/collate.js');
    const names = ['zeta', 'Alpha', 'alpha', 'Ärger', 'b10', 'b2', 'ǅ', '', 'éclair', 'eclair', 'Z'];
    expect([...names].sort(byName)).toEqual([...names].sort((a, b) => a.localeCompare(b)));
  });

  it('constructs no Intl.Collator when the module loads, and one for every later comparison', async () => {
    let made = 0;
    Intl.Collator = class extends RealCollator {
      constructor(...args: ConstructorParameters<typeof RealCollator>) {
        super(...args);
        made += 1;
      }
    } as typeof Intl.Collator;
    const { byName } = await import('../../src/lib/collate.js');
    await import('../../src/tools/clients/clients.js');
    await import('../../src/tools/clients/top-clients.js');
    expect(made).toBe(0);
    expect(byName('a', 'b')).toBeLessThan(0);
    expect(byName('b', 'a')).toBeGreaterThan(0);
    expect(made).toBe(1);
  });
});
