// What a wire tapper between the app and its guardians, or between guardians, sees of a whole vault
// lifecycle: open, deposit, borrow, repay, withdraw, through the real app coordinating three real
// guardian processes (each deciding every request with `--policy vault`), every byte to a guardian
// recorded by a TCP relay (capture-world.ts). Over TLS (the default) the capture holds none of
// what the requests carried: the PSBTs (base64 and hex), the vault's key, address, script and
// outpoint, the wallet's addresses, the price. The same lifecycle over plain HTTP (the
// local-development flag) shows each PSBT, the price and the vault's key, so the search can fail;
// the addresses and scripts cross only inside the PSBTs, so they are found there as the PSBT.
import { Address, OutScript, TEST_NETWORK } from '@scure/btc-signer';
import { base64, hex } from '@scure/base';
import { afterEach, describe, expect, it } from 'vitest';
import { call } from '../guardian/harness';
import { startCaptureWorld, type CaptureWorld } from './capture-world';

let world: CaptureWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

type Needles = Map<string, Set<string>>;

/** Each known plaintext of one request, in every form it could cross the wire in. */
function remember(needles: Needles, kind: string, ...forms: string[]) {
  const set = needles.get(kind) ?? new Set<string>();
  for (const form of forms) set.add(form);
  needles.set(kind, set);
}

/** The lifecycle through the app; what its requests carried, by kind. */
async function lifecycle(w: CaptureWorld): Promise<Needles> {
  const needles: Needles = new Map();
  const alice = await w.h.wallet('alice');
  const steps: [string, () => Promise<{ request: { psbt: string; quote: { price_cents: number } } }>][] = [
    ['vault.open', () => alice.open(5_000_000n, 50_000n)],
    ['vault.deposit', () => alice.deposit(50_000n)],
    ['vault.borrow', () => alice.borrow(5_000n)],
    ['vault.repay', () => alice.repay(5_000n)],
    ['vault.withdraw', () => alice.withdraw(50_000n)],
  ]; // prettier-ignore
  for (const [method, draft] of steps) {
    const { request } = await draft();
    await call(w.app.guardian, method, request);
    remember(needles, 'psbt', request.psbt, hex.encode(base64.decode(request.psbt)));
    remember(needles, 'price', String(request.quote.price_cents));
    const vault = await alice.vault();
    const address = Address(TEST_NETWORK).encode(OutScript.decode(vault.output.script));
    remember(needles, 'vault', alice.vaultPubkey, address, hex.encode(vault.output.script), vault.txid); // prettier-ignore
    remember(needles, 'wallet address', alice.paymentAddress, alice.runesAddress);
  }
  return needles;
}

/** Of each kind, the forms found in any recorded stream. */
function found(streams: Buffer[], needles: Needles): Record<string, string[]> {
  const seen: Record<string, string[]> = {};
  for (const [kind, forms] of needles)
    seen[kind] = [...forms].filter((form) => streams.some((s) => s.includes(form)));
  return seen;
}

describe('a capture of every link during a vault lifecycle', () => {
  it('over TLS holds no PSBT, price, address or key in clear', async () => {
    world = await startCaptureWorld(false);
    expect(world.set.members.every((m) => m.url.startsWith('https://'))).toBe(true);
    const needles = await lifecycle(world);
    const streams = world.streams();
    // The app's and the guardians' exchanges did cross the relays, and they were TLS.
    expect(streams.reduce((n, s) => n + s.length, 0)).toBeGreaterThan(50_000);
    expect(streams.filter((s) => s.length > 0).every((s) => s[0] === 0x16)).toBe(true);
    const seen = found(streams, needles);
    expect(seen).toEqual({ psbt: [], price: [], vault: [], 'wallet address': [] });
  }, 240_000);

  it('over plain HTTP (the local-development flag) shows them: the search finds what is there', async () => {
    world = await startCaptureWorld(true);
    expect(world.set.members.every((m) => m.url.startsWith('http://'))).toBe(true);
    const needles = await lifecycle(world);
    const seen = found(world.streams(), needles);
    // Each of the five requests' PSBTs, as the wallet signed it (base64), the quote's price and
    // the vault's key: in the clear.
    const psbts = [...needles.get('psbt')!].filter((form) => form.startsWith('cHNidP8'));
    expect(psbts).toHaveLength(5);
    expect(seen.psbt).toEqual(expect.arrayContaining(psbts));
    expect(seen.price).toEqual([...needles.get('price')!]);
    const [vaultKey] = needles.get('vault')!;
    expect(seen.vault).toContain(vaultKey);
  }, 240_000);
});
