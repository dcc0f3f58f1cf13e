// A quote's term is read from the chain's tip; a chain service that misses an answer leaves the
// last height read standing for a few minutes, never longer, and never hides another error.
import { describe, expect, it } from 'vitest';
import { ChainUnavailableError } from '../../src/chain/port';
import { rememberedTipHeight, TIP_MEMORY_MS } from '../../src/chain/tip-memory';

function fakeChain() {
  const state: { height: number; failure: Error | null } = { height: 100, failure: null };
  const chain = {
    tip: () =>
      state.failure
        ? Promise.reject(state.failure)
        : Promise.resolve({ height: state.height, hash: '00'.repeat(32) }),
  };
  return { state, chain };
}

describe('rememberedTipHeight', () => {
  it('reads the tip afresh while the chain answers', async () => {
    const { state, chain } = fakeChain();
    const tip = rememberedTipHeight(chain);
    expect(await tip()).toBe(100);
    state.height = 101;
    expect(await tip()).toBe(101);
  });

  it('answers the last height read while the chain is down, for at most its memory', async () => {
    const { state, chain } = fakeChain();
    let clock = 1_000_000;
    const tip = rememberedTipHeight(chain, { now: () => clock });
    expect(await tip()).toBe(100);
    state.failure = new ChainUnavailableError('the devnet chain is down (devnet control)');
    clock += TIP_MEMORY_MS;
    expect(await tip()).toBe(100);
    clock += 1;
    await expect(tip()).rejects.toBeInstanceOf(ChainUnavailableError);
  });

  it('has nothing to stand in before a first answer, and passes other errors on', async () => {
    const { state, chain } = fakeChain();
    const tip = rememberedTipHeight(chain);
    state.failure = new ChainUnavailableError('/blocks/tip/height answered 502');
    await expect(tip()).rejects.toBeInstanceOf(ChainUnavailableError);
    state.failure = null;
    expect(await tip()).toBe(100);
    state.failure = new TypeError('a bug');
    await expect(tip()).rejects.toBeInstanceOf(TypeError);
  });
});
