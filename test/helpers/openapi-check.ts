import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { RecordedRequest } from '../../src/simulator/types.js';

/**
 * Checks requests the bot sent to `/integration/v1/…` against the extract of Ubiquiti's 10.1.85
 * OpenAPI document (test/fixtures/openapi): path template, method, path and query parameters, and
 * the body against the operation's request schema (ajv, JSON Schema 2020-12, with the document's
 * `discriminator` mappings turned into if/then branches), plus no property the schema does not name.
 */

type Json = Record<string, unknown>;
interface Parameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: Json;
}
interface Operation {
  operationId: string;
  parameters: Parameter[];
  requestBody?: { content: { 'application/json': { schema: { $ref: string } } } };
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Json> };
}

const DOCUMENT: Document = JSON.parse(
  readFileSync(join(import.meta.dirname, '../fixtures/openapi/unifi-network-10.1.85.extract.json'), 'utf8'),
);

const SCHEMAS = DOCUMENT.components.schemas;
const REF = '#/components/schemas/';
const idOf = (name: string) => `s_${name.replace(/[^A-Za-z0-9]/g, '_')}`;
const baseIdOf = (name: string) => `${idOf(name)}__base`;
const nameOfRef = (ref: string) => ref.slice(REF.length);

interface Discriminator {
  propertyName: string;
  mapping: Record<string, string>;
}

/** Rewrites `$ref`s to ajv ids; inside a discriminator's subtypes, refs to that base use its plain form. */
function rewrite(value: unknown, bases: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => rewrite(v, bases));
  if (typeof value !== 'object' || value === null) return value;
  const out: Json = {};
  for (const [key, v] of Object.entries(value as Json)) {
    if (key === '$ref' && typeof v === 'string') {
      const name = nameOfRef(v);
      out.$ref = bases.has(name) ? baseIdOf(name) : idOf(name);
    } else if (key === 'discriminator' || key === 'x-not-extracted') {
      // discriminator is handled by the dispatch schema; the marker is checked separately.
    } else {
      out[key] = rewrite(v, bases);
    }
  }
  return out;
}

function buildAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  // The formats the extract uses: uuid is checked, the integer widths are bounds already given.
  ajv
    .addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i)
    .addFormat('date', /^\d{4}-\d{2}-\d{2}$/)
    .addFormat('int32', true)
    .addFormat('int64', true);
  // For each discriminated schema: which subtypes refer back to it.
  const subtypeBases = new Map<string, Set<string>>();
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    const d = schema.discriminator as Discriminator | undefined;
    if (!d) continue;
    for (const target of Object.values(d.mapping)) {
      const set = subtypeBases.get(nameOfRef(target)) ?? new Set<string>();
      set.add(name);
      subtypeBases.set(nameOfRef(target), set);
    }
  }
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    const bases = subtypeBases.get(name) ?? new Set<string>();
    const d = schema.discriminator as Discriminator | undefined;
    if (!d) {
      ajv.addSchema({ ...(rewrite(schema, bases) as Json), $id: idOf(name) });
      continue;
    }
    ajv.addSchema({ ...(rewrite(schema, bases) as Json), $id: baseIdOf(name) });
    ajv.addSchema({
      $id: idOf(name),
      allOf: [
        { $ref: baseIdOf(name) },
        { properties: { [d.propertyName]: { enum: Object.keys(d.mapping) } }, required: [d.propertyName] },
        ...Object.entries(d.mapping).map(([value, target]) => ({
          if: { properties: { [d.propertyName]: { const: value } }, required: [d.propertyName] },
          // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, not a thenable
          then: { $ref: idOf(nameOfRef(target)) },
        })),
      ],
    });
  }
  return ajv;
}

const ajv = buildAjv();
const validators = new Map<string, ValidateFunction>();
function validatorFor(name: string): ValidateFunction {
  let v = validators.get(name);
  if (!v) {
    v = ajv.getSchema(idOf(name));
    if (!v) throw new Error(`no schema ${name} in the extract`);
    validators.set(name, v);
  }
  return v;
}

/** Property names a schema allows for this value (own, allOf, and the discriminated subtype's). */
function allowedProperties(schema: Json, value: Json, seen = new Set<Json>()): Map<string, Json> {
  const props = new Map<string, Json>();
  if (seen.has(schema)) return props;
  seen.add(schema);
  if (typeof schema.$ref === 'string') {
    const target = SCHEMAS[nameOfRef(schema.$ref)];
    if (target) for (const [k, v] of allowedProperties(target, value, seen)) props.set(k, v);
    return props;
  }
  for (const [k, v] of Object.entries((schema.properties as Json | undefined) ?? {})) {
    // A subtype's narrower schema wins over the base's open one (sourceFilter: {} in the base).
    if (!props.has(k) || Object.keys(v as Json).length > 0) props.set(k, v as Json);
  }
  for (const part of (schema.allOf as Json[] | undefined) ?? []) {
    for (const [k, v] of allowedProperties(part, value, seen)) {
      if (!props.has(k) || Object.keys(v).length > 0) props.set(k, v);
    }
  }
  const d = schema.discriminator as Discriminator | undefined;
  const chosen = d ? d.mapping[String(value[d.propertyName])] : undefined;
  if (chosen) {
    const target = SCHEMAS[nameOfRef(chosen)];
    if (target) {
      for (const [k, v] of allowedProperties(target, value, seen)) {
        if (!props.has(k) || Object.keys(v).length > 0) props.set(k, v);
      }
    }
  }
  return props;
}

/** Paths (JSON pointer-ish) of properties the schema does not name, recursively. */
function unknownProperties(schema: Json, value: unknown, at: string): string[] {
  if (Array.isArray(value)) {
    const items = schema.items as Json | undefined;
    return items ? value.flatMap((v, i) => unknownProperties(items, v, `${at}/${i}`)) : [];
  }
  if (typeof value !== 'object' || value === null) return [];
  if (typeof schema.$ref === 'string' || schema.allOf || schema.properties || schema.discriminator) {
    const allowed = allowedProperties(schema, value as Json);
    const out: string[] = [];
    for (const [key, v] of Object.entries(value as Json)) {
      const sub = allowed.get(key);
      if (sub === undefined) out.push(`${at}/${key}`);
      else out.push(...unknownProperties(sub, v, `${at}/${key}`));
    }
    return out;
  }
  return [];
}

interface CompiledPath {
  template: string;
  regex: RegExp;
  names: string[];
  literals: number;
}

const COMPILED: CompiledPath[] = Object.keys(DOCUMENT.paths).map((template) => {
  const names: string[] = [];
  const segments = template.split('/').filter((s) => s !== '');
  const pattern = segments
    .map((s) => {
      const m = /^\{(.+)\}$/.exec(s);
      if (!m) return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(m[1] ?? '');
      return '([^/]+)';
    })
    .join('/');
  return {
    template,
    regex: new RegExp(`^/${pattern}$`),
    names,
    literals: segments.filter((s) => !s.startsWith('{')).length,
  };
});

function checkValue(schema: Json, raw: string): string | undefined {
  if (schema.type === 'integer') {
    if (!/^-?\d+$/.test(raw)) return 'is not an integer';
    const n = Number(raw);
    if (typeof schema.minimum === 'number' && n < schema.minimum) return `is below ${schema.minimum}`;
    if (typeof schema.maximum === 'number' && n > schema.maximum) return `is above ${schema.maximum}`;
  }
  if (schema.type === 'boolean' && raw !== 'true' && raw !== 'false') return 'is not a boolean';
  if (
    schema.format === 'uuid' &&
    !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(raw)
  )
    return 'is not a UUID';
  return undefined;
}

/** What is wrong with one request to `/integration/v1/…`, as sentences (empty: it matches the document). */
export function integrationRequestProblems(request: RecordedRequest): string[] {
  const route = request.route;
  if (!route.startsWith('/integration/')) return [];
  const path = route.slice('/integration'.length);
  const what = `${request.method} ${route}`;
  const candidates = COMPILED.filter((c) => c.regex.test(path)).sort((a, b) => b.literals - a.literals);
  const compiled = candidates.find((c) => DOCUMENT.paths[c.template]?.[request.method.toLowerCase()]);
  if (!compiled) {
    return [
      candidates.length === 0
        ? `${what}: no path of the document matches`
        : `${what}: the document has no ${request.method} on ${candidates[0]?.template}`,
    ];
  }
  const operation = DOCUMENT.paths[compiled.template]?.[request.method.toLowerCase()] as Operation;
  const problems: string[] = [];
  const values = compiled.regex.exec(path)?.slice(1) ?? [];
  compiled.names.forEach((name, i) => {
    const parameter = operation.parameters.find((p) => p.in === 'path' && p.name === name);
    const raw = decodeURIComponent(values[i] ?? '');
    const problem = parameter ? checkValue(parameter.schema, raw) : 'is not a parameter of the operation';
    if (problem) problems.push(`${what}: path parameter ${name} (${raw}) ${problem}`);
  });
  const queryParameters = operation.parameters.filter((p) => p.in === 'query');
  for (const [key, raw] of Object.entries(request.query)) {
    const parameter = queryParameters.find((p) => p.name === key);
    if (!parameter) {
      problems.push(`${what}: query parameter ${key} is not in ${operation.operationId}`);
      continue;
    }
    const problem = checkValue(parameter.schema, raw);
    if (problem) problems.push(`${what}: query parameter ${key}=${raw} ${problem}`);
  }
  for (const parameter of queryParameters) {
    if (parameter.required && !(parameter.name in request.query))
      problems.push(`${what}: required query parameter ${parameter.name} is missing`);
  }
  const bodyRef = operation.requestBody?.content['application/json'].schema.$ref;
  const hasBody = request.body !== undefined && request.body !== null && request.body !== '';
  if (bodyRef === undefined) {
    if (hasBody) problems.push(`${what}: ${operation.operationId} takes no body, one was sent`);
    return problems;
  }
  if (!hasBody) return [...problems, `${what}: ${operation.operationId} needs a body, none was sent`];
  const name = nameOfRef(bodyRef);
  if ((SCHEMAS[name] as Json | undefined)?.['x-not-extracted']) {
    return [...problems, `${what}: the body schema ${name} is not in the extract yet (extend it first)`];
  }
  const validate = validatorFor(name);
  if (!validate(request.body)) {
    for (const error of validate.errors ?? []) {
      if (error.keyword === 'if') continue;
      problems.push(`${what}: body${error.instancePath} ${error.message ?? 'is invalid'} (${name})`);
    }
  }
  for (const extra of unknownProperties({ $ref: bodyRef }, request.body, '')) {
    problems.push(`${what}: body property ${extra} is not in ${name}`);
  }
  return problems;
}

/** Every problem of every Integration request in a list. */
export function integrationProblems(requests: readonly RecordedRequest[]): string[] {
  return requests.flatMap(integrationRequestProblems);
}

/** The document's operation ids, for coverage counts. */
export function operationIdOf(request: RecordedRequest): string | undefined {
  if (!request.route.startsWith('/integration/')) return undefined;
  const path = request.route.slice('/integration'.length);
  const candidates = COMPILED.filter((c) => c.regex.test(path)).sort((a, b) => b.literals - a.literals);
  for (const c of candidates) {
    const operation = DOCUMENT.paths[c.template]?.[request.method.toLowerCase()];
    if (operation) return operation.operationId;
  }
  return undefined;
}
