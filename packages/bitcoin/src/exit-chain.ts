// The facts of a vault's exit, read from any esplora the owner chooses and from nothing of ours
// (docs/protocol.md, "Leaving without the guardians"): the vault's unspent output, the state record
// of the transaction that wrote it (its term and the exit's sibling), the opening's key when the
// chain shows it, and the chain's height. Every answer is checked as hostile: a record that is not
// one, an output that is not a Taproot output, a walk longer than MAX_VAULT_HOPS is refused.
import { hex } from '@scure/base';
import { NETWORK, TEST_NETWORK } from '@scure/btc-signer';
import type { BTC_NETWORK } from '@scure/btc-signer/utils.js';
import { addressNetworkOf } from './address';
import { ExitError } from './exit-spend';
import { parseStateRecordScript, type StateRecord } from './state-record';

/** Each request to the esplora gives up after this long. */
export const EXIT_FETCH_TIMEOUT_MS = 15_000;
/** A vault is followed through at most this many transactions from its opening. */
export const MAX_VAULT_HOPS = 10_000;

interface EsploraOut {
  scriptpubkey: string;
  scriptpubkey_address?: string;
  value: number;
}
interface EsploraTxShape {
  txid: string;
  vout: EsploraOut[];
  status?: { confirmed: boolean; block_height?: number };
  /** sats, and weight units: esplora gives both; another server may not */
  fee?: number;
  weight?: number;
}

export interface VaultExitFacts {
  utxo: { txid: string; vout: number; script: Uint8Array; amount: bigint };
  address: string;
  network: BTC_NETWORK;
  networkName: 'mainnet' | 'testnet' | 'regtest';
  /** The record of the transaction that wrote the output. */
  record: StateRecord;
  /** The opening's key, when the walk started at the opening and its record carries it. */
  openingKey?: Uint8Array;
  tipHeight: number;
  /** Whether the transaction that wrote the output is confirmed. */
  confirmed: boolean;
  /**
   * A repossession of this vault waiting in the mempool: the exit spends the same output, so it
   * replaces the claim only at a higher fee rate and a higher fee (BIP-125). `feeRate` in sat/vB
   * and `feeSats`, when the esplora gives the claim's fee and weight.
   */
  pendingClaim?: PendingClaim;
}

export interface PendingClaim {
  txid: string;
  feeRate: number | null;
  feeSats: number | null;
}

/** Where a walk ends: the vault's output, the transaction that wrote it, and a waiting claim. */
interface Walked {
  tx: EsploraTxShape;
  found: { vout: number; record: StateRecord };
  openingKey?: Uint8Array | undefined;
  pendingClaim?: PendingClaim;
}

export type FetchLike = (
  url: string,
  init?: { signal?: AbortSignal; method?: string; body?: string },
) => Promise<{ ok: boolean; status: number; text(): Promise<string> }>;

const durationText = (ms: number): string =>
  ms < 2_000 ? `${ms} ms` : `${Math.round(ms / 1_000)} seconds`;

/** An esplora client of a URL the owner typed: GETs and the broadcast, each with a time-out. */
export class ExitEsplora {
  private readonly base: string;
  constructor(
    url: string,
    // Called through a closure: a browser's fetch called as another object's method throws.
    private readonly fetchImpl: FetchLike = (input, init) =>
      fetch(input, init) as unknown as ReturnType<FetchLike>,
    private readonly timeoutMs = EXIT_FETCH_TIMEOUT_MS,
  ) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new ExitError(
        'not-a-vault',
        'The chain address is not a URL: type an esplora URL such as https://mempool.space/api.',
      );
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw new ExitError(
        'not-a-vault',
        'The chain address must start with http:// or https://: type an esplora URL.',
      );
    this.base = parsed.href.replace(/\/+$/, '');
  }

  private async call(path: string, init: { method?: string; body?: string } = {}): Promise<string> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    try {
      const response = await this.fetchImpl(`${this.base}${path}`, {
        ...init,
        signal: controller.signal,
      });
      const text = await response.text();
      if (!response.ok) throw new EsploraError(response.status, text.slice(0, 300));
      return text;
    } catch (error) {
      if (error instanceof EsploraError) throw error;
      throw new EsploraError(
        0,
        controller.signal.aborted
          ? `the esplora at ${this.base} did not answer within ${durationText(this.timeoutMs)}: check the URL and your connection, or type another esplora's URL`
          : `the esplora at ${this.base} could not be reached (${(error as Error).message}): check the URL, that it lets web pages read it, and your connection, or type another esplora's URL`,
      );
    } finally {
      clearTimeout(timer);
    }
  }

  async json<T>(path: string): Promise<T> {
    const text = await this.call(path);
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new EsploraError(
        0,
        `the server at ${this.base} answered ${path} with something that is not esplora's JSON: check that the URL is an esplora API (on mempool.space it ends in /api)`,
      );
    }
  }

  async tipHeight(): Promise<number> {
    const height = Number(await this.call('/blocks/tip/height'));
    if (!Number.isInteger(height) || height < 0)
      throw new EsploraError(
        0,
        `the server at ${this.base} gave no block height: check that the URL is an esplora API (on mempool.space it ends in /api)`,
      );
    return height;
  }

  /** Broadcasts a raw transaction; returns its txid as the esplora answers it. */
  async broadcast(rawHex: string): Promise<string> {
    try {
      return await this.call('/tx', { method: 'POST', body: rawHex });
    } catch (error) {
      if (!(error instanceof EsploraError) || error.status === 0) throw error;
      throw new EsploraError(
        error.status,
        `${error.detail}. Nothing was spent: read the vault again, and if its exit is open, build it again`,
        'The esplora refused the exit',
      );
    }
  }
}

/** An esplora that refused or did not answer: `message` names what and why. */
export class EsploraError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    refused = 'The esplora refused',
  ) {
    super(
      status
        ? `${refused} (${status}): ${detail}${/[.!?]$/.test(detail) ? '' : '.'}`
        : `${detail[0]?.toUpperCase() ?? ''}${detail.slice(1)}.`,
    );
    this.name = 'EsploraError';
  }
}

const TXID = /^[0-9a-f]{64}$/;
const P2TR_HEX = /^5120[0-9a-f]{64}$/;

/** The vault output among a transaction's outputs: the P2TR output holding the record's sats. */
function vaultOutputOf(tx: EsploraTxShape): { vout: number; record: StateRecord } | null {
  let record: StateRecord | null = null;
  for (const out of tx.vout) {
    record ??= parseStateRecordScript(hex.decode(out.scriptpubkey));
  }
  if (!record) return null;
  const vout = tx.vout.findIndex(
    (out) => P2TR_HEX.test(out.scriptpubkey) && BigInt(out.value) === record.vaultSats,
  );
  return vout < 0 ? null : { vout, record };
}

function networkOf(address: string | undefined): {
  network: BTC_NETWORK;
  networkName: VaultExitFacts['networkName'];
} {
  const name = address ? addressNetworkOf(address) : null;
  if (!name)
    throw new ExitError(
      'not-a-vault',
      'The esplora gave the vault output no address: check the chain URL.',
    );
  return {
    network:
      name === 'mainnet'
        ? NETWORK
        : name === 'testnet'
          ? TEST_NETWORK
          : { ...TEST_NETWORK, bech32: 'bcrt' },
    networkName: name,
  };
}

const notAVault = (what: string) =>
  new ExitError(
    'not-a-vault',
    `${what} is not a vault output on this chain: check the vault id or address and the chain URL.`,
  );

/** A waiting claim's txid, fee rate (sat/vB, up to a tenth) and fee, when the esplora gives them. */
function claimOf(tx: EsploraTxShape): PendingClaim {
  const { fee, weight } = tx;
  const known =
    Number.isSafeInteger(fee) && Number.isSafeInteger(weight) && fee! >= 0 && weight! > 0;
  return {
    txid: tx.txid,
    feeRate: known ? Math.ceil((fee! * 40) / weight!) / 10 : null,
    feeSats: known ? fee! : null,
  };
}

/**
 * From a vault id (its opening's txid), follows the vault to its unspent output, or to the output
 * a repossession waiting in the mempool spends.
 */
async function walkFromOpening(chain: ExitEsplora, txid: string): Promise<Walked> {
  let tx = await chain.json<EsploraTxShape>(`/tx/${txid}`).catch((error: unknown) => {
    if (error instanceof EsploraError && (error.status === 404 || error.status === 400))
      throw new ExitError(
        'not-a-vault',
        `This chain has no transaction ${txid}: check the vault id, and that the esplora is one of the network the vault is on.`,
      );
    throw error;
  });
  let found = vaultOutputOf(tx);
  if (!found) throw notAVault(`Transaction ${txid}`);
  const openingKey = found.record.action === 'o' ? found.record.vaultPubkey : undefined;
  for (let hop = 0; hop < MAX_VAULT_HOPS; hop++) {
    const spend = await chain.json<{ spent: boolean; txid?: string }>(
      `/tx/${tx.txid}/outspend/${found.vout}`,
    );
    if (!spend.spent) return { tx, found, openingKey };
    if (!spend.txid || !TXID.test(spend.txid)) throw notAVault(`The spend of ${tx.txid}`);
    const next = await chain.json<EsploraTxShape>(`/tx/${spend.txid}`);
    const nextFound = vaultOutputOf(next);
    // A repossession not yet mined writes the claimant's vault, not this one: the owner's output
    // is still this one, and the exit may yet replace the claim.
    if (nextFound?.record.action === 'x' && next.status?.confirmed !== true)
      return { tx, found, openingKey, pendingClaim: claimOf(next) };
    if (!nextFound)
      throw new ExitError(
        'not-a-vault',
        `The vault was closed by transaction ${spend.txid}: there is nothing left to take out.`,
      );
    tx = next;
    found = nextFound;
  }
  throw new ExitError(
    'not-a-vault',
    `The vault has more than ${MAX_VAULT_HOPS} transactions: give its address instead of its id.`,
  );
}

/** From a vault address, its one unspent output and the transaction that wrote it. */
async function fromAddress(chain: ExitEsplora, address: string, network: string): Promise<Walked> {
  const utxos = await chain
    .json<Array<{ txid: string; vout: number }>>(`/address/${encodeURIComponent(address)}/utxo`)
    .catch((error: unknown) => {
      if (error instanceof EsploraError && error.status === 400)
        throw new ExitError(
          'bad-address',
          `${address} is a ${network} address and this esplora does not take it: type the esplora URL of the network the vault is on.`,
        );
      throw error;
    });
  if (!Array.isArray(utxos) || utxos.length === 0) {
    // An esplora leaves out an output a mempool transaction spends: a claim may be waiting.
    const claimed = await claimedOutputOf(chain, address).catch(notAnswered);
    if (claimed) return claimed;
    throw new ExitError(
      'not-a-vault',
      'That address holds nothing on this chain: check the address and the chain URL.',
    );
  }
  for (const utxo of utxos.slice(0, 20)) {
    if (!TXID.test(String(utxo.txid))) continue;
    const tx = await chain.json<EsploraTxShape>(`/tx/${utxo.txid}`);
    const found = vaultOutputOf(tx);
    if (found && found.vout === utxo.vout) {
      // An esplora that lists an output a mempool transaction spends: a claim may be waiting; one
      // that cannot say who spends it leaves the output as it is.
      const pendingClaim = await waitingClaimOf(chain, tx.txid, found.vout).catch(notAnswered);
      return {
        ...{ tx, found, openingKey: found.record.vaultPubkey },
        ...(pendingClaim ? { pendingClaim } : {}),
      };
    }
  }
  throw notAVault(`Address ${address}`);
}

/** An esplora that refused a lookup of a waiting claim: none is known (a time-out is thrown). */
const notAnswered = (error: unknown): null => {
  if (error instanceof EsploraError && error.status !== 0) return null;
  throw error;
};

/** Transactions of an address looked at for a vault output a waiting claim spends. */
const CLAIMED_LOOKUP_TXS = 10;

/**
 * The vault output at `address` that a repossession waiting in the mempool spends, read from the
 * address's newest transactions (the mempool's first); null when there is none.
 */
async function claimedOutputOf(chain: ExitEsplora, address: string): Promise<Walked | null> {
  const txs = await chain.json<EsploraTxShape[]>(`/address/${encodeURIComponent(address)}/txs`);
  if (!Array.isArray(txs)) return null;
  for (const tx of txs.slice(0, CLAIMED_LOOKUP_TXS)) {
    if (!TXID.test(String(tx?.txid)) || !Array.isArray(tx.vout)) continue;
    const found = vaultOutputOf(tx);
    if (!found || tx.vout[found.vout]!.scriptpubkey_address !== address) continue;
    const pendingClaim = await waitingClaimOf(chain, tx.txid, found.vout);
    if (pendingClaim) return { tx, found, openingKey: found.record.vaultPubkey, pendingClaim };
  }
  return null;
}

/** The repossession waiting in the mempool that spends an output, or null. */
async function waitingClaimOf(
  chain: ExitEsplora,
  txid: string,
  vout: number,
): Promise<PendingClaim | null> {
  const spend = await chain.json<{ spent: boolean; txid?: string }>(`/tx/${txid}/outspend/${vout}`);
  if (!spend.spent || !spend.txid || !TXID.test(spend.txid)) return null;
  const next = await chain.json<EsploraTxShape>(`/tx/${spend.txid}`);
  const claim = vaultOutputOf(next)?.record.action === 'x' && next.status?.confirmed !== true;
  return claim ? claimOf(next) : null;
}

/** Everything the exit needs from the chain, for a vault id (64 hex) or a vault address. */
export async function readVaultExit(chain: ExitEsplora, vault: string): Promise<VaultExitFacts> {
  const id = vault.trim();
  const isId = TXID.test(id.toLowerCase());
  const addressNetwork = isId ? null : addressNetworkOf(id);
  if (!isId && !addressNetwork)
    throw new ExitError(
      'not-a-vault',
      'That is neither a vault id (64 hexadecimal characters) nor a Bitcoin address: copy the vault id or the vault address again.',
    );
  const { tx, found, openingKey, pendingClaim } = isId
    ? await walkFromOpening(chain, id.toLowerCase())
    : await fromAddress(chain, id, addressNetwork!);
  const out = tx.vout[found.vout]!;
  const { network, networkName } = networkOf(out.scriptpubkey_address);
  if (addressNetwork && addressNetwork !== networkName)
    throw new ExitError(
      'bad-address',
      `${id} is a ${addressNetwork} address but this esplora serves ${networkName}: type the esplora URL of the network the vault is on.`,
    );
  return {
    utxo: {
      txid: tx.txid,
      vout: found.vout,
      script: hex.decode(out.scriptpubkey),
      amount: BigInt(out.value),
    },
    address: out.scriptpubkey_address!,
    network,
    networkName,
    record: found.record,
    ...(openingKey ? { openingKey } : {}),
    tipHeight: await chain.tipHeight(),
    confirmed: tx.status?.confirmed === true,
    ...(pendingClaim ? { pendingClaim } : {}),
  };
}
