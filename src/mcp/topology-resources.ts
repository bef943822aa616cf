import type { ReadResourceResult, Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { BotError } from '../errors.js';
import type { ToolContext } from '../tools/core/define-tool.js';
import type { ToolRegistry } from '../tools/core/registry.js';

/** export_topology's formats, as resources: `topology://{site}` is the JSON, the others a path below. */
const FORMATS = {
  json: { mimeType: 'application/json', what: 'JSON: devices, clients, connections, uplink depth' },
  graphml: { mimeType: 'application/graphml+xml', what: 'GraphML (yEd, Gephi, networkx)' },
  dot: { mimeType: 'text/vnd.graphviz', what: 'DOT (Graphviz)' },
} as const;

type Format = keyof typeof FORMATS;

const uriOf = (site: string, format: Format) =>
  format === 'json' ? `topology://${site}` : `topology://${site}/${format}`;

const URI = /^topology:\/\/([^/?#]+)(?:\/(json|graphml|dot))?\/?$/;

/** A resource URI that names no topology of ours (the client reads it as "resource not found"). */
export class UnknownResourceError extends BotError {
  readonly code = 'not_found';
  constructor(readonly uri: string) {
    super(`no such resource: ${uri} (topology://<site>, topology://<site>/graphml or topology://<site>/dot)`);
  }
}

/** A topology URI whose site is not valid percent-encoding (`topology://%ZZ`): bad params, not a bug. */
export class BadResourceUriError extends BotError {
  readonly code = 'validation_failed';
  constructor(readonly rule: string) {
    super(rule);
  }
}

/** The site's topology as MCP resources, one per export format, read through the registry's export_topology. */
export class TopologyResources {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly context: ToolContext,
    private readonly defaultSite: string,
  ) {}

  /** The default site's three exports. */
  list(): Resource[] {
    return (Object.keys(FORMATS) as Format[]).map((format) => ({
      uri: uriOf(this.defaultSite, format),
      name: `topology-${this.defaultSite}.${format}`,
      title: `Topology of site ${this.defaultSite} (${format})`,
      description: `The network topology of site ${this.defaultSite} as ${FORMATS[format].what}`,
      mimeType: FORMATS[format].mimeType,
    }));
  }

  /** Any site's exports. */
  templates(): ResourceTemplate[] {
    return (Object.keys(FORMATS) as Format[]).map((format) => ({
      uriTemplate: format === 'json' ? 'topology://{site}' : `topology://{site}/${format}`,
      name: `topology-${format}`,
      title: `Topology of a site (${format})`,
      description: `The network topology of a site as ${FORMATS[format].what}`,
      mimeType: FORMATS[format].mimeType,
    }));
  }

  /** Reads one export; an unknown site or a controller failure throws the registry's error. */
  async read(uri: string): Promise<ReadResourceResult> {
    const match = URI.exec(uri);
    if (!match?.[1]) throw new UnknownResourceError(uri);
    let site: string;
    try {
      site = decodeURIComponent(match[1]);
    } catch {
      throw new BadResourceUriError(
        'the site in a topology:// URI must be percent-encoded correctly (%ZZ is not an escape)',
      );
    }
    const format = (match[2] ?? 'json') as Format;
    const text = await this.registry.run('export_topology', { site_id: site, format }, this.context);
    return {
      contents: [
        {
          uri,
          mimeType: FORMATS[format].mimeType,
          text: typeof text === 'string' ? text : JSON.stringify(text),
        },
      ],
    };
  }
}
