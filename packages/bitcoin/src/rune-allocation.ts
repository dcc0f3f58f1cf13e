// The rule that moves rune balances through a transaction, as ord's indexer applies it.
import { runeIdToString } from './rune-names';
import { OP_RETURN, type RuneArtifact, type RuneId } from './runestone-format';

export interface AllocateRunesParams {
  /** Rune balances of all inputs together, keyed by `"block:tx"`. */
  inputBalances: ReadonlyMap<string, bigint>;
  /** What `decodeRunestone` found, or null when the transaction has no runestone. */
  runestone: RuneArtifact | null;
  outputs: readonly { script: Uint8Array }[];
  /** The id the etching of this transaction receives, when the indexer accepts it. */
  etchedId?: RuneId;
  /** Units minted by the runestone's `mint`, when the indexer accepts the mint. */
  mintAmount?: bigint;
}

export interface RuneAllocation {
  /** One map per output, keyed by `"block:tx"`; OP_RETURN outputs hold nothing. */
  balances: Map<string, bigint>[];
  burned: Map<string, bigint>;
}

function add(map: Map<string, bigint>, key: string, amount: bigint): void {
  if (amount > 0n) map.set(key, (map.get(key) ?? 0n) + amount);
}

/**
 * Moves the input runes to the outputs as ord does: edicts in order (amount 0 = all remaining,
 * output == outputs.length splits among the non-OP_RETURN outputs), the rest to the pointer or
 * the first non-OP_RETURN output; a cenotaph burns everything; runes sent to OP_RETURN burn.
 */
export function allocateRunes({
  inputBalances,
  runestone: artifact,
  outputs,
  etchedId,
  mintAmount,
}: AllocateRunesParams): RuneAllocation {
  const unallocated = new Map<string, bigint>();
  for (const [id, amount] of inputBalances) add(unallocated, id, amount);
  const allocated = outputs.map(() => new Map<string, bigint>());
  const burned = new Map<string, bigint>();
  const isOpReturn = (vout: number) => outputs[vout]!.script[0] === OP_RETURN;

  const mint = artifact
    ? 'runestone' in artifact
      ? artifact.runestone.mint
      : artifact.mint
    : undefined;
  if (mint && mintAmount !== undefined) add(unallocated, runeIdToString(mint), mintAmount);

  if (artifact && 'cenotaph' in artifact) {
    for (const [id, amount] of unallocated) add(burned, id, amount);
    return { balances: allocated, burned };
  }

  const stone = artifact?.runestone;
  if (stone) {
    if (stone.etching && etchedId)
      add(unallocated, runeIdToString(etchedId), stone.etching.premine ?? 0n);
    const destinations = outputs.map((_, vout) => vout).filter((vout) => !isOpReturn(vout));
    for (const edict of stone.edicts) {
      let id = edict.id;
      if (id.block === 0n && id.tx === 0) {
        // 0:0 names the rune this very transaction etches.
        if (!etchedId) continue;
        id = etchedId;
      }
      const key = runeIdToString(id);
      let balance = unallocated.get(key);
      if (balance === undefined) continue;
      const allocate = (amount: bigint, vout: number) => {
        if (amount <= 0n) return;
        balance! -= amount;
        add(allocated[vout]!, key, amount);
      };
      if (edict.output === outputs.length) {
        if (destinations.length > 0) {
          if (edict.amount === 0n) {
            const count = BigInt(destinations.length);
            const share = balance / count;
            const remainder = balance % count;
            destinations.forEach((vout, i) =>
              allocate(BigInt(i) < remainder ? share + 1n : share, vout),
            );
          } else {
            for (const vout of destinations)
              allocate(edict.amount < balance ? edict.amount : balance, vout);
          }
        }
      } else {
        allocate(
          edict.amount === 0n || edict.amount > balance ? balance : edict.amount,
          edict.output,
        );
      }
      unallocated.set(key, balance);
    }
  }

  const fallback = stone?.pointer ?? outputs.findIndex((_, vout) => !isOpReturn(vout));
  for (const [id, amount] of unallocated) {
    if (fallback >= 0) add(allocated[fallback]!, id, amount);
    else add(burned, id, amount);
  }
  const balances = allocated.map((map, vout) => {
    if (!isOpReturn(vout)) return map;
    for (const [id, amount] of map) add(burned, id, amount);
    return new Map<string, bigint>();
  });
  return { balances, burned };
}
