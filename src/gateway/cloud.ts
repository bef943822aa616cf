import { z } from 'zod';
import { NotSupportedError } from '../errors.js';
import { invalidResponse, readSiteManagerEnvelope } from './envelopes.js';

const hostSchema = z.looseObject({
  id: z.string().min(1),
  type: z.string().optional(),
  reportedState: z.looseObject({ hostname: z.string().optional() }).nullable().optional(),
});

/**
 * Picks the console behind the cloud connector from a `GET /v1/hosts` answer: the one host when
 * there is exactly one; otherwise an error listing the host ids and naming GATEWAY_CONSOLE_ID.
 */
export function consoleIdFromHosts(body: unknown): string {
  const envelope = readSiteManagerEnvelope(body);
  if (envelope === undefined || !Array.isArray(envelope.data)) {
    throw invalidResponse('expected the Site Manager envelope {data:[…]}', '/v1/hosts');
  }
  const hosts = envelope.data.flatMap((h) => {
    const parsed = hostSchema.safeParse(h);
    return parsed.success ? [parsed.data] : [];
  });
  const only = hosts[0];
  if (hosts.length === 1 && only !== undefined && !envelope.nextToken) return only.id;
  if (hosts.length === 0) {
    throw new NotSupportedError(
      'the cloud API key sees no console in /v1/hosts: check the key, or set GATEWAY_CONSOLE_ID',
    );
  }
  const listed = hosts
    .map((h) => (h.reportedState?.hostname ? `${h.id} (${h.reportedState.hostname})` : h.id))
    .join(', ');
  throw new NotSupportedError(
    `the cloud API key sees several consoles; set GATEWAY_CONSOLE_ID to one of: ${listed}${envelope.nextToken ? ', …' : ''}`,
  );
}
