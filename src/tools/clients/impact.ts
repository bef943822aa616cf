import type { ImpactFacts } from '../../policy/types.js';
import { addressIs, affected, type ImpactInput } from '../core/guardrails.js';
import { clientLabel, resolveClient } from '../core/live-targets.js';

/** The blast radius of a client action: the one client, and whether it is the bot itself. */
export async function clientImpact({ context, site, args, position }: ImpactInput): Promise<ImpactFacts> {
  const client = await resolveClient({ gateway: context.gateway, site }, String(args.client ?? ''), {
    known: true,
    fresh: true,
  });
  const label = `client ${clientLabel(client)}`;
  const who = addressIs(position, client.ip ?? undefined);
  return {
    target: label,
    targetRecord: client as Record<string, unknown>,
    clients: affected([clientLabel(client)]),
    ...(who ? { selfLockout: `${who} ${client.ip} is ${label}` } : {}),
  };
}
