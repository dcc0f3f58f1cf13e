// What the devnet's chain starts from and what each block pays: the coinbase, the subsidy, and
// block 1's UNIT etching that premines the whole supply over the treasury outputs.
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { encodeRunestone, parseSpacedRune } from '@unit/bitcoin';
import { big, type DevnetFaucet } from './store';

const SATS_PER_BTC = 100_000_000n;
/** The faucet's genesis allowance; coinbases refill it afterwards. */
export const GENESIS_FAUCET_SATS = 1_000n * SATS_PER_BTC;
export const DEFAULT_GUARDIAN_FUNDING_SATS = 10n * SATS_PER_BTC;
/** 1,000,000,000 UNIT in hundredths (divisibility 2: one rune unit is one hundredth). */
export const DEFAULT_UNIT_SUPPLY = 100_000_000_000n;
/** UNIT postage of the treasury output (CONSTANTS.md UNIT postage). */
const TREASURY_POSTAGE_SATS = 10_000n;
/** How many treasury UNIT outputs genesis creates: how many issues can be reserved at once. */
const TREASURY_OUTPUTS = 8;
export const GENESIS_ETCHING_FEE_SATS = 10_000n;
export const FAUCET_FEE_RATE = 2n;
/** Mainnet's schedule: at 10 s blocks the first halving is weeks away, so the faucet never dries. */
export const subsidy = (height: number): bigint =>
  (50n * SATS_PER_BTC) >> BigInt(Math.floor(height / 210_000));

export const UNIT_RUNE_NAME = 'UNIT•RUNE•TOKEN';
export const UNIT_RUNE_SYMBOL = '¤';

function scriptNum(n: number): Uint8Array {
  const bytes: number[] = [];
  let v = n;
  while (v > 0) {
    bytes.push(v & 0xff);
    v = Math.floor(v / 256);
  }
  if (bytes.length > 0 && (bytes[bytes.length - 1]! & 0x80) !== 0) bytes.push(0);
  return Uint8Array.from(bytes);
}

/** A coinbase: BIP34 height in the scriptSig, one output to the faucet. */
export function coinbaseTx(height: number, faucetScript: Uint8Array, amount: bigint): Transaction {
  const tx = new Transaction({ allowUnknownInputs: true, allowUnknownOutputs: true });
  tx.addOutput({ script: faucetScript, amount });
  const heightPush = scriptNum(height);
  const scriptSig = new Uint8Array([
    heightPush.length,
    ...heightPush,
    0x04,
    ...hex.decode('756e6974'),
  ]);
  tx.addInput({
    txid: new Uint8Array(32),
    index: 0xffffffff,
    finalScriptSig: scriptSig,
    sequence: 0xffffffff,
  });
  return tx;
}

export interface GenesisOptions {
  treasuryScript: Uint8Array;
  guardianScript?: Uint8Array;
  guardianFundingSats: bigint;
  unitSupply: bigint;
}

/**
 * Block 1's etching: a faucet-signed transaction spending the genesis allowance `first`, whose
 * runestone premines the whole supply over the treasury outputs (and that funds the guardian).
 */
export function etchingTx(
  first: { txid: string; vout: number; value: number | string | bigint },
  faucet: DevnetFaucet,
  opts: GenesisOptions,
): Transaction {
  const etching = new Transaction({ allowUnknownOutputs: true });
  etching.addInput({
    txid: first.txid,
    index: first.vout,
    witnessUtxo: { script: faucet.script, amount: big(first.value) },
  });
  // The premine is split over several treasury outputs: each open or borrow locks one for
  // its 30 s reservation, so one output alone would make concurrent issues wait in line.
  for (let i = 0; i < TREASURY_OUTPUTS; i++)
    etching.addOutput({ script: opts.treasuryScript, amount: TREASURY_POSTAGE_SATS });
  const share = opts.unitSupply / BigInt(TREASURY_OUTPUTS);
  const { rune, spacers } = parseSpacedRune(UNIT_RUNE_NAME);
  etching.addOutput({
    script: encodeRunestone({
      // 0:0 names the rune this transaction etches; the remainder goes to the pointer.
      edicts: Array.from({ length: TREASURY_OUTPUTS - 1 }, (_, i) => ({
        id: { block: 0n, tx: 0 },
        amount: share,
        output: i + 1,
      })),
      pointer: 0,
      etching: {
        rune,
        spacers,
        divisibility: 2,
        symbol: UNIT_RUNE_SYMBOL,
        premine: opts.unitSupply,
      },
    }),
    amount: 0n,
  });
  let spent = TREASURY_POSTAGE_SATS * BigInt(TREASURY_OUTPUTS) + GENESIS_ETCHING_FEE_SATS;
  if (opts.guardianScript) {
    etching.addOutput({ script: opts.guardianScript, amount: opts.guardianFundingSats });
    spent += opts.guardianFundingSats;
  }
  etching.addOutput({ script: faucet.script, amount: big(first.value) - spent });
  etching.sign(faucet.secret);
  etching.finalize();
  return etching;
}
