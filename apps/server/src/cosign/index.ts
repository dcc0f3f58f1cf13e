// The guardian (ARCHITECTURE.md, The vault protocol): reservations, request validation, co-signing
// and broadcasting of every vault action, the liquidation sweep, confirmations and restart recovery.
// The composition root mounts `methods` on the /guardian WebSocket (serveJsonRpc) and feeds the
// oracle's ticks and the chain's blocks to `onPriceTick` and `onBlock`.
import { hex } from '@scure/base';
import type { SignedQuote, SignedVaultRequest, VaultAction } from '@unit/protocol';
import { GUARDIAN_METHODS } from '@unit/protocol/wire';
import { CHAIN_UNAVAILABLE_MESSAGE, ChainUnavailableError } from '../chain/port';
import { DomainError } from '../errors';
import { rpcMethod, type RpcClient, type RpcContext, type RpcMethod } from '../rpc/json-rpc';
import {
  precheckAction,
  prepareAction,
  type ActionPayloads,
  type ActionResults,
  type PrecheckedAction,
} from './actions';
import { vaultGuardKeyOf, type VaultKeyRow } from './vault-guard-key';
import { guardianContext, type GuardianDeps } from './context';
import { runRequest } from './pipeline';
import { recoverRequests, type RecoveryReport } from './recover';
import { releaseConnection, reserve } from './reserve';
import { confirmHistory, liquidationSweep } from './sweep';
import { settleReplacements, speedUp } from './speedup';
import { settleUnansweredReplacements } from './speedup-settle';
import { recordExits } from './exits';
import { followRepossessions } from './repossession-race';
import { settleAtTerm } from './term-settle-guardian';
import type { SettleRoundResult } from './term-settle-round';

export type { GuardianDeps, OracleForGuardian } from './context';
export { guardianMigrations } from './migrations';

export interface Guardian {
  /** JSON-RPC methods of the wire contract (@unit/protocol/wire GUARDIAN_METHODS), for serveJsonRpc. */
  methods: Record<string, RpcMethod<unknown>>;
  /** Liquidation sweep at a new oracle price; resolves to the vault ids liquidated now. */
  onPriceTick(priceCents: number, time: number): Promise<string[]>;
  /** Marks history confirmed for transactions now in a block; resolves to their txids. */
  onBlock(): Promise<string[]>;
  /**
   * Settles the vaults whose term the chain has reached (term-settle-round.ts), each at a fresh
   * quote of `quote()`: run by the one leader of the 'term-settlement' job on each block.
   */
  settleAtTerm(quote: () => Promise<SignedQuote>): Promise<SettleRoundResult>;
  /** Releases the reservations of a socket that has closed. */
  disconnect(client: RpcClient): Promise<void>;
  /** Settles requests that instances now gone left in flight (never a live one's): at start and by the leader. */
  recover(): Promise<RecoveryReport>;
  treasuryAddress: string;
  /** x-only hex of the guardian's and the treasury's keys, as /api/config serves them. */
  guardPubkey: string;
  treasuryPubkey: string;
  /** The guardian key a vault's output commits to: an older set's until it moves (rotation). */
  vaultGuardPubkey(row: VaultKeyRow): Promise<string>;
}

/** A chain service that did not answer reaches the caller as a refusal to retry, not 'internal'. */
function withChainErrors(
  methods: Record<string, RpcMethod<unknown>>,
): Record<string, RpcMethod<unknown>> {
  const wrapped: Record<string, RpcMethod<unknown>> = {};
  for (const [name, method] of Object.entries(methods))
    wrapped[name] = rpcMethod(method.params, (params, ctx) =>
      method.handler(params, ctx).catch((error: unknown) => {
        if (error instanceof ChainUnavailableError)
          throw new DomainError('chain_unavailable', CHAIN_UNAVAILABLE_MESSAGE);
        throw error;
      }),
    );
  return wrapped;
}

export function createGuardian(deps: GuardianDeps): Guardian {
  const g = guardianContext(deps);
  /** Where the next block's exit check goes on (exits.ts): every vault past its exit in turn. */
  let exitCursor = '';
  /** Where the next block's look at repossessions not yet mined goes on (repossession-race.ts). */
  let raceCursor = '';

  const vaultMethod =
    <A extends VaultAction>(action: A) =>
    async (
      params: SignedVaultRequest<ActionPayloads[A]>,
      ctx: RpcContext,
    ): Promise<ActionResults[A]> => {
      // A refused request frees nothing it does not own: its reservation stays for a retry (and
      // holds no output exclusively, reserve.ts), and runRequest frees only the locks it took.
      let checked: PrecheckedAction | null = null;
      return runRequest(
        `vault.${action}`,
        params,
        ctx,
        g,
        () => (checked = precheckAction(g, action, params)),
        () => prepareAction(g, action, params, checked!),
      );
    };

  const methods: Record<string, RpcMethod<unknown>> = withChainErrors({
    'unit.reserve': rpcMethod(GUARDIAN_METHODS['unit.reserve'].params, (params, ctx) =>
      reserve(g, params, ctx.client),
    ),
    'vault.open': rpcMethod(GUARDIAN_METHODS['vault.open'].params, vaultMethod('open')),
    'vault.deposit': rpcMethod(GUARDIAN_METHODS['vault.deposit'].params, vaultMethod('deposit')),
    'vault.withdraw': rpcMethod(GUARDIAN_METHODS['vault.withdraw'].params, vaultMethod('withdraw')),
    'vault.borrow': rpcMethod(GUARDIAN_METHODS['vault.borrow'].params, vaultMethod('borrow')),
    'vault.repay': rpcMethod(GUARDIAN_METHODS['vault.repay'].params, vaultMethod('repay')),
    'vault.repossess': rpcMethod(
      GUARDIAN_METHODS['vault.repossess'].params,
      vaultMethod('repossess'),
    ),
    'vault.speedup': rpcMethod(GUARDIAN_METHODS['vault.speedup'].params, (params) =>
      speedUp(g, params),
    ),
  });

  return {
    methods,
    onPriceTick: (priceCents, time) => liquidationSweep(g, priceCents, time),
    // A sped-up transaction whose original was mined instead is followed back first; a vault its
    // owner left by the exit, and a repossession the owner's exit beat, are settled before the
    // confirmations.
    onBlock: async () => {
      await settleUnansweredReplacements(g);
      await settleReplacements(g);
      const exits = await recordExits(g, exitCursor);
      exitCursor = exits.next;
      for (const vaultId of exits.exited) deps.vaultClosed?.(vaultId);
      const races = await followRepossessions(g, raceCursor);
      raceCursor = races.next;
      for (const vaultId of [...races.exited, ...races.reopened, ...races.claimants])
        deps.vaultClosed?.(vaultId);
      for (const claim of races.failed) deps.claimFailed?.(claim);
      return confirmHistory(g);
    },
    recover: () => recoverRequests(g),
    settleAtTerm: (quote) => settleAtTerm(g, quote),
    disconnect: (client) => releaseConnection(g, client.connectionId),
    treasuryAddress: g.treasuryAddress,
    guardPubkey: hex.encode(g.guardPubkey),
    treasuryPubkey: hex.encode(g.treasuryPubkey),
    vaultGuardPubkey: vaultGuardKeyOf({
      ...g,
      thresholdHashes: (th, stamp) => g.oracle.thresholdHashes(th, stamp),
    }),
  };
}
