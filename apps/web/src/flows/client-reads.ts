// What the guardian client reads before it builds a request: the socket to the guardian, the
// wallet's keys and outputs, the oracle's quote, the vault's current output and the reserved
// treasury UNIT, each from this product's API or the configured chain services.
import { hex } from '@scure/base';
import { TEST_NETWORK, NETWORK } from '@scure/btc-signer';
import {
  quotedHashes,
  addressToScript,
  vaultOutput,
  type PaymentUtxo,
  type UnitUtxo,
  type VaultUtxo,
  type VaultWallet,
} from '@unit/bitcoin';
import {
  type ConfigDto,
  type OracleQuoteDto,
  type UnitOutputDto,
  type UtxoDto,
  type VaultDto,
} from '@unit/protocol';
import type { Approvals } from '@unit/protocol/wire';
import {
  REQUEST_LIFETIME_SECONDS,
  guardianClient,
  webSocketTransport,
  type GuardianClient,
  type RpcTransport,
} from '@unit/protocol/wire/client';
import { getJson, joinUrl } from '../api/http';
import { callApi } from '../api/call';
import { type WalletAccount } from '../wallet';
import { readApprovals } from './approvals';

/**
 * The guardian's answer to a signed request may take as long as the request lives: the flow's own
 * time-out (FlowProvider) stops the waiting sooner, and still records a late answer.
 */
export const REQUEST_ANSWER_MS = REQUEST_LIFETIME_SECONDS * 1000;

/** The one client on one socket, and whether that socket is still open (a reservation lives as long
 * as it does: a re-send goes over it while it is). */
export type RpcClient = GuardianClient & {
  open(): boolean;
  /**
   * Hands `listener` the guardians' decisions each `vault.progress` of the request
   * `nonce` carries, until the returned function is called. The protocol's client reports steps only.
   */
  watchApprovals(nonce: string, listener: (approvals: Approvals) => void): () => void;
};

export function wsUrl(guardianUrl: string): string {
  const url = new URL(guardianUrl, window.location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}

/** The protocol's JSON-RPC client on one WebSocket; `vault.progress` notifications go to the caller. */
export async function connect(guardianUrl: string): Promise<RpcClient> {
  const transport = await webSocketTransport(new WebSocket(wsUrl(guardianUrl)));
  const watchers = new Map<string, (approvals: Approvals) => void>();
  // The transport hands a notification to each request in flight; the watcher of its nonce reads
  // its approvals before the protocol's client reads its step.
  const tapped: RpcTransport = {
    request: (method, params, onNotification) =>
      transport.request(method, params, (name, body) => {
        if (name === 'vault.progress') {
          for (const [nonce, listener] of watchers) {
            const approvals = readApprovals(body, nonce);
            if (approvals) listener(approvals);
          }
        }
        onNotification(name, body);
      }),
    close: () => transport.close(),
  };
  const client = guardianClient(tapped, { timeoutMs: REQUEST_ANSWER_MS });
  const socket = transport.socket as WebSocket;
  return {
    ...client,
    open: () => socket.readyState === WebSocket.OPEN,
    watchApprovals(nonce, listener) {
      watchers.set(nonce, listener);
      return () => {
        if (watchers.get(nonce) === listener) watchers.delete(nonce);
      };
    },
  };
}

/**
 * The wallet's two accounts as the builders see them. UNIT inputs (repay) are spent with the runes
 * address's own key: Xverse's and Leather's ordinals key, the payment key for Unisat and devnet.
 */
export function walletKeysOf(account: WalletAccount, network: typeof NETWORK): VaultWallet {
  return {
    satsScript: addressToScript(account.satsAddress, network),
    paymentPublicKey: hex.decode(account.satsPublicKey),
    runesScript: addressToScript(account.runesAddress, network),
    runesPublicKey: hex.decode(account.runesPublicKey),
  };
}

export const bitcoinNetwork = (config: ConfigDto) =>
  config.network === 'mainnet' ? NETWORK : TEST_NETWORK;

export async function paymentUtxos(
  config: ConfigDto,
  account: WalletAccount,
  script: Uint8Array,
): Promise<PaymentUtxo[]> {
  // Outputs carrying no runes: spending a UNIT output for fees would burn it (SPEC §7).
  const utxos = await getJson<UtxoDto[]>(
    joinUrl(config.ordinalsUrl, `address/${account.satsAddress}/utxos`),
  );
  return utxos.map((u) => ({ txid: u.txid, vout: u.vout, value: BigInt(u.value), script }));
}

export async function quoteFor(th: number, ts: number): Promise<OracleQuoteDto> {
  return callApi('oracleQuote', { query: { th, ts } });
}

/** What locates a vault output and the threshold its leaves commit to. */
export type VaultOutputDto = Pick<
  VaultDto,
  | 'vault_txid'
  | 'vault_vout'
  | 'btc_locked'
  | 'unit_borrowed'
  | 'vault_pubkey'
  | 'threshold_cents'
  | 'stamp'
> &
  Partial<Pick<VaultDto, 'guard_pubkey' | 'settle_height' | 'exit_height'>>;

/**
 * The vault's current output: its leaves commit to the threshold of its last state and to the
 * vault's own guardian key (`guard_pubkey` of /api/vaults: an older guardian set's until the vault
 * acts after a rotation), not the config's, which the action's new vault output commits to: the
 * action moves the vault to the newest set (docs/protocol.md, "Guardian rotation").
 */
export async function currentVault(config: ConfigDto, vault: VaultOutputDto): Promise<VaultUtxo> {
  const quote = await quoteFor(vault.threshold_cents, vault.stamp);
  return {
    txid: vault.vault_txid,
    vout: vault.vault_vout,
    value: BigInt(vault.btc_locked),
    unitDebt: BigInt(vault.unit_borrowed),
    output: vaultOutput({
      vaultPubkey: hex.decode(vault.vault_pubkey),
      guardPubkey: hex.decode(vault.guard_pubkey ?? config.guardPubkey),
      // One liquidation leaf per oracle commitment (the guardians' hashes in network mode).
      thresholdHash: quotedHashes(quote),
      network: bitcoinNetwork(config),
      // Layout 2: the term its output commits to (/api/vaults carries it).
      ...(vault.settle_height != null && vault.exit_height != null
        ? { term: { settleHeight: vault.settle_height, exitHeight: vault.exit_height } }
        : {}),
    }),
  };
}

/** The wallet's UNIT outputs, for an action that spends them (repay). */
export async function unitUtxosOf(config: ConfigDto, account: WalletAccount): Promise<UnitUtxo[]> {
  const outputs = await getJson<UnitOutputDto[]>(
    joinUrl(config.runesUrl, `address/${account.runesAddress}/outputs`),
  );
  return outputs
    .filter((o) => !o.spent && o.unit_amount > 0)
    .map((o) => ({
      txid: o.txid,
      vout: o.vout,
      value: BigInt(o.btc_amount),
      script: hex.decode(o.script_hex),
      unitAmount: BigInt(o.unit_amount),
    }));
}
