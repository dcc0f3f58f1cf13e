// Which vault changed, told to every instance's browsers: after each guardian action that went
// through (its history grew), and for each vault the liquidation sweep liquidated.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { VaultChangeDto } from '@unit/protocol';
import type { RpcMethod } from '../rpc/json-rpc';
import { getVaultByPubkey } from '../store';
import type { Database } from '../store/schema';
import type { EventBus } from './bus';

export function announceVaultChange(bus: EventBus, change: VaultChangeDto, log: Logger): void {
  bus.publish({ type: 'vault', data: change }).catch((err: unknown) => {
    // The stream is a hint; pages still poll, so a lost event delays a refresh, nothing more.
    log.warn({ err: String(err), vault: change.vault_id }, 'vault change not announced');
  });
}

/**
 * The guardian's `vault.*` methods, each announcing its vault once it answered: by the request's
 * vault key, and for a repossess the liquidated vault too (it leaves the list of liquidations).
 */
export function announcingVaultActions(
  methods: Record<string, RpcMethod<unknown>>,
  deps: { db: Kysely<Database>; bus: EventBus; log: Logger },
): Record<string, RpcMethod<unknown>> {
  const { db, bus, log } = deps;
  const announce = async (params: unknown) => {
    const request = params as {
      vault_pubkey?: unknown;
      payload?: { liquidated_vault_id?: unknown };
    };
    if (typeof request.vault_pubkey === 'string') {
      const vault = await getVaultByPubkey(db, request.vault_pubkey);
      if (vault) announceVaultChange(bus, { vault_id: vault.vault_id, kind: 'action' }, log);
    }
    const claimed = request.payload?.liquidated_vault_id;
    if (typeof claimed === 'string')
      announceVaultChange(bus, { vault_id: claimed.toLowerCase(), kind: 'liquidation' }, log);
  };
  return Object.fromEntries(
    Object.entries(methods).map(([name, method]) => [
      name,
      name.startsWith('vault.')
        ? {
            params: method.params,
            handler: async (params: unknown, ctx) => {
              const result = await method.handler(params, ctx);
              announce(params).catch((err: unknown) =>
                log.warn({ err: String(err) }, 'vault change not announced'),
              );
              return result;
            },
          }
        : method,
    ]),
  ) as Record<string, RpcMethod<unknown>>;
}
