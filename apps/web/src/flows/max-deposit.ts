// SPEC §5: "For a max deposit the amount is refined using the wallet's UTXOs." The drawer's maximum
// (wallet sats minus an estimated cost) is an estimate; this is the exact amount the transaction
// the guardian client will build can carry: every payment UTXO spent, no change, the fee of exactly
// that transaction. Loaded lazily by the drawer: it carries the Bitcoin libraries.
import { hex } from '@scure/base';
import { NETWORK, TEST_NETWORK } from '@scure/btc-signer';
import {
  addressToScript,
  maxOpenDeposit,
  maxVaultDeposit,
  parseRuneId,
  vaultOutput,
  type PaymentUtxo,
  type VaultStateFields,
  type VaultWallet,
} from '@unit/bitcoin';
import {
  ERROR_MESSAGES,
  maxBorrowCents,
  sats,
  type ConfigDto,
  type PriceInput,
  type UtxoDto,
} from '@unit/protocol';
import { getJson, joinUrl } from '../api/http';
import type { WalletAccount } from '../wallet';
import { treasuryInternalKey } from './treasury-key';

export interface MaxDepositRequest {
  action: 'deposit' | 'create';
  config: ConfigDto;
  account: WalletAccount;
  /** deposit: the vault as it stands (its value and debt) */
  vault: { btc_locked: number; unit_borrowed: number } | null;
  /** create: the price, which bounds the UNIT the opening can issue */
  priceUsd: PriceInput;
  /** create: the postage of the UNIT issued to the account (its referral level's) */
  postageSats: number;
}

/**
 * Only sizes matter here: the state record has a fixed length, the vault output is P2TR whatever
 * its threshold, so placeholders stand in for the oracle quote the real transaction carries.
 */
const PLACEHOLDER_STATE: VaultStateFields = {
  quotePriceCents: 0n,
  thresholdCents: 0n,
  quoteStamp: 0,
  nonce: new Uint8Array(16),
  expiry: 0,
};
/**
 * With the guardian network every record also commits to the quote's price quorum (versions 3 and
 * 4, 32 bytes more): a placeholder of its size, so a fee sized before the quote is the real one.
 */
export const sizingCommitment = (config: Pick<ConfigDto, 'constants'>) =>
  config.constants.priceQuorum ? { quorumCommitment: new Uint8Array(32) } : {};
/** Layout 2: a term of the record's size, and the tree it gives the new vault (any heights do). */
const PLACEHOLDER_TERM = { settleHeight: 1, exitHeight: 2 };
const sizingTerm = (config: Pick<ConfigDto, 'constants'>) =>
  config.constants.vaultTerm ? { term: PLACEHOLDER_TERM } : {};
const PLACEHOLDER_THRESHOLD_HASH = new Uint8Array(20);
const PLACEHOLDER_TXID = '00'.repeat(32);
const U64_MAX = (1n << 64n) - 1n;

/** The payment UTXOs, from the same source the guardian client builds with (SPEC §7). */
async function paymentUtxos(
  config: ConfigDto,
  account: WalletAccount,
  script: Uint8Array,
): Promise<PaymentUtxo[]> {
  const utxos = await getJson<UtxoDto[]>(
    joinUrl(config.ordinalsUrl, `address/${account.satsAddress}/utxos`),
  );
  return utxos.map((u) => ({ txid: u.txid, vout: u.vout, value: BigInt(u.value), script }));
}

function refine(
  request: MaxDepositRequest,
  utxos: PaymentUtxo[],
  wallet: VaultWallet,
  feeRate: number,
): bigint {
  const { config, account } = request;
  const network = config.network === 'mainnet' ? NETWORK : TEST_NETWORK;
  const newVault = vaultOutput({
    vaultPubkey: hex.decode(account.vaultPubkey),
    guardPubkey: hex.decode(config.guardPubkey),
    thresholdHash: PLACEHOLDER_THRESHOLD_HASH,
    network,
    ...sizingTerm(config),
  });
  // An opening's record carries the vault's key (state record version 2): its size counts in the fee.
  const state = {
    ...PLACEHOLDER_STATE,
    vaultPubkey: hex.decode(account.vaultPubkey),
    ...sizingCommitment(config),
    ...(newVault.term && newVault.exitBranch
      ? { term: { ...newVault.term, exitBranch: newVault.exitBranch } }
      : {}),
  };
  const base = { wallet, utxos, feeRate, state, newVault };
  if (request.action === 'deposit') {
    return maxVaultDeposit({
      ...base,
      vault: {
        txid: PLACEHOLDER_TXID,
        vout: 0,
        value: BigInt(request.vault?.btc_locked ?? 0),
        unitDebt: BigInt(request.vault?.unit_borrowed ?? 0),
        output: newVault,
      },
    });
  }
  // The runestone grows with the UNIT issued: sized for the most the whole wallet could back, the
  // deposit stays payable whatever is then borrowed (a smaller borrow leaves a few sats to the fee).
  const walletSats = utxos.reduce((sum, u) => sum + u.value, 0n);
  const bound = maxBorrowCents(
    sats(walletSats),
    0,
    request.priceUsd,
    config.constants.collateralPercent,
  );
  const borrowAmount = bound > 0n ? bound : U64_MAX;
  // The treasury's UNIT UTXO comes back as change, so its value cancels out; its script is the
  // treasury's address as the server serves it.
  const treasuryScript = addressToScript(config.treasuryAddress, network);
  return maxOpenDeposit({
    ...base,
    borrowAmount,
    treasury: {
      txid: PLACEHOLDER_TXID,
      vout: 0,
      value: BigInt(config.constants.unitPostageSats),
      script: treasuryScript,
      unitAmount: borrowAmount,
      ...treasuryInternalKey(config),
    },
    unitRuneId: parseRuneId(config.unitRuneId),
    postageSats: BigInt(request.postageSats),
  });
}

/** The max deposit at a fee rate (sat/vB), or null when no UTXO can pay for it at that rate. */
export type MaxDepositAt = (feeRate: number) => bigint | null;

/**
 * Fetches the wallet's UTXOs once and gives the exact max deposit (sats) of a deposit or a vault
 * opening at any fee rate, so the drawer keeps Max right when the rate changes. A failure to fetch
 * them throws SPEC §8's 'Cannot get utxo for max deposit amount'; the drawer shows the same when
 * the UTXOs cannot pay at the chosen rate (null).
 */
export async function loadMaxDeposit(request: MaxDepositRequest): Promise<MaxDepositAt> {
  try {
    const network = request.config.network === 'mainnet' ? NETWORK : TEST_NETWORK;
    const { account } = request;
    const wallet: VaultWallet = {
      satsScript: addressToScript(account.satsAddress, network),
      paymentPublicKey: hex.decode(account.satsPublicKey),
      runesScript: addressToScript(account.runesAddress, network),
      runesPublicKey: hex.decode(account.runesPublicKey),
    };
    const utxos = await paymentUtxos(request.config, account, wallet.satsScript);
    return (feeRate) => {
      try {
        return refine(request, utxos, wallet, feeRate);
      } catch {
        return null;
      }
    };
  } catch {
    throw new Error(ERROR_MESSAGES.maxDepositUtxo);
  }
}
