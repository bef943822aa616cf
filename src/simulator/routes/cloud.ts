import { json, SimError, siteManagerOk, traceId } from '../envelopes.js';
import { Router } from '../router.js';
import { type Handler, param } from './context.js';

/** A Site Manager host record for the simulated console (fixture site-manager/hosts.json shape). */
export function hostRecord(consoleId: string) {
  return {
    id: consoleId,
    hardwareId: '6f1c2a9e-3b7d-5c4e-9a1f-2d8e7b6c5a40',
    type: 'console',
    ipAddress: '203.0.113.24',
    owner: true,
    isBlocked: false,
    lastConnectionStateChange: '2025-12-31T08:00:00.000Z',
    registrationTime: '2024-03-14T10:12:00Z',
    latestBackupTime: '2025-12-31T03:00:00Z',
    userData: {
      apps: ['users', 'network'],
      email: 'admin@example.com',
      fullName: 'Simulated Admin',
      role: 'owner',
      status: 'ACTIVE',
    },
    reportedState: {
      hostname: 'netops-simulator',
      hardware: { shortname: 'UDMPRO', firmwareVersion: '4.1.13' },
      version: '4.1.13',
    },
  };
}

/** Site Manager routes (`/v1/hosts`, `/v1/hosts/{id}`); the connector proxy lives in the dispatcher. */
export function cloudRouter(consoleId: string): Router<Handler> {
  return new Router<Handler>()
    .on('GET', '/v1/hosts', () =>
      json({ data: [hostRecord(consoleId)], httpStatusCode: 200, traceId: traceId(), nextToken: '' }),
    )
    .on('GET', '/v1/hosts/:id', (ctx) => {
      if (param(ctx, 'id') !== consoleId)
        throw new SimError(404, 'NOT_FOUND', `thing not found: ${param(ctx, 'id')}`);
      return siteManagerOk(hostRecord(consoleId));
    });
}
