import { z } from 'zod';
import { ResourceNotFoundError } from '../errors.js';
import { isRecord } from '../lib/is-record.js';
import type { KeyValueStore } from '../lib/json-file-store.js';
import type { ToolContext } from '../tools/core/define-tool.js';

// changes/ reaches the controller only through the tools' context, so the gateway's types are
// taken from there rather than imported from gateway/.
type Gateway = ToolContext['gateway'];
type WriteMethod = Parameters<Gateway['classicWrite']>[1];
type ReadOptions = NonNullable<Parameters<Gateway['v2Read']>[3]>;
/** A list as the gateway parses it: the records that fit their schema, and how many did not. */
interface ParsedList<T> {
  items: T[];
  skipped: number;
}

type Json = Record<string, unknown>;
type Api = 'classic' | 'v2' | 'integration';

const anyRecord = z.looseObject({});
/** Where a record keeps its id in each API. */
const ID_FIELD: Record<Api, string> = { classic: '_id', v2: '_id', integration: 'id' };

/** Classic and v2 paths that act rather than store (`cmd/devmgr`): a planned write there leaves nothing to read. */
const ACTION_PATH = /^(cmd|stat)\//;

/** One collection's planned changes: records added, fields set on existing ones, ids removed. */
interface Planned {
  added: Json[];
  patched: Map<string, Json>;
  removed: Set<string>;
}

/**
 * The controller as it will be once some writes have run. A change set's preview runs
 * every step's ordinary dry run against this, so step 4 sees the network step 1 creates (by name,
 * with a placeholder id) and a typo in any step is found before anyone approves.
 *
 * It wraps a gateway: reads go to the controller and come back with the planned changes laid over
 * them; writes are never sent, they are recorded as planned changes (a create gets a placeholder id,
 * an update is merged over the record, a delete hides it). Placeholder ids are numbered in step
 * order, so the same plan over the same controller always previews (and hashes) the same.
 */
export class PlannedState {
  private readonly planned = new Map<string, Planned>();
  private readonly data = new Map<string, unknown>();
  private readonly deleted = new Set<string>();
  private counter = 0;
  /** Each console of a fleet has its own planned state: its sites and ids are its own. */
  private readonly consoles = new Map<string, PlannedState>();

  /**
   * A tool context whose reads see the planned state and whose writes only add to it. A call
   * naming a console (`console=`) gets that console's gateway, wrapped the same way: a planned
   * write on any console is never sent.
   */
  context(base: ToolContext): ToolContext {
    const store = this.store(base.store);
    const port = base.consoles;
    if (!port) return { ...base, gateway: this.gateway(base.gateway), store };
    const consoles: NonNullable<ToolContext['consoles']> = {
      fleet: port.fleet,
      readBudgetMs: port.readBudgetMs,
      list: () => port.list(),
      channel: (id) => port.channel(id),
      gateway: (name) => {
        let planned = this.consoles.get(name);
        if (!planned) {
          planned = new PlannedState();
          this.consoles.set(name, planned);
        }
        return planned.gateway(port.gateway(name));
      },
    };
    return { ...base, gateway: this.gateway(base.gateway), store, consoles };
  }

  private key(api: Api, site: string, collection: string): string {
    return `${api}|${site}|${collection}`;
  }

  private entry(api: Api, site: string, collection: string): Planned {
    const key = this.key(api, site, collection);
    let found = this.planned.get(key);
    if (!found) {
      found = { added: [], patched: new Map(), removed: new Set() };
      this.planned.set(key, found);
    }
    return found;
  }

  /** A placeholder id in the API's own shape (24 hex digits, or a UUID), recognisable by its f's. */
  private newId(api: Api): string {
    this.counter += 1;
    const n = this.counter.toString(16);
    return api === 'integration'
      ? `ffffffff-ffff-4fff-8fff-${n.padStart(12, '0')}`
      : `ffffffffffffffff${n.padStart(8, '0')}`;
  }

  /** The records of a list read with the planned changes laid over them, parsed with the read's schema. */
  private overlay<T>(api: Api, site: string, path: string, list: ParsedList<T>, schema: z.ZodType<T>) {
    const planned = this.planned.get(this.key(api, site, path));
    if (!planned) return list;
    const idField = ID_FIELD[api];
    const items: T[] = [];
    for (const item of list.items) {
      const id = isRecord(item) ? String(item[idField] ?? '') : '';
      if (planned.removed.has(id)) continue;
      const patch = planned.patched.get(id);
      if (!patch) {
        items.push(item);
        continue;
      }
      const merged = schema.safeParse({ ...(item as Json), ...patch });
      items.push(merged.success ? merged.data : item);
    }
    for (const record of planned.added) {
      const parsed = schema.safeParse(record);
      if (parsed.success) items.push(parsed.data);
    }
    return { items, skipped: list.skipped };
  }

  /** `firewall/zones/abc` → collection `firewall/zones`, id `abc`. */
  private split(path: string): { collection: string; id: string } {
    const at = path.lastIndexOf('/');
    return { collection: path.slice(0, at), id: path.slice(at + 1) };
  }

  /** The record a planned update starts from: planned already, or read from the controller. */
  private async current(
    api: Api,
    site: string,
    collection: string,
    id: string,
    read: () => Promise<unknown[]>,
  ): Promise<Json | undefined> {
    const planned = this.entry(api, site, collection);
    const added = planned.added.find((r) => r[ID_FIELD[api]] === id);
    if (added) return added;
    if (planned.removed.has(id)) return undefined;
    const found = (await read()).filter(isRecord).find((r) => String(r[ID_FIELD[api]]) === id);
    return found ? { ...found, ...(planned.patched.get(id) ?? {}) } : undefined;
  }

  /** Records one write as planned and answers it as the controller would (the stored record). */
  private async write(
    api: Api,
    site: string,
    method: WriteMethod,
    path: string,
    body: unknown,
    read: (collection: string) => Promise<unknown[]>,
  ): Promise<Json | undefined> {
    const idField = ID_FIELD[api];
    if (method === 'POST') {
      if (api !== 'integration' && ACTION_PATH.test(path)) return undefined;
      const record: Json = { ...(isRecord(body) ? body : {}), [idField]: this.newId(api) };
      if (api === 'classic' && path === 'rest/networkconf') {
        // A network the classic API creates is listed by the Integration API too (zones name it by UUID).
        record.external_id = this.newId('integration');
        this.entry('integration', site, 'networks').added.push({
          id: record.external_id,
          name: record.name,
          enabled: true,
          ...(typeof record.vlan === 'number' ? { vlanId: record.vlan } : {}),
        });
      }
      this.entry(api, site, path).added.push(record);
      return record;
    }
    const { collection, id } = this.split(path);
    const planned = this.entry(api, site, collection);
    const found = await this.current(api, site, collection, id, () => read(collection));
    if (!found) {
      if (method === 'DELETE') throw new ResourceNotFoundError(collection, id);
      // A settings object rather than a record of a list (`acl-rules/ordering`): its new value is kept.
      const merged = { ...(planned.patched.get(id) ?? {}), ...(isRecord(body) ? body : {}) };
      planned.patched.set(id, merged);
      return merged;
    }
    if (method === 'DELETE') {
      const index = planned.added.indexOf(found);
      if (index >= 0) planned.added.splice(index, 1);
      else planned.removed.add(id);
      return undefined;
    }
    const merged = { ...found, ...(isRecord(body) ? body : {}) };
    const index = planned.added.indexOf(found);
    if (index >= 0) planned.added[index] = merged;
    else planned.patched.set(id, { ...(planned.patched.get(id) ?? {}), ...(isRecord(body) ? body : {}) });
    return merged;
  }

  private gateway(base: Gateway): Gateway {
    const fresh: ReadOptions = { fresh: true };
    const classicList = (site: string) => async (collection: string) =>
      (await base.classicRead(site, collection, anyRecord, fresh)).items;
    const v2List = (site: string) => async (collection: string) =>
      (await base.v2Read(site, collection, anyRecord, fresh)).items;
    const integrationList = (site: string) => async (collection: string) =>
      (await base.integrationList(site, collection, anyRecord, fresh)).items;
    const overrides: Partial<Gateway> = {
      classicRead: async (site, path, schema, options) =>
        this.overlay('classic', site, path, await base.classicRead(site, path, schema, options), schema),
      v2Read: async (site, path, schema, options) =>
        this.overlay('v2', site, path, await base.v2Read(site, path, schema, options), schema),
      integrationList: async (site, path, schema, options) =>
        this.overlay(
          'integration',
          site,
          path,
          await base.integrationList(site, path, schema, options),
          schema,
        ),
      integrationGet: async <T>(site: string, path: string, schema: z.ZodType<T>, options?: ReadOptions) => {
        const { collection, id } = this.split(path);
        const planned = this.planned.get(this.key('integration', site, collection));
        if (!planned) return base.integrationGet(site, path, schema, options);
        if (planned.removed.has(id)) throw new ResourceNotFoundError(collection, id);
        const added = planned.added.find((r) => r.id === id);
        if (added) return schema.parse(added);
        const found = await base.integrationGet(site, path, schema, options);
        const patch = planned.patched.get(id);
        return patch ? schema.parse({ ...(found as Json), ...patch }) : found;
      },
      classicWrite: async (site, method, path, body) => {
        const record = await this.write('classic', site, method, path, body, classicList(site));
        return record ? [record] : [];
      },
      v2Write: async (site, method, path, body) => this.write('v2', site, method, path, body, v2List(site)),
      integrationWrite: async (site, method, path, body) =>
        this.write('integration', site, method, path, body, integrationList(site)),
      // Nothing was sent, so nothing the controller answered is stale.
      invalidate: () => undefined,
    };
    return new Proxy(base, {
      get(target, property, receiver) {
        if (typeof property === 'string' && property in overrides)
          return overrides[property as keyof Gateway];
        return Reflect.get(target, property, receiver);
      },
    });
  }

  /** Bot-kept data (zone descriptions) as the planned writes leave it; the real store is never written. */
  private store(base: KeyValueStore): KeyValueStore {
    return {
      get: async <T>(key: string) => {
        if (this.deleted.has(key)) return undefined;
        if (this.data.has(key)) return this.data.get(key) as T;
        return base.get<T>(key);
      },
      set: async (key, value) => {
        this.deleted.delete(key);
        this.data.set(key, value);
      },
      delete: async (key) => {
        this.data.delete(key);
        this.deleted.add(key);
      },
      keys: async (prefix = '') => {
        const keys = new Set([...(await base.keys(prefix)), ...this.data.keys()]);
        for (const key of this.deleted) keys.delete(key);
        return [...keys].filter((key) => key.startsWith(prefix));
      },
    };
  }
}
