/** The topology, as the tools and front ends use it: pure building and exports, and the PNG renderer. */
export { type BuildOptions, buildTopology } from './build.js';
export {
  EXPORT_FORMAT_RULE,
  EXPORT_FORMATS,
  type ExportFormat,
  exportTopology,
  parseExportFormat,
  toDot,
  toGraphml,
} from './exports.js';
export { macId } from './mac.js';
export { type PictureModel, type PictureOptions, topologyPicture } from './picture.js';
export { connectionsOf, findDevice, isTopology, portMappings, topologyStatistics } from './queries.js';
export {
  type TopologyClient,
  type TopologyDevice,
  topologyClientSchema,
  topologyDeviceSchema,
} from './records.js';
export { pngDimensions, type RenderOptions, renderDotPng, renderTopologyPng } from './render-png.js';
export type * from './types.js';
export { behind, type Children, type DeviceChild, type UplinkIndex, uplinkIndex } from './uplinks.js';
