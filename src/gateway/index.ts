// The gateway's public surface; tools and main.ts import from here.
export {
  type ApiGroup,
  describeGroupApis,
  type Generation,
  type GroupApis,
  type OfficialOperation,
} from './capabilities.js';
export type { ConsoleInfo } from './console-info.js';
export { describeControllerCode } from './controller-codes.js';
export { createGateway } from './gateway.js';
export { GATEWAY_DEFAULTS, type GatewayOptions, gatewayOptionsFromConfig } from './options.js';
export type { Deployment } from './paths.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';
export type { ApiKind, ControllerStatus, Gateway, ParsedList, ReadOptions, WriteMethod } from './types.js';
