/**
 * What Site Manager reports about a fleet's consoles: host, site and device records shaped like the
 * fixtures under site-manager/, and the `pageSize` / `nextToken` paging its list routes share.
 */
import { reportedVersion } from './api-version.js';
import { SimError } from './envelopes.js';
import type { SiteState } from './state.js';

/** What the cloud knows of one console: its identity, and its state while it reports in. */
export interface CloudConsole {
  /** The Site Manager host id (also the connector's `{consoleId}`). */
  readonly id: string;
  readonly name: string;
  /** The Network version the console plays (`10.1`, `9.0`). */
  readonly version: string;
  readonly index: number;
  /** Not answering: Site Manager reports it disconnected and the connector cannot reach it. */
  readonly down: boolean;
  /** The console's live sites (its state, read on every call). */
  sites(): readonly SiteState[];
}

const FIRMWARE: Record<string, string> = { '9.0': '4.0.21', '10.1': '4.3.9' };
const SECOND = 1000;

function firmwareOf(version: string): string {
  return FIRMWARE[version] ?? '4.3.9';
}

/** The Site Manager host record of a console (fixture site-manager/hosts.json shape). */
export function hostRecord(console: CloudConsole) {
  const octet = (console.index % 250) + 2;
  return {
    id: console.id,
    hardwareId: `6f1c2a9e-3b7d-5c4e-9a1f-${console.index.toString(16).padStart(12, '0')}`,
    type: 'console',
    ipAddress: `203.0.113.${octet}`,
    owner: true,
    isBlocked: false,
    lastConnectionStateChange: new Date(Date.UTC(2025, 11, 31, 8) + console.index * SECOND).toISOString(),
    registrationTime: '2024-03-14T10:12:00Z',
    latestBackupTime: '2025-12-31T03:00:00Z',
    userData: {
      apps: ['users', 'network'],
      email: 'msp-admin@example.com',
      fullName: 'MSP Admin',
      role: 'owner',
      status: 'ACTIVE',
    },
    // `name`, `state` and `controllers` are not in the fixture: this simulator's reading of what a
    // fleet view needs (the console's name, whether it reports in, which Network version it runs).
    reportedState: {
      hostname: console.name,
      name: console.name,
      state: console.down ? 'disconnected' : 'connected',
      hardware: { shortname: 'UDMPRO', firmwareVersion: firmwareOf(console.version) },
      version: firmwareOf(console.version),
      controllers: [{ name: 'network', version: reportedVersion(console.version) }],
    },
  };
}

function gatewayOf(site: SiteState) {
  return site.devices.find((device) => device.type === 'udm' || device.type === 'ugw');
}

/** The Site Manager site record (fixture site-manager/sites.json shape, counts from the state). */
export function siteRecord(console: CloudConsole, site: SiteState) {
  const offline = site.devices.filter((device) => device.state !== 1);
  const wired = site.clients.filter((client) => client.is_wired).length;
  return {
    siteId: site._id,
    hostId: console.id,
    meta: {
      desc: site.desc,
      gatewayMac: gatewayOf(site)?.mac ?? '',
      name: site.name,
      timezone: 'Europe/Berlin',
    },
    statistics: {
      counts: {
        criticalNotification: 0,
        gatewayDevice: gatewayOf(site) === undefined ? 0 : 1,
        offlineDevice: console.down ? site.devices.length : offline.length,
        totalDevice: site.devices.length,
        wifiClient: site.clients.length - wired,
        wiredClient: wired,
      },
    },
    permission: 'admin',
    isOwner: true,
  };
}

/** One host's devices as `GET /v1/devices` groups them (fixture site-manager/devices.json shape). */
export function hostDevices(console: CloudConsole) {
  const devices = console.sites().flatMap((site) =>
    site.devices.map((device) => {
      const bare = device.mac.replaceAll(':', '').toUpperCase();
      return {
        id: bare,
        mac: bare,
        name: device.name ?? device.model,
        model: device.model,
        shortname: device.model,
        ip: device.ip,
        productLine: 'network',
        status: !console.down && device.state === 1 ? 'online' : 'offline',
        version: typeof device.version === 'string' ? device.version : '',
        firmwareStatus: 'upToDate',
        updateAvailable: null,
        isConsole: device.type === 'udm',
        isManaged: true,
        note: null,
      };
    }),
  );
  return { hostId: console.id, hostName: console.name, devices, updatedAt: '2025-12-31T08:00:00Z' };
}

const MAX_PAGE_SIZE = 500;

/** Parses `pageSize` (default `defaultSize`) and `nextToken`; both are refused when malformed. */
export function pageOf(query: URLSearchParams, list: string, defaultSize: number) {
  const sizeText = query.get('pageSize');
  const size = sizeText === null ? defaultSize : Number(sizeText);
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE)
    throw new SimError(400, 'BAD_REQUEST', `pageSize must be 1 to ${MAX_PAGE_SIZE}`);
  const token = query.get('nextToken');
  if (token === null || token === '') return { offset: 0, size };
  const decoded = /^(\w+):(\d+)$/.exec(Buffer.from(token, 'base64url').toString('utf8'));
  if (decoded?.[1] !== list) throw new SimError(400, 'BAD_REQUEST', 'invalid nextToken');
  return { offset: Number(decoded[2]), size };
}

/** A page of `items` in the Site Manager envelope; `nextToken` is empty on the last page. */
export function paged(items: readonly unknown[], list: string, page: { offset: number; size: number }) {
  const end = page.offset + page.size;
  const nextToken = end < items.length ? Buffer.from(`${list}:${end}`).toString('base64url') : '';
  return { data: items.slice(page.offset, end), nextToken };
}
