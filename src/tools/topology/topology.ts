import { z } from 'zod';
import type { Gateway } from '../../gateway/types.js';
import { buildTopology } from '../../topology/build.js';
import { EXPORT_FORMAT_RULE, EXPORT_FORMATS, exportTopology } from '../../topology/exports.js';
import { macId } from '../../topology/mac.js';
import { connectionsOf, findDevice, portMappings, topologyStatistics } from '../../topology/queries.js';
import {
  type TopologyClient,
  type TopologyDevice,
  topologyClientSchema,
  topologyDeviceSchema,
} from '../../topology/records.js';
import type { Topology } from '../../topology/types.js';
import { nonEmpty, siteId } from '../core/arg-types.js';
import { defineTool } from '../core/define-tool.js';

const deviceRef = nonEmpty('must be a device MAC, id or name').describe(
  'Device MAC (any notation), id, or name',
);

/** The two reads every topology tool makes; both are cached, so tools called together share them. */
async function readSite(
  gateway: Gateway,
  site: string,
): Promise<{ devices: TopologyDevice[]; clients: TopologyClient[] }> {
  const [devices, clients] = await Promise.all([
    gateway.classicRead(site, 'stat/device', topologyDeviceSchema),
    gateway.classicRead(site, 'stat/sta', topologyClientSchema),
  ]);
  return { devices: devices.items, clients: clients.items };
}

/** Reads the site and builds its topology: exactly two upstream calls (`stat/device`, `stat/sta`). */
export async function loadTopology(
  gateway: Gateway,
  site: string,
  options: { includeCoordinates?: boolean } = {},
): Promise<{ topology: Topology; devices: TopologyDevice[] }> {
  const { devices, clients } = await readSite(gateway, site);
  const topology = buildTopology(devices, clients, {
    siteId: site,
    generatedAt: new Date().toISOString(),
    includeCoordinates: options.includeCoordinates === true,
  });
  return { topology, devices };
}

// Deliberately alike: the tools below are defineTool declarations, whose shape the framework fixes; each differs in args and run.
const getNetworkTopology = defineTool({
  name: 'get_network_topology',
  description: 'Devices, clients and the links between them, with uplink depth (and a layout on request)',
  access: 'read',
  example: '',
  args: z.object({
    site_id: siteId,
    include_coordinates: z
      .boolean({ error: 'must be true or false' })
      .default(false)
      .describe('Add x/y positions of a layered layout'),
  }),
  async run({ site_id, include_coordinates }, { gateway }) {
    return (await loadTopology(gateway, site_id, { includeCoordinates: include_coordinates })).topology;
  },
});

const exportTopologyTool = defineTool({
  name: 'export_topology',
  description: 'The topology as JSON, GraphML (yEd, Gephi, networkx) or DOT (Graphviz)',
  access: 'read',
  example: 'format=dot',
  args: z.object({
    site_id: siteId,
    format: z.enum(EXPORT_FORMATS, { error: EXPORT_FORMAT_RULE }).describe('json, graphml or dot'),
  }),
  async run({ site_id, format }, { gateway }) {
    // Exports carry the layout so graph tools open them already arranged.
    const { topology } = await loadTopology(gateway, site_id, { includeCoordinates: true });
    return exportTopology(topology, format);
  },
});

const getDeviceConnections = defineTool({
  name: 'get_device_connections',
  description: 'Connections of one device (as source or target), or all connections',
  access: 'read',
  example: 'device_id="Core Switch"',
  args: z.object({ site_id: siteId, device_id: deviceRef.nullish() }),
  async run({ site_id, device_id }, { gateway }) {
    const { topology, devices } = await loadTopology(gateway, site_id);
    if (device_id === undefined || device_id === null) return connectionsOf(topology);
    return connectionsOf(topology, macId(findDevice(devices, device_id).mac));
  },
});

// Deliberately alike: one-object get tools: defineTool fixes the declaration's shape; the read and the view are each tool's own.
const getPortMappings = defineTool({
  name: 'get_port_mappings',
  description: 'What is on each port of a switch, AP or gateway, by port index',
  access: 'read',
  example: 'device_id="Core Switch"',
  args: z.object({ site_id: siteId, device_id: deviceRef }),
  async run({ site_id, device_id }, { gateway }) {
    const { topology, devices } = await loadTopology(gateway, site_id);
    return portMappings(topology, findDevice(devices, device_id));
  },
});

const getTopologyStatistics = defineTool({
  name: 'get_topology_statistics',
  description: 'Device, client and connection counts and the deepest uplink chain',
  access: 'read',
  example: '',
  args: z.object({ site_id: siteId }),
  async run({ site_id }, { gateway }) {
    return topologyStatistics((await loadTopology(gateway, site_id)).topology);
  },
});

/** Spec 4.9: topology graph, export and statistics. */
export const topologyTools = [
  getNetworkTopology,
  exportTopologyTool,
  getDeviceConnections,
  getPortMappings,
  getTopologyStatistics,
];
