import { describe, expect, it } from 'vitest';
import { assessImpact } from '../../src/policy/index.js';

const zone = { kind: 'firewall zone', name: 'Hotspot', id: 'z1', dangles: false };
const wifi = { kind: 'Wi-Fi network', name: 'Guest WiFi', id: 'w1' };

describe('assessImpact: references of a deleted object', () => {
  it('is high risk when an object is left pointing at the deleted one', () => {
    const radius = assessImpact({ target: 'network Guest', removes: true, references: [wifi, zone] });
    expect(radius.risk).toBe('high');
    expect(radius.reasons).toContain(
      '1 object refers to network Guest: Wi-Fi network "Guest WiFi" (they are left pointing at nothing)',
    );
    expect(radius.reasons.join(' ')).toContain(
      'firewall zone "Hotspot" (the controller takes it out of them)',
    );
  });

  it('is medium when the controller takes the deleted object out of every referrer (a zone)', () => {
    const radius = assessImpact({ target: 'network Lab', removes: true, references: [zone] });
    expect(radius.risk).toBe('medium');
    expect(radius.reasons.join(' ')).not.toContain('left pointing at nothing');
  });

  it('is medium for references of an object that stays', () => {
    expect(assessImpact({ target: 'network Lab', references: [wifi] }).risk).toBe('medium');
  });
});
