// The controller's `type` values for gateways (UDM family, USG, next-gen and cloud gateways).
const GATEWAY_TYPES = new Set(['udm', 'ugw', 'uxg', 'uxgpro', 'ucg']);

/** True for the controller's gateway device types. */
export function isGatewayType(deviceType: string | null | undefined): boolean {
  return GATEWAY_TYPES.has(deviceType ?? '');
}

/** A device kind in words, singular and plural, for picture labels and summaries. */
export function deviceKind(deviceType: string | null | undefined): { one: string; many: string } {
  if (isGatewayType(deviceType)) return { one: 'gateway', many: 'gateways' };
  if (deviceType === 'usw') return { one: 'switch', many: 'switches' };
  if (deviceType === 'uap') return { one: 'AP', many: 'APs' };
  return { one: 'device', many: 'devices' };
}

/** Fill colour of an online device by kind: gateway blue, switch green, AP orange, other grey. */
export function deviceFill(deviceType: string | null | undefined): string {
  if (isGatewayType(deviceType)) return '#c6dbef';
  if (deviceType === 'usw') return '#d9f0d3';
  if (deviceType === 'uap') return '#fee8c8';
  return '#eeeeee';
}

/** Colours shared by the DOT export and the picture. */
export const PALETTE = {
  offlineFill: '#f4cccc',
  offline: '#cc0000',
  border: '#333333',
  client: '#888888',
  clientFill: '#ffffff',
  clientLink: '#999999',
  wireless: '#3366aa',
  clientText: '#3366aa',
} as const;
