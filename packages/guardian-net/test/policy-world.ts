// One guardian's vault policy under test, as the vault-policy unit tests share it: the policy over a
// stand-in chain with the devnet's facts, the oracle's signed quotes (by default with the quorum of
// guardians 1 and 2 at the quote's price, and a layout 2 term when one is given), and the pieces
// every drafted request of the tests carries.
import { schnorr } from '@noble/curves/secp256k1.js';
import { expect } from 'vitest';
import { base64, hex } from '@scure/base';
import { TEST_NETWORK, type Transaction } from '@scure/btc-signer';
import { hash160, pubSchnorr } from '@scure/btc-signer/utils.js';
import { parseRuneId, taprootSighash, thresholdSecret } from '@unit/bitcoin';
import type { VaultTerm } from '@unit/protocol';
import { quoteDigest } from '../src/vault-policy/context';
import { VaultPolicy, type PolicyEnv } from '../src/vault-policy/policy';
import {
  GROUP,
  guardianPrice,
  NOW,
  ORACLE_KEY,
  ORACLE_SECRET,
  QUORUM_SET,
  RUNE_ID,
  TREASURY_SCRIPT,
  type StandInChain,
} from './policy-chain';
import type { OracleQuote, Wallet } from './vault-requests';

/** The quotes' price unless a test says otherwise: $95,000.00. */
export const QUOTE_PRICE = 9_500_000;

export interface QuoteTerms {
  price?: number;
  /** false: a quote of off mode, with no guardian prices behind it */
  quorum?: boolean;
  term?: VaultTerm | null;
}

/** The oracle's signed quote for (th, ts). */
export function signedQuote(th: number, ts: number, terms: QuoteTerms = {}): OracleQuote {
  const { price = QUOTE_PRICE, quorum = true, term = null } = terms;
  const fields = { price_cents: price, time: NOW, th, ts };
  return {
    ...fields,
    signature: hex.encode(schnorr.sign(quoteDigest(fields), ORACLE_KEY)),
    // Network mode's evidence: guardians 1 and 2 of the 2-of-3 set agree on the quote's price.
    ...(quorum ? { quorum: [guardianPrice(1, price), guardianPrice(2, price)] } : {}),
    threshold_hash: hex.encode(hash160(thresholdSecret(ORACLE_SECRET, BigInt(th), ts))),
    ...(term ? { term: { settle_height: term.settleHeight, exit_height: term.exitHeight } } : {}),
  };
}

/** The policy of a guardian reading `chain`, on the devnet with the app's oracle key. */
export function policyOn(chain: StandInChain, clock: () => number = () => NOW): VaultPolicy {
  return new VaultPolicy({
    chain,
    facts: {
      network: 'devnet',
      unitRuneId: RUNE_ID,
      oraclePubkey: hex.encode(pubSchnorr(ORACLE_KEY)),
    },
    clock,
  });
}

/** What the policy decides under: the group key, guardian 1's own fresh price, the quorum's set. */
export const policyEnv = (cents = QUOTE_PRICE): PolicyEnv => ({
  groupKey: hex.encode(GROUP),
  ownPrice: {
    fresh: true,
    price: { guardian: 1, setVersion: 1, priceCents: cents, time: NOW, sig: '00' },
  },
  set: QUORUM_SET,
});

/** What every request a test drafts carries besides its action and amounts. */
export const requestBase = (wallet: Wallet, quote: (th: number, ts: number) => OracleQuote) => ({
  wallet,
  network: TEST_NETWORK,
  groupKey: GROUP,
  treasuryScript: TREASURY_SCRIPT,
  unitRuneId: parseRuneId(RUNE_ID),
  now: NOW,
  quote,
});

/** The policy's decision on one key-path input of an operator's treasury transaction. */
export function askTreasuryInput(
  policy: VaultPolicy,
  env: PolicyEnv,
  kind: 'treasury-move' | 'treasury-split',
  tx: Transaction,
  input: number,
  message?: Uint8Array,
) {
  const prevouts = Array.from({ length: tx.inputsLength }, (_, i) => {
    const utxo = tx.getInput(i).witnessUtxo!;
    return { script: utxo.script, amount: utxo.amount };
  });
  return policy.decide(
    {
      sessionId: `${tx.id}:${input}`,
      message: message ?? taprootSighash(tx, prevouts, input, null),
      context: { kind, psbt: base64.encode(tx.toPSBT(0)), input },
    },
    env,
  );
}

/** A refusal with its reason, or a reason matching a pattern. */
export const refusal = (reason: string | RegExp) => ({
  approve: false,
  reason: typeof reason === 'string' ? reason : expect.stringMatching(reason),
});
