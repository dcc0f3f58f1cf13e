// The chain's tip height for a quote's term (docs/protocol.md, "Leaving without the guardians").
// A quote is read before anything is signed; were it refused whenever the chain service misses one
// answer, a request signed just before could never be sent again as it was. So the last height read
// stands in for a short while: each guardian checks the term against its own tip within
// TERM_TIP_TOLERANCE_BLOCKS, which a tip a few minutes old stays within.
import { ChainUnavailableError, type Chain } from './port';

/** How long a height read from the chain stands in for it while its service does not answer. */
export const TIP_MEMORY_MS = 5 * 60_000;

/**
 * The tip's height, read from the chain; while the chain service does not answer, the last height
 * read within `maxAgeMs`, else the chain's error.
 */
export function rememberedTipHeight(
  chain: Pick<Chain, 'tip'>,
  { maxAgeMs = TIP_MEMORY_MS, now = Date.now }: { maxAgeMs?: number; now?: () => number } = {},
): () => Promise<number> {
  let last: { height: number; at: number } | null = null;
  return async () => {
    try {
      const { height } = await chain.tip();
      last = { height, at: now() };
      return height;
    } catch (error) {
      if (error instanceof ChainUnavailableError && last && now() - last.at <= maxAgeMs)
        return last.height;
      throw error;
    }
  };
}
