import type { Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { McpWriteMode } from '../config.js';
import { UNREADABLE_FIELD } from '../lib/unreadable-records.js';
import type { ToolDefinition } from '../tools/core/define-tool.js';
import type { ToolRegistry } from '../tools/core/registry.js';
import { argumentsOf } from '../tools/core/schema-introspection.js';

type JsonObject = Record<string, unknown>;

/** What a write tool's verb says about it (MCP annotations); a new verb must be added here. */
const WRITE_VERBS: Record<string, { destructive: boolean; idempotent: boolean }> = {
  // Adds something; a second identical call adds another (or clashes).
  create: { destructive: false, idempotent: false },
  // Adds a network to a zone; already a member → no change.
  assign: { destructive: false, idempotent: true },
  // Overwrites settings (not additive); the same values again change nothing more.
  update: { destructive: true, idempotent: true },
  // Removes something; a second call finds nothing left to remove.
  delete: { destructive: true, idempotent: true },
  unassign: { destructive: true, idempotent: true },
  // The on-call actions. Restarting, power-cycling and kicking interrupt service, and
  // each call interrupts it again; blocking, unauthorizing, revoking and switching an SSID off take
  // something away once.
  restart: { destructive: true, idempotent: false },
  power: { destructive: true, idempotent: false },
  reconnect: { destructive: true, idempotent: false },
  locate: { destructive: false, idempotent: true },
  block: { destructive: true, idempotent: true },
  unblock: { destructive: false, idempotent: true },
  authorize: { destructive: false, idempotent: false },
  unauthorize: { destructive: true, idempotent: true },
  revoke: { destructive: true, idempotent: true },
  set: { destructive: true, idempotent: true },
  // Cancels a pending automatic revert; a second keep finds nothing left to cancel.
  keep: { destructive: false, idempotent: true },
};

/** The verb of a verb-first snake_case tool name. */
export function verbOf(name: string): string {
  return name.split('_')[0] ?? name;
}

/** "create_network" → "Create network". */
function titleOf(name: string): string {
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The MCP hints of a tool, from its access and, for a write, its verb. */
export function annotationsOf(tool: ToolDefinition): ToolAnnotations {
  const base = { title: titleOf(tool.name), openWorldHint: false };
  if (tool.access === 'read') return { ...base, readOnlyHint: true, idempotentHint: true };
  const verb = WRITE_VERBS[verbOf(tool.name)];
  if (!verb) throw new Error(`write tool ${tool.name}: its verb has no MCP annotations (tool-catalog.ts)`);
  return { ...base, readOnlyHint: false, destructiveHint: verb.destructive, idempotentHint: verb.idempotent };
}

const CONFIRM_TEXT: Record<Exclude<McpWriteMode, 'off'>, string> = {
  approval:
    'true: propose this change; it runs once a person approves it in Slack. Use dry_run to preview first',
  confirm: 'Must be true to run the change (dry_run: true previews it instead)',
};

const WRITE_NOTE: Record<Exclude<McpWriteMode, 'off'>, string> = {
  approval:
    'Changes the network: dry_run=true previews; confirm=true posts a change request for a person to approve in Slack and returns its id (get_change_request follows it).',
  confirm: 'Changes the network: dry_run=true previews; confirm=true runs it.',
};

const FIREWALL_NOTE = {
  legacy: 'Traditional firewall only (a zone-based console refuses it).',
  'zone-based': 'Zone-based firewall only.',
} as const;

/** What the catalogue is built for: the site default, the write mode, and a fleet's console names. */
export interface CatalogOptions {
  defaultSite: string;
  writes: McpWriteMode;
  /** The consoles of a fleet (a call must name one); undefined or one name: a single console. */
  consoles?: readonly string[];
}

/**
 * `console` and `site`, which the registry takes on every tool (`site` only where a tool has a
 * site: it is `site_id`'s alias). A fleet's description lists its consoles: the only place an
 * assistant learns the names before calling list_consoles.
 */
function placeProperties(options: CatalogOptions, has: Set<string>): JsonObject {
  const extra: JsonObject = {};
  const names = options.consoles ?? [];
  if (!has.has('console'))
    extra.console =
      names.length > 1
        ? {
            type: 'string',
            enum: [...names],
            description: `The console to run on (required in this fleet): one of ${names.join(', ')}`,
          }
        : { type: 'string', description: 'The console to run on; this server serves one, so leave it out' };
  if (has.has('site_id') && !has.has('site'))
    extra.site = {
      type: 'string',
      description: `The site (short name), the same as site_id; default ${options.defaultSite}`,
    };
  return extra;
}

/**
 * The tool's arguments as JSON Schema, from its zod schema (zod's own conversion, as the caller
 * sends them), with `console` and `site` (placeProperties). `site_id` may be left out: the
 * registry fills it with DEFAULT_SITE. Unknown arguments are refused, as the registry refuses them.
 */
export function inputSchemaOf(tool: ToolDefinition, options: CatalogOptions): Tool['inputSchema'] {
  const schema = z.toJSONSchema(tool.args, { io: 'input', unrepresentable: 'any' }) as JsonObject;
  const properties = { ...((schema.properties as Record<string, JsonObject> | undefined) ?? {}) };
  const required = ((schema.required as string[] | undefined) ?? []).filter((name) => name !== 'site_id');
  // Each argument says what it is for, in the words per-tool help uses (zod's conversion drops a
  // description set on a wrapped schema).
  for (const arg of argumentsOf(tool.args)) {
    const property = properties[arg.name];
    if (property && arg.description && property.description === undefined) {
      properties[arg.name] = { ...property, description: arg.description };
    }
  }
  if (properties.site_id) properties.site_id = { ...properties.site_id, default: options.defaultSite };
  if (properties.confirm && options.writes !== 'off') {
    properties.confirm = { ...properties.confirm, description: CONFIRM_TEXT[options.writes] };
    // The write meta-arguments (a duration: 30s, 5m, 2h, 1d).
    properties.revert_after = {
      type: 'string',
      description: 'Reverts the change by itself after this long unless someone keeps it (e.g. 5m)',
    };
    properties.for = {
      type: 'string',
      description: 'A temporary change: reverts by itself after this long (e.g. 2h)',
    };
  }
  Object.assign(properties, placeProperties(options, new Set(Object.keys(properties))));
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}

// What a write answers besides its result: the dry run's preview, and (approval mode) the change request.
const DRY_RUN_OUTPUT: JsonObject = {
  type: 'object',
  properties: {
    dry_run: { const: true, description: 'A preview: nothing was changed' },
    warnings: { type: 'array', items: { type: 'string' }, description: 'What the change affects' },
  },
  required: ['dry_run'],
};
// A failure is a tool result too (error-text.ts), and MCP clients check it against the schema as well.
const ERROR_OUTPUT: JsonObject = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: { code: { type: 'string' }, message: { type: 'string' }, fields: { type: 'array' } },
      required: ['code', 'message'],
    },
  },
  required: ['error'],
};
const CHANGE_REQUEST_OUTPUT: JsonObject = {
  type: 'object',
  properties: {
    change_request_id: { type: 'string', description: 'Follow it with get_change_request' },
    state: { type: 'string', description: 'pending until a person approves it in Slack' },
  },
  required: ['change_request_id', 'state'],
};

/** A read's shape with the count of controller records it left out (lib/unreadable-records.ts). */
function withUnreadable(shape: JsonObject): JsonObject {
  return withProperties(shape, {
    [UNREADABLE_FIELD]: {
      type: 'integer',
      minimum: 1,
      description: 'Controller records the bot could not read and left out; absent when none',
    },
  });
}

/** A write's result with what every write answer carries: its change id and verification. */
function withChange(shape: JsonObject): JsonObject {
  return withProperties(shape, {
    change_id: { type: 'string', description: 'The recorded change (change <id>, revert_change)' },
    verification: {
      type: 'string',
      description: 'verified, applied, not as sent (with the fields), or not verified (why)',
    },
  });
}

/** An object schema with `extra` properties added after its own. */
function withProperties(shape: JsonObject, extra: JsonObject): JsonObject {
  return { ...shape, properties: { ...((shape.properties ?? {}) as JsonObject), ...extra } };
}

/**
 * The tool's output schema, for a tool that declares `output`: its result as JSON Schema (an
 * array result under `result`, as toolResult carries it); for a write, also the dry run's preview
 * and, in approval mode, the change request it answers with instead; and the error every tool may
 * answer with.
 */
export function outputSchemaOf(tool: ToolDefinition, writes: McpWriteMode): Tool['outputSchema'] {
  if (!tool.output) return undefined;
  const { $schema: _draft, ...result } = z.toJSONSchema(tool.output, {
    io: 'output',
    unrepresentable: 'any',
  }) as JsonObject;
  const asObject: JsonObject =
    result.type === 'object' ? result : { type: 'object', properties: { result }, required: ['result'] };
  const shapes =
    tool.access === 'read'
      ? [withUnreadable(asObject), ERROR_OUTPUT]
      : [
          withChange(asObject),
          DRY_RUN_OUTPUT,
          ...(writes === 'approval' ? [CHANGE_REQUEST_OUTPUT] : []),
          ERROR_OUTPUT,
        ];
  return { type: 'object', anyOf: shapes } as Tool['outputSchema'];
}

/** One registry tool as MCP lists it. */
export function mcpToolOf(tool: ToolDefinition, options: CatalogOptions): Tool {
  const notes = [
    tool.firewall ? FIREWALL_NOTE[tool.firewall] : '',
    tool.access === 'write' && options.writes !== 'off' ? WRITE_NOTE[options.writes] : '',
  ].filter(Boolean);
  return {
    name: tool.name,
    description: [`${tool.description}.`, ...notes].join(' '),
    inputSchema: inputSchemaOf(tool, options),
    ...(tool.output ? { outputSchema: outputSchemaOf(tool, options.writes) } : {}),
    annotations: annotationsOf(tool),
  };
}

/** The registry's tools an MCP client sees: every one, but no write tool when MCP_WRITES=off. */
export function registryToolsFor(registry: ToolRegistry, options: CatalogOptions): Tool[] {
  return registry
    .list()
    .filter((tool) => tool.access === 'read' || options.writes !== 'off')
    .map((tool) => mcpToolOf(tool, options));
}
