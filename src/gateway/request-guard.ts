/** Applies request guards (lib/request-guard.ts) to the transport, in order, before a request leaves. */
import type { RequestGuard, RequestOutcome } from '../lib/request-guard.js';
import type { OutgoingRequest, RawResponse, Transport } from './transport.js';

/** A transport whose requests pass `guards`, in order, before they leave. */
export function guardTransport(
  transport: Transport,
  guards: readonly RequestGuard[],
  defaultTimeoutMs: number,
): Transport {
  if (guards.length === 0) return transport;
  return {
    async send(request: OutgoingRequest): Promise<RawResponse> {
      const started = Date.now();
      const timeoutMs = request.timeoutMs ?? defaultTimeoutMs;
      const told: ((outcome: RequestOutcome) => void)[] = [];
      const tell = (outcome: RequestOutcome) => {
        for (const each of told) each(outcome);
      };
      try {
        for (const guard of guards) {
          const left = Math.max(1, timeoutMs - (Date.now() - started));
          told.push(await guard.admit({ method: request.method, url: request.url, timeoutMs: left }));
        }
      } catch (error) {
        tell({ kind: 'not-sent' });
        throw error;
      }
      // A guard's wait is part of the request's time, never added to it.
      const left = Math.max(1, timeoutMs - (Date.now() - started));
      try {
        const response = await transport.send({ ...request, timeoutMs: left });
        tell({ kind: 'answered', status: response.status });
        return response;
      } catch (error) {
        tell({ kind: 'failed', error });
        throw error;
      }
    },
    close: () => transport.close(),
  };
}
