import { z } from 'zod';
import { ResourceNotFoundError } from '../errors.js';
import type { ParsedList } from './types.js';

/** One Integration site: its UUID and the classic name it stands for. */
export const integrationSiteSchema = z.looseObject({
  id: z.string().min(1),
  internalReference: z.string(),
  name: z.string().optional(),
});

/** An Integration site record. */
export type IntegrationSite = z.infer<typeof integrationSiteSchema>;

/**
 * Maps classic site names (`default`) to Integration site UUIDs via `GET integration/v1/sites`
 * and `internalReference`. Known names are kept for the gateway's life (a site's UUID does not
 * change); an unknown name triggers one fresh listing, so a site created since is still found.
 */
export class SiteResolver {
  private readonly known = new Map<string, string>();
  private listing: Promise<void> | undefined;

  constructor(private readonly listSites: () => Promise<ParsedList<IntegrationSite>>) {}

  /** The UUID of a classic site name; ResourceNotFoundError('site', name) when the controller has none. */
  async resolve(site: string): Promise<string> {
    const cached = this.known.get(site);
    if (cached !== undefined) return cached;
    await this.refresh();
    const found = this.known.get(site);
    if (found === undefined) {
      throw new ResourceNotFoundError('site', site, `site ${site} not found on the controller`);
    }
    return found;
  }

  private refresh(): Promise<void> {
    if (this.listing === undefined) {
      const listing = this.listSites().then((sites) => {
        for (const s of sites.items) {
          this.known.set(s.internalReference, s.id);
          // A caller that already holds the UUID gets it back unchanged.
          this.known.set(s.id, s.id);
        }
      });
      this.listing = listing;
      const done = () => {
        if (this.listing === listing) this.listing = undefined;
      };
      listing.then(done, done);
    }
    return this.listing;
  }
}
