// While the local guardian network starts (main.ts: between the server's listen and t guardians
// ready, a few seconds), a vault request gets a clear refusal instead of "guardian-2: unreachable".
import { DomainError } from '@unit/protocol';
import type { RpcMethod } from '../rpc/json-rpc';

/**
 * The guardian's `vault.*` methods refused with `guardians_refused` while `refusal()` says why
 * (the network is starting); the other methods are served as they are. No `refusal`: unchanged.
 */
export function whileGuardiansStart(
  methods: Record<string, RpcMethod<unknown>>,
  refusal?: () => string | null,
): Record<string, RpcMethod<unknown>> {
  if (!refusal) return methods;
  return Object.fromEntries(
    Object.entries(methods).map(([name, method]) => [
      name,
      name.startsWith('vault.')
        ? {
            params: method.params,
            handler: async (params: unknown, ctx) => {
              const reason = refusal();
              if (reason) throw new DomainError('guardians_refused', reason);
              return method.handler(params, ctx);
            },
          }
        : method,
    ]),
  ) as Record<string, RpcMethod<unknown>>;
}
