import { z } from 'zod';
import { ValidationError } from '../../errors.js';
import type { Gateway } from '../../gateway/types.js';
import { findByIdOrName } from '../../lib/find-by-id-or-name.js';
import {
  type TrafficMatchingListRecord,
  trafficMatchingListRecordSchema,
} from '../../records/traffic-matching-list-record.js';
import { confirm, dryRun, limit, nonEmpty, offset, siteId, text } from '../core/arg-types.js';
import { applyCreate, applyDelete, applyUpdate, fieldChanges } from '../core/crud-model.js';
import { defineTool, type ToolDefinition } from '../core/define-tool.js';
import { trafficMatchingListChanges } from './changes.js';
import {
  isListType,
  itemText,
  LIST_TYPES,
  type ListType,
  toTrafficMatchingList,
  toTypedItems,
} from './traffic-matching-list-model.js';

const LISTS = 'traffic-matching-lists';

const listRef = nonEmpty('must be a list id or name').describe('Traffic matching list id (or its name)');
const listType = z
  .enum(LIST_TYPES, { error: `must be one of ${LIST_TYPES.join(', ')}` })
  .describe('PORTS, IPV4_ADDRESSES or IPV6_ADDRESSES');
const items = z
  .array(z.string({ error: 'must be text' }).trim().min(1, { error: 'must not be empty' }), {
    error: 'must be a list of ports, addresses, subnets or ranges',
  })
  .min(1, { error: 'must hold at least one item' })
  .describe('Ports (443, 8000-8100) or addresses (10.0.0.0/8, 192.168.1.10-192.168.1.20)');

async function readLists(
  gateway: Gateway,
  site: string,
  fresh = false,
): Promise<TrafficMatchingListRecord[]> {
  return (await gateway.integrationList(site, LISTS, trafficMatchingListRecordSchema, { fresh })).items;
}

function findList(lists: readonly TrafficMatchingListRecord[], ref: string): TrafficMatchingListRecord {
  return findByIdOrName(lists, ref, {
    resource: 'traffic matching list',
    field: 'list_id',
    id: (l) => l.id,
    name: (l) => l.name,
  });
}

/** The controller's answer as the spec's list; an answer the schema cannot read is shown as sent. */
function listFrom(answer: unknown): unknown {
  const parsed = trafficMatchingListRecordSchema.safeParse(answer);
  return parsed.success ? toTrafficMatchingList(parsed.data) : answer;
}

function sameNameWarnings(lists: readonly TrafficMatchingListRecord[], name: string, except?: string) {
  const clash = lists.find((l) => l.id !== except && l.name.toLowerCase() === name.toLowerCase());
  return clash ? [`another list is already named "${clash.name}" (${clash.id})`] : [];
}

/** Typed items for `type`; when only the type changes, the refusal also says to give new items. */
function typedItemsFor(itemsText: readonly string[], type: ListType, keptForNewType: boolean) {
  try {
    return toTypedItems(itemsText, type);
  } catch (error) {
    if (!keptForNewType || !(error instanceof ValidationError)) throw error;
    throw new ValidationError([
      ...error.issues,
      { field: 'list_type', rule: `the current items do not suit ${type}: give items valid for it` },
    ]);
  }
}

// Deliberately alike: the tools below are defineTool declarations, whose shape the framework fixes; each differs in args and run.
const listTrafficMatchingLists = defineTool({
  name: 'list_traffic_matching_lists',
  description: 'List the traffic matching lists (ports or addresses) with their items',
  access: 'read',
  example: '',
  args: z.object({ site_id: siteId, limit: limit(100), offset }),
  async run({ site_id, limit, offset }, { gateway }) {
    return (await readLists(gateway, site_id)).slice(offset, offset + limit).map(toTrafficMatchingList);
  },
});

const getTrafficMatchingList = defineTool({
  name: 'get_traffic_matching_list',
  description: 'One traffic matching list with its items',
  access: 'read',
  example: 'list_id="Web Ports"',
  args: z.object({ site_id: siteId, list_id: listRef }),
  async run({ site_id, list_id }, { gateway }) {
    return toTrafficMatchingList(findList(await readLists(gateway, site_id), list_id));
  },
});

const createTrafficMatchingList = defineTool({
  name: 'create_traffic_matching_list',
  change: trafficMatchingListChanges.create_traffic_matching_list,
  description: 'Create a list of ports or addresses for firewall policies to match',
  access: 'write',
  example: 'list_type=PORTS name="Mail Ports" items=25,465,587',
  args: z.object({
    site_id: siteId,
    list_type: listType,
    name: text(128).describe('List name'),
    items,
    confirm,
    dry_run: dryRun,
  }),
  async run(args, { gateway }) {
    const payload = {
      type: args.list_type,
      name: args.name,
      items: toTypedItems(args.items, args.list_type),
    };
    const warnings = sameNameWarnings(await readLists(gateway, args.site_id, true), args.name);
    return applyCreate({
      dryRun: args.dry_run,
      payload,
      warnings,
      send: () => gateway.integrationWrite(args.site_id, 'POST', LISTS, payload),
      result: (answer) => ({ traffic_matching_list: listFrom(answer) }),
    });
  },
});

const updateTrafficMatchingList = defineTool({
  name: 'update_traffic_matching_list',
  change: trafficMatchingListChanges.update_traffic_matching_list,
  description: 'Rename a list, change its type, or replace all its items',
  access: 'write',
  example: 'list_id="Web Ports" items=80,443,8080',
  args: z.object({
    site_id: siteId,
    list_id: listRef,
    list_type: listType.optional(),
    name: text(128).optional().describe('New list name'),
    items: items.optional().describe('Replaces every item of the list'),
    confirm,
    dry_run: dryRun,
  }),
  async run(args, { gateway }) {
    const lists = await readLists(gateway, args.site_id, true);
    const current = findList(lists, args.list_id);
    const currentView = toTrafficMatchingList(current);
    const type = args.list_type ?? current.type;
    if (!isListType(type)) {
      throw new ValidationError([
        { field: 'list_type', rule: `the list has type ${type}, which this bot cannot edit; give list_type` },
      ]);
    }
    // The controller's PUT is a full replace: type, name and items always go together. Kept items
    // must also suit a new type, so a type change without items is checked against the old items.
    const itemsText = args.items ?? currentView.items;
    const typed = typedItemsFor(itemsText, type, args.items === undefined && type !== current.type);
    const body = { type, name: args.name ?? current.name, items: typed };
    const next = { list_type: type, name: body.name, items: typed.map(itemText) };
    const changes = fieldChanges(currentView, next);
    const warnings = sameNameWarnings(lists, body.name, current.id);
    if ('items' in changes) warnings.push('items replace every existing entry of the list');
    if ('list_type' in changes)
      warnings.push('policies that use this list now match a different kind of traffic');
    return applyUpdate({
      dryRun: args.dry_run,
      subject: { list_id: current.id, name: current.name },
      changes,
      body,
      warnings,
      send: () => gateway.integrationWrite(args.site_id, 'PUT', `${LISTS}/${current.id}`, body),
      result: (answer) => ({
        traffic_matching_list: answer === undefined ? currentView : listFrom(answer),
      }),
    });
  },
});

const deleteTrafficMatchingList = defineTool({
  name: 'delete_traffic_matching_list',
  change: trafficMatchingListChanges.delete_traffic_matching_list,
  description: 'Delete a traffic matching list (irreversible)',
  access: 'write',
  example: 'list_id="IPv6 Cloud DNS"',
  args: z.object({ site_id: siteId, list_id: listRef, confirm, dry_run: dryRun }),
  async run({ site_id, list_id, dry_run }, { gateway }) {
    const target = findList(await readLists(gateway, site_id, true), list_id);
    // Deliberately alike: delete tools end in applyDelete with their own id field and API path, then list the file's tools for the registry.
    return applyDelete({
      dryRun: dry_run,
      preview: toTrafficMatchingList(target),
      warnings: [
        'deletion is irreversible',
        'check the firewall policies that reference this list before deleting it',
      ],
      idField: 'deleted_list_id',
      id: target.id,
      send: () => gateway.integrationWrite(site_id, 'DELETE', `${LISTS}/${target.id}`),
    });
  },
});

/** Spec 4.6: traffic matching lists (Integration `traffic-matching-lists`, typed items shown as strings). */
export const trafficMatchingListTools: ToolDefinition[] = [
  listTrafficMatchingLists,
  getTrafficMatchingList,
  createTrafficMatchingList,
  updateTrafficMatchingList,
  deleteTrafficMatchingList,
];
