import { NotSupportedError, ResourceNotFoundError } from '../../errors.js';
import type { Gateway } from '../../gateway/types.js';
import { findByIdOrName } from '../../lib/find-by-id-or-name.js';
import {
  type IntegrationNetworkRecord,
  integrationNetworkRecordSchema,
} from '../../records/integration-network-record.js';
import { type NetworkRecord, networkRecordSchema } from '../../records/network-record.js';
import { findNetwork } from './network-model.js';
import { findInSet, loadNetworks, type NetworkSet } from './network-source.js';

/**
 * One network in both id spaces: the id shown (the classic networkconf `_id`; on a console whose
 * official API serves networks, and for a directory loaded with `official`, the UUID) and the
 * Integration UUID (sent).
 */
export interface NetworkIds {
  /** Classic `_id`; the Integration UUID when the network has no networkconf record. */
  id: string;
  uuid: string;
  /** Null when neither API knows the UUID (a stale reference). */
  name: string | null;
  record?: NetworkRecord;
}

/**
 * Translates network ids between the classic and the Integration API (DESIGN §6 "Ids"): results
 * show classic `_id`s, Integration bodies carry UUIDs. The UUID is the networkconf `external_id`;
 * when a record lacks one, Integration `/networks` is read (once, only then) and matched by name.
 */
export class NetworkDirectory {
  private integration: Promise<IntegrationNetworkRecord[]> | undefined;

  private constructor(
    private readonly gateway: Gateway,
    private readonly site: string,
    /** The site's networkconf records. */
    readonly records: readonly NetworkRecord[],
    private readonly fresh: boolean,
    /** Set when the networks came from the official API. */
    private readonly set?: NetworkSet,
  ) {}

  /**
   * Reads the site's networks; `fresh` for lookups a write decision depends on. `withIntegration`
   * asks for the Integration `/networks` list alongside (zone and ACL views, which describe
   * UUIDs): a network without an `external_id` then costs no round trip of its own. `overview`
   * for views that name networks only: on the official API their details are not read.
   */
  static async load(
    gateway: Gateway,
    site: string,
    options: { fresh?: boolean; withIntegration?: boolean; official?: boolean; overview?: boolean } = {},
  ) {
    const fresh = options.fresh === true;
    // Zone and ACL views name networks by what the network tools show: on a console whose official
    // API serves networks, that list alone (ids are UUIDs, the classic `_id` is not needed).
    if (options.official) {
      const set = await loadNetworks(gateway, site, { fresh, details: options.overview !== true });
      if (set.official) {
        const directory = new NetworkDirectory(gateway, site, set.records, fresh, set);
        directory.integration = Promise.resolve(
          set.records.map((r) => integrationNetworkRecordSchema.parse({ id: r._id, name: r.name })),
        );
        return directory;
      }
      const directory = new NetworkDirectory(gateway, site, set.records, fresh);
      if (options.withIntegration) {
        directory.integration = integrationList(gateway, site, fresh);
        directory.integration.catch(() => undefined);
      }
      return directory;
    }
    const integration = options.withIntegration ? integrationList(gateway, site, fresh) : undefined;
    // Its failure is reported where the list is used; unused, it must not count as unhandled.
    integration?.catch(() => undefined);
    const { items } = await gateway.classicRead(site, 'rest/networkconf', networkRecordSchema, { fresh });
    const directory = new NetworkDirectory(gateway, site, items, fresh);
    directory.integration = integration;
    return directory;
  }

  /** A network named by classic id, Integration UUID or name, in both id spaces. */
  async resolve(ref: string, field: string): Promise<NetworkIds> {
    let record: NetworkRecord | undefined;
    try {
      record = this.set
        ? await findInSet(this.gateway, this.site, this.set, ref, field)
        : findNetwork(this.records, ref, field);
    } catch (error) {
      if (!(error instanceof ResourceNotFoundError)) throw error;
    }
    if (record) {
      const uuid = record.external_id || (await this.integrationByName(record.name))?.id;
      if (!uuid) {
        throw new NotSupportedError(
          `network ${record.name} (${record._id}) has no Integration API id: the Integration network list does not show it`,
        );
      }
      return { id: record._id, uuid, name: record.name, record };
    }
    // A network only the Integration API lists (no networkconf record) is still usable by UUID or name.
    const network = findByIdOrName(await this.integrationNetworks(), ref, {
      resource: 'network',
      field,
      id: (n) => n.id,
      name: (n) => n.name,
    });
    return { id: network.id, uuid: network.id, name: network.name };
  }

  /** The classic id and name of an Integration UUID; an unknown UUID is kept as it is, with no name. */
  async describe(uuid: string): Promise<NetworkIds> {
    const record = this.records.find((r) => r.external_id === uuid);
    if (record) return { id: record._id, uuid, name: record.name, record };
    const network = (await this.integrationNetworks()).find((n) => n.id === uuid);
    if (!network) return { id: uuid, uuid, name: null };
    const sameName = this.records.filter((r) => r.name.toLowerCase() === network.name.toLowerCase());
    const [match] = sameName;
    if (sameName.length === 1 && match) return { id: match._id, uuid, name: match.name, record: match };
    return { id: uuid, uuid, name: network.name };
  }

  /** `describe` for a list, in order. */
  describeAll(uuids: readonly string[]): Promise<NetworkIds[]> {
    return Promise.all(uuids.map((uuid) => this.describe(uuid)));
  }

  /** The name of a classic network id, or null. */
  nameOf(classicId: string): string | null {
    return this.records.find((r) => r._id === classicId)?.name ?? null;
  }

  private async integrationByName(name: string): Promise<IntegrationNetworkRecord | undefined> {
    const matches = (await this.integrationNetworks()).filter(
      (n) => n.name.toLowerCase() === name.toLowerCase(),
    );
    return matches.length === 1 ? matches[0] : undefined;
  }

  private integrationNetworks(): Promise<IntegrationNetworkRecord[]> {
    this.integration ??= integrationList(this.gateway, this.site, this.fresh);
    return this.integration;
  }
}

function integrationList(
  gateway: Gateway,
  site: string,
  fresh: boolean,
): Promise<IntegrationNetworkRecord[]> {
  return gateway
    .integrationList(site, 'networks', integrationNetworkRecordSchema, { fresh })
    .then((list) => list.items);
}
