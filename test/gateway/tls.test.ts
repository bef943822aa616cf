import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayUnavailableError } from '../../src/errors.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { type SelfSigned, selfSignedCertificate } from '../helpers/self-signed.js';
import { networkReadError, networkSchema } from './support.js';

let certificate: SelfSigned;
let cert: string;
let server: Server;
let url: string;
let requests = 0;

beforeAll(async () => {
  certificate = selfSignedCertificate('gateway-tls-');
  cert = certificate.cert;
  const key = certificate.key;
  server = createServer({ key, cert }, (_req, res) => {
    requests += 1;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ meta: { rc: 'ok' }, data: [{ _id: 'a', name: 'LAN' }] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  certificate.remove();
});

const options = {
  apiType: 'local' as const,
  apiKey: 'k-tls',
  deployment: 'unifi-os' as const,
  timeoutMs: 1000,
};

describe('TLS', () => {
  it('refuses a self-signed console by default, once, pointing at GATEWAY_CA_FILE and GATEWAY_VERIFY_TLS', async () => {
    const before = requests;
    const gateway = createGateway({
      ...options,
      url,
      retry: { attempts: 3, budgetMs: 1000, baseDelayMs: 10 },
    });

    const error = await networkReadError(gateway);
    await gateway.close();

    expect(error).toBeInstanceOf(GatewayUnavailableError);
    expect((error as Error).message).toMatch(/not trusted.*GATEWAY_CA_FILE.*GATEWAY_VERIFY_TLS=false/);
    expect(requests).toBe(before);
  });

  it('accepts it with verifyTls: false for this client only, leaving the process setting alone', async () => {
    const before = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    const gateway = createGateway({ ...options, url, verifyTls: false });

    const list = await gateway.classicRead('default', 'rest/networkconf', networkSchema);
    await gateway.close();

    expect(list.items).toHaveLength(1);
    expect(process.env.NODE_TLS_REJECT_UNAUTHORIZED).toBe(before);
  });

  it('trusts it when its CA is given (GATEWAY_CA_FILE contents), with verification on', async () => {
    const gateway = createGateway({ ...options, url, ca: cert });

    const list = await gateway.classicRead('default', 'rest/networkconf', networkSchema);
    await gateway.close();

    expect(list.items).toHaveLength(1);
  });
});
