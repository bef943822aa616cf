import { describe, expect, it } from 'vitest';
import {
  AFTER_DELETE_TEXT,
  findNetworkReferences,
  type NetworkReference,
  OFFICIAL_REFERENCE_KINDS,
} from '../../../src/tools/networks/network-references.js';
import type { TestBot } from '../../helpers/test-bot.js';
import { useTestBots } from '../../helpers/tool-test.js';

// A preview states only what will be true: a delete_network preview that says a zone still points
// at the network, while the delete takes it off the zone, misleads the approver. Each reference
// kind's `after_delete` is checked against the simulator's state after the delete.

const [zoneBased, legacy] = useTestBots({}, { simulator: { firewall: 'legacy' } });

interface Preview {
  would_delete: { id: string; name: string };
  references: NetworkReference[];
  warnings: string[];
}

async function previewThenDelete(bot: TestBot, name: string) {
  const network = bot.sim.state.findNetworkByName('default', name);
  if (!network) throw new Error(`no ${name} in the demo`);
  const preview = (await bot.run('delete_network', { network_id: name, dry_run: true })) as Preview;
  await bot.run('delete_network', { network_id: name, confirm: true });
  // Read as a 10.1 console's delete preview reads them (SSIDs by official id).
  const after = await findNetworkReferences(
    bot.app.context.gateway,
    'default',
    {
      id: network._id,
      uuid: typeof network.external_id === 'string' ? network.external_id : undefined,
      name,
    },
    OFFICIAL_REFERENCE_KINDS,
  );
  return { preview, after };
}

describe('delete_network: every reference is as the preview said once the network is gone', () => {
  it('on both firewall generations, for every kind of reference the demo has', async () => {
    const kinds = new Set<string>();
    for (const bot of [zoneBased, legacy]) {
      const { preview, after } = await previewThenDelete(bot, 'IoT');
      expect(preview.references.length).toBeGreaterThan(0);
      const stillThere = (r: NetworkReference) =>
        after.references.some((a) => a.kind === r.kind && a.id === r.id);
      for (const reference of preview.references) {
        kinds.add(reference.kind);
        const dangles = reference.after_delete === AFTER_DELETE_TEXT.dangles;
        expect(stillThere(reference), `${reference.kind} ${reference.name}: ${reference.after_delete}`).toBe(
          dangles,
        );
      }
      const dangling = preview.references.filter((r) => r.after_delete === AFTER_DELETE_TEXT.dangles);
      expect(preview.warnings.join('\n')).toContain(
        `${dangling.length} object(s) listed under references still point`,
      );
    }
    expect([...kinds].sort()).toEqual(
      [
        'ACL rule',
        'Wi-Fi network',
        'firewall policy',
        'firewall rule',
        'firewall zone',
        'port profile',
        'traffic route',
      ].sort(),
    );
  });

  it('says the zone loses the network rather than that it still points at it', async () => {
    const { preview } = await previewThenDelete(zoneBased, 'Cameras');
    const zone = preview.references.find((r) => r.kind === 'firewall zone');
    expect(zone?.after_delete).toBe(AFTER_DELETE_TEXT.removed);
    expect(preview.warnings).toContain(
      'Cameras leaves firewall zone "IoT Devices" (the controller takes it out)',
    );
    expect(preview.warnings.join('\n')).toContain(
      '3 object(s) listed under references still point at Cameras',
    );
  });
});
