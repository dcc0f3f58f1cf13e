// The transaction a speed-up replaces, as the wallet reads it: its raw hex and each input's prevout
// from the chain.
import { hex } from '@scure/base';
import { parseTransaction, type Prevout } from '@unit/bitcoin';
import type { Chain } from '../../src/chain/port';

export async function originalOf(
  chain: Pick<Chain, 'txHex' | 'output'>,
  txid: string,
): Promise<{ hex: string; prevouts: Prevout[] }> {
  const raw = (await chain.txHex(txid))!;
  const tx = parseTransaction(raw);
  const prevouts: Prevout[] = [];
  for (let i = 0; i < tx.inputsLength; i++) {
    const input = tx.getInput(i);
    const output = (await chain.output(hex.encode(input.txid!), input.index!))!;
    prevouts.push({ script: hex.decode(output.script_hex), amount: BigInt(output.value) });
  }
  return { hex: raw, prevouts };
}
