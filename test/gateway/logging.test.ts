import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGateway } from '../../src/gateway/gateway.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { keepClosed } from '../helpers/ports.js';
import { closedAfterEach, networkSchema, startMiniController } from './support.js';

const PASSWORD = 'Pa55-w0rd-never-in-logs';
const API_KEY = 'apikey-never-in-logs-0123456789';

let { servers, gateways } = closedAfterEach();

const lineSchema = z.looseObject({ level: z.number(), msg: z.string() });

describe('logging', () => {
  it('never writes the password, session cookie or CSRF tokens, at level trace', async () => {
    // Arrange
    const logs = captureLogger();
    const server = await startMiniController({ flavor: 'unifi-os', username: 'admin', password: PASSWORD });
    servers.push(server);
    const gateway = createGateway({
      apiType: 'local',
      url: server.url,
      username: 'admin',
      password: PASSWORD,
      timeoutMs: 1000,
      logger: logs.logger,
    });
    gateways.push(gateway);

    // Act: a login, reads, a rotating write, an expired session, and a failing write.
    await gateway.classicRead('default', 'rest/networkconf', networkSchema);
    await gateway.classicWrite('default', 'POST', 'rest/networkconf', { name: 'IoT' });
    server.expireSessions();
    await gateway.classicRead('default', 'rest/networkconf', networkSchema, { fresh: true });
    await gateway.classicWrite('default', 'PUT', 'rest/unknown/1', { name: 'x' }).catch(() => undefined);

    // Assert
    const text = logs.text();
    const secrets = [PASSWORD, ...server.sessionsIssued, ...server.csrfIssued];
    expect(secrets.length).toBeGreaterThanOrEqual(1 + 2 + 3);
    for (const secret of secrets) expect(text).not.toContain(secret);
    const requestLines = logs
      .lines()
      .map((l) => lineSchema.parse(l))
      .filter((l) => l.msg === 'gateway request');
    expect(requestLines.length).toBeGreaterThanOrEqual(7);
    expect(requestLines[0]).toMatchObject({ method: 'GET', path: '/', status: 200, attempt: 1 });
    expect(requestLines.some((l) => l.path === '/api/auth/login')).toBe(true);
    expect(requestLines.every((l) => typeof l.ms === 'number')).toBe(true);
  });

  it('never writes the API key, and warns on retries', async () => {
    const logs = captureLogger();
    const server = await startMiniController({ flavor: 'unifi-os', apiKey: API_KEY });
    servers.push(server);
    const gateway = createGateway({
      apiType: 'local',
      url: server.url,
      apiKey: API_KEY,
      timeoutMs: 1000,
      retry: { budgetMs: 500, baseDelayMs: 10 },
      logger: logs.logger,
    });
    gateways.push(gateway);

    await gateway.classicRead('default', 'rest/networkconf', networkSchema);
    await gateway.classicWrite('default', 'POST', 'rest/networkconf', { name: 'IoT' });
    await gateway.classicWrite('default', 'DELETE', 'rest/nothing/2').catch(() => undefined);
    await server.close();
    servers = [];
    // Refused from now on, and no other process may take the port meanwhile.
    const closed = await keepClosed(Number(new URL(server.url).port));
    await gateway
      .classicRead('default', 'rest/networkconf', networkSchema, { fresh: true })
      .catch(() => undefined)
      .finally(closed.release);

    expect(logs.text()).not.toContain(API_KEY);
    const parsed = logs.lines().map((l) => lineSchema.parse(l));
    expect(parsed.some((l) => l.level === 40 && l.msg === 'gateway read failed; retrying')).toBe(true);
  });
});
