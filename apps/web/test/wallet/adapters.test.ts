import { secp256k1, schnorr } from '@noble/curves/secp256k1.js';
import { base64, hex } from '@scure/base';
import * as btc from '@scure/btc-signer';
import { afterEach, describe, expect, it } from 'vitest';
import { signBip322Simple } from '@unit/bitcoin';
import { createDevnetAdapter, DEVNET_FAUCET_SATS } from '../../src/wallet/adapters/devnet';
import { createLeatherAdapter } from '../../src/wallet/adapters/leather';
import { createMetaMaskAdapter } from '../../src/wallet/adapters/metamask';
import { createUnisatAdapter } from '../../src/wallet/adapters/unisat';
import { createXverseAdapter } from '../../src/wallet/adapters/xverse';
import { deriveDevnetKeys, readDevnetSecret } from '../../src/wallet/devnet-key';
import { WalletError } from '../../src/wallet/errors';
import {
  addressesOf,
  buildRepayPsbtFor,
  buildVaultPsbt,
  cosignFinalizeAndVerify,
  cosignRepayAndVerify,
  keyFrom,
  parsePsbt,
  userKeys,
} from './fixtures';
import { installFakeLeather, installFakeUnisat, installFakeXverse } from './fake-providers';

const rejectionOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    return error as WalletError;
  }
  throw new Error('expected a rejection');
};

afterEach(() => {
  delete (window as { XverseProviders?: unknown }).XverseProviders;
  delete window.unisat;
  delete window.LeatherProvider;
  localStorage.clear();
});

const own = addressesOf(userKeys);
const taprootXOnly = hex.encode(schnorr.getPublicKey(userKeys.taprootKey));

describe('Xverse adapter (sats-connect against an injected provider)', () => {
  it('connects with payment and ordinals addresses and derives the vault key from the Taproot key', async () => {
    installFakeXverse();
    const account = await createXverseAdapter().connect();
    expect(account).toEqual({
      satsAddress: own.payment.address,
      satsPublicKey: own.payment.publicKey,
      vaultPubkey: taprootXOnly,
      runesAddress: own.taproot.address,
      runesPublicKey: taprootXOnly,
    });
    // The ordinals account has a key of its own: the payment key cannot spend the runes.
    expect(account.runesPublicKey).not.toBe(account.satsPublicKey.slice(2));
  });

  it('signs a repay with all three keys: payment input by the payment address, UNIT and vault inputs by the ordinals address', async () => {
    const fake = installFakeXverse();
    const adapter = createXverseAdapter();
    const account = await adapter.connect();
    const fixture = buildRepayPsbtFor(account);
    const signed = await adapter.signPsbt(fixture.psbt, { signInputs: fixture.userInputs });
    const request = fake.calls.find((c) => c.method === 'signPsbt')!.params as {
      signInputs: Record<string, number[]>;
    };
    expect(request.signInputs).toEqual({
      [own.taproot.address]: [fixture.vaultInput, fixture.unitInput],
      [own.payment.address]: [fixture.paymentInput],
    });
    const tx = parsePsbt(signed);
    expect(tx.getInput(fixture.unitInput).tapKeySig).toBeDefined();
    expect(tx.getInput(fixture.paymentInput).partialSig).toHaveLength(1);
    expect(cosignRepayAndVerify(signed, fixture)).toEqual({ ok: true });
  });

  it('needs the runes key for a repay: with the payment key in its place no PSBT can be built', async () => {
    installFakeXverse();
    const account = await createXverseAdapter().connect();
    // btc-signer checks tapInternalKey against the prevout's Taproot output key.
    expect(() => buildRepayPsbtFor({ ...account, runesPublicKey: account.satsPublicKey })).toThrow(
      /Taproot commitment does not match/,
    );
  });

  it('turns a cancelled request into a rejection, not a failure', async () => {
    const fake = installFakeXverse();
    fake.rejectNext = true;
    const error = await rejectionOf(createXverseAdapter().connect());
    expect(error).toBeInstanceOf(WalletError);
    expect(error.code).toBe('rejected');
  });

  it('reports a missing extension by name', async () => {
    const error = await rejectionOf(createXverseAdapter().connect());
    expect(error.code).toBe('not_installed');
    expect(error.message).toBe('Xverse is not installed in this browser.');
  });

  it('reports the wallet network and switches it on request', async () => {
    const fake = installFakeXverse({ network: 'Mainnet' });
    const adapter = createXverseAdapter();
    await adapter.connect();
    expect(await adapter.network()).toBe('mainnet');
    await adapter.switchNetwork!('signet');
    expect(fake.network).toBe('Signet');
    expect(await adapter.network()).toBe('signet');
  });

  it('reconnects silently only when Xverse already granted access', async () => {
    const fake = installFakeXverse();
    const adapter = createXverseAdapter();
    expect((await rejectionOf(adapter.connect({ silent: true }))).code).toBe('no_accounts');
    fake.connected = true;
    expect((await adapter.connect({ silent: true })).satsAddress).toBe(own.payment.address);
    expect(fake.calls.some((c) => c.method === 'wallet_connect')).toBe(false);
  });
});

describe('Unisat adapter (window.unisat)', () => {
  const unisatAddress = addressesOf(userKeys).payment.address;

  it('uses its one address for sats and runes and its x-only key as the vault key', async () => {
    installFakeUnisat();
    const adapter = createUnisatAdapter();
    const account = await adapter.connect();
    expect(account.satsAddress).toBe(unisatAddress);
    expect(account.runesAddress).toBe(unisatAddress);
    expect(account.vaultPubkey).toBe(hex.encode(schnorr.getPublicKey(userKeys.paymentKey)));
    // One key for both: compressed, since the shared address is P2WPKH.
    expect(account.runesPublicKey).toBe(account.satsPublicKey);
    expect(account.runesPublicKey).toBe(
      hex.encode(secp256k1.getPublicKey(userKeys.paymentKey, true)),
    );
    expect(await adapter.balance!()).toBe(100_000n);
  });

  it('gives a Taproot account the x-only key as its runes key', async () => {
    installFakeUnisat({ key: userKeys.taprootKey, addressType: 'p2tr' });
    const account = await createUnisatAdapter().connect();
    expect(account.runesAddress).toBe(own.taproot.address);
    expect(account.runesPublicKey).toBe(taprootXOnly);
  });

  it('signs a repay (UNIT and payment inputs on its one address, the vault leaf) with its one key', async () => {
    for (const addressType of ['p2wpkh', 'p2tr'] as const) {
      const fake = installFakeUnisat({ key: userKeys.taprootKey, addressType });
      const adapter = createUnisatAdapter();
      const account = await adapter.connect();
      const fixture = buildRepayPsbtFor(account);
      const signed = await adapter.signPsbt(fixture.psbt, { signInputs: fixture.userInputs });
      expect(fake.lastSignOptions).toEqual({
        autoFinalized: false,
        toSignInputs: [
          { index: fixture.vaultInput, publicKey: account.satsPublicKey, disableTweakSigner: true },
          { index: fixture.unitInput, publicKey: account.satsPublicKey },
          { index: fixture.paymentInput, publicKey: account.satsPublicKey },
        ],
      });
      expect(cosignRepayAndVerify(signed, fixture)).toEqual({ ok: true });
    }
  });

  it('signs hex PSBTs unfinalized with toSignInputs by public key, producing valid signatures', async () => {
    const fake = installFakeUnisat();
    const adapter = createUnisatAdapter();
    const account = await adapter.connect();
    const fixture = buildVaultPsbt({
      vaultKey: userKeys.paymentKey,
      paymentScript: btc.OutScript.encode(
        btc.Address(btc.TEST_NETWORK).decode(account.satsAddress),
      ),
    });
    const signed = await adapter.signPsbt(fixture.psbt, { signInputs: fixture.userInputs });
    expect(fake.lastSignOptions).toEqual({
      autoFinalized: false,
      toSignInputs: [
        { index: 0, publicKey: account.satsPublicKey, disableTweakSigner: true },
        { index: 2, publicKey: account.satsPublicKey },
      ],
    });
    expect(parsePsbt(signed).getInput(fixture.treasuryInput).tapKeySig).toBeUndefined();
    expect(cosignFinalizeAndVerify(signed, fixture).verdict).toEqual({ ok: true });
  });

  it("signs a Taproot account's key-path input with the tweaked key and the vault leaf untweaked", async () => {
    installFakeUnisat({ key: userKeys.taprootKey, addressType: 'p2tr' });
    const adapter = createUnisatAdapter();
    const account = await adapter.connect();
    expect(account.satsAddress).toBe(addressesOf(userKeys).taproot.address);
    const fixture = buildVaultPsbt({
      vaultKey: userKeys.taprootKey,
      paymentScript: btc.OutScript.encode(
        btc.Address(btc.TEST_NETWORK).decode(account.satsAddress),
      ),
      paymentTapInternalKey: schnorr.getPublicKey(userKeys.taprootKey),
    });
    const signed = await adapter.signPsbt(fixture.psbt, { signInputs: fixture.userInputs });
    expect(cosignFinalizeAndVerify(signed, fixture).verdict).toEqual({ ok: true });
  });

  it('maps code 4001 to a rejection', async () => {
    const fake = installFakeUnisat();
    fake.rejectNext = true;
    expect((await rejectionOf(createUnisatAdapter().connect())).code).toBe('rejected');
  });

  it('reads the chain and switches it', async () => {
    const fake = installFakeUnisat({ chain: 'BITCOIN_MAINNET' });
    const adapter = createUnisatAdapter();
    expect(await adapter.network()).toBe('mainnet');
    await adapter.switchNetwork!('signet');
    expect(fake.chain).toBe('BITCOIN_SIGNET');
  });

  it('reports a missing extension', async () => {
    const error = await rejectionOf(createUnisatAdapter().connect());
    expect(error.message).toBe('Unisat is not installed in this browser.');
  });
});

describe('Leather adapter (window.LeatherProvider)', () => {
  it('connects via getAddresses and signs at the requested indices with valid signatures', async () => {
    installFakeLeather();
    const adapter = createLeatherAdapter(undefined, 'signet');
    const account = await adapter.connect();
    expect(account.satsAddress).toBe(own.payment.address);
    expect(account.runesAddress).toBe(own.taproot.address);
    expect(account.vaultPubkey).toBe(taprootXOnly);
    const fixture = buildVaultPsbt({
      vaultKey: userKeys.taprootKey,
      paymentScript: btc.OutScript.encode(
        btc.Address(btc.TEST_NETWORK).decode(own.payment.address),
      ),
    });
    const signed = await adapter.signPsbt(fixture.psbt, { signInputs: fixture.userInputs });
    expect(cosignFinalizeAndVerify(signed, fixture).verdict).toEqual({ ok: true });
  });

  it("reports its Taproot account's own key, x-only, as the runes key and signs a repay with it", async () => {
    installFakeLeather();
    const adapter = createLeatherAdapter(undefined, 'signet');
    const account = await adapter.connect();
    // Leather hands the Taproot key out compressed; the account carries it x-only.
    expect(account.runesPublicKey).toBe(taprootXOnly);
    expect(account.runesPublicKey).not.toBe(account.satsPublicKey.slice(2));
    const fixture = buildRepayPsbtFor(account);
    const signed = await adapter.signPsbt(fixture.psbt, { signInputs: fixture.userInputs });
    expect(parsePsbt(signed).getInput(fixture.unitInput).tapKeySig).toBeDefined();
    expect(cosignRepayAndVerify(signed, fixture)).toEqual({ ok: true });
  });

  it('asks Leather to sign only the inputs named, never to broadcast, and reads its JSON-RPC reply', async () => {
    const fake = installFakeLeather();
    const adapter = createLeatherAdapter(undefined, 'devnet');
    await adapter.connect();
    const fixture = buildVaultPsbt({
      vaultKey: userKeys.taprootKey,
      paymentScript: btc.OutScript.encode(
        btc.Address(btc.TEST_NETWORK).decode(own.payment.address),
      ),
    });
    await adapter.signPsbt(fixture.psbt, { signInputs: fixture.userInputs });
    expect(fake.calls.at(-1)).toEqual({
      method: 'signPsbt',
      params: {
        hex: hex.encode(base64.decode(fixture.psbt)),
        signAtIndex: fixture.userInputs,
        network: 'testnet',
        broadcast: false,
      },
    });
  });

  it('refuses a PSBT Leather handed back unsigned (another account selected since connecting)', async () => {
    installFakeLeather();
    const adapter = createLeatherAdapter(undefined, 'signet');
    await adapter.connect();
    installFakeLeather({ keys: { paymentKey: keyFrom(0x55), taprootKey: keyFrom(0x66) } });
    const fixture = buildVaultPsbt({
      vaultKey: userKeys.taprootKey,
      paymentScript: btc.OutScript.encode(
        btc.Address(btc.TEST_NETWORK).decode(own.payment.address),
      ),
    });
    const error = await rejectionOf(
      adapter.signPsbt(fixture.psbt, { signInputs: fixture.userInputs }),
    );
    expect(error.message).toBe('The wallet could not sign the requested inputs.');
  });

  it('maps a rejected request to a rejection and a mainnet account to mainnet', async () => {
    const fake = installFakeLeather({ network: 'mainnet' });
    const adapter = createLeatherAdapter(undefined, 'signet');
    fake.rejectNext = true;
    expect((await rejectionOf(adapter.connect())).code).toBe('rejected');
    await adapter.connect();
    expect(await adapter.network()).toBe('mainnet');
  });
});

describe('MetaMask adapter', () => {
  it('is detected but refuses to connect with a clear reason', async () => {
    const adapter = createMetaMaskAdapter(() => true);
    expect(adapter.isInstalled()).toBe(true);
    const error = await rejectionOf(adapter.connect());
    expect(error.code).toBe('unsupported');
    expect(error.message).toContain('cannot hold Bitcoin vaults here');
  });
});

describe('Devnet wallet', () => {
  it('creates a stored key with tb1q sats, tb1p runes and a distinct derived vault key', async () => {
    const faucet: Array<{ address: string; sats: number }> = [];
    const adapter = createDevnetAdapter({
      network: 'devnet',
      storage: localStorage,
      requestFaucet: async (address, sats) => void faucet.push({ address, sats }),
    });
    const account = await adapter.connect();
    const secret = readDevnetSecret(localStorage)!;
    expect(secret).not.toBeNull();
    expect(account.satsAddress).toMatch(/^tb1q/);
    expect(account.runesAddress).toMatch(/^tb1p/);
    const { vaultKey } = deriveDevnetKeys(secret);
    expect(account.vaultPubkey).toBe(hex.encode(schnorr.getPublicKey(vaultKey)));
    expect(account.vaultPubkey).not.toBe(account.satsPublicKey.slice(2));
    // The runes address is the payment key's Taproot output: its key, x-only.
    expect(account.runesPublicKey).toBe(account.satsPublicKey.slice(2));
    expect(account.runesAddress).toBe(
      btc.p2tr(hex.decode(account.runesPublicKey), undefined, btc.TEST_NETWORK).address,
    );
    // funded once, on first use only
    expect(faucet).toEqual([{ address: account.satsAddress, sats: DEVNET_FAUCET_SATS }]);
    expect((await adapter.connect()).satsAddress).toBe(account.satsAddress);
    expect(faucet).toHaveLength(1);
  });

  it('exports the key as hex and as a testnet WIF that decodes back to the same secret', async () => {
    const adapter = createDevnetAdapter({ network: 'devnet', requestFaucet: async () => {} });
    await adapter.connect();
    const exported = (await adapter.exportKey())!;
    expect(hex.encode(btc.WIF(btc.TEST_NETWORK).decode(exported.wif))).toBe(exported.hex);
    expect(exported.hex).toBe(hex.encode(readDevnetSecret(localStorage)!));
  });

  it('signs the payment input and the vault update leaf like a real wallet', async () => {
    const adapter = createDevnetAdapter({ network: 'devnet', requestFaucet: async () => {} });
    const account = await adapter.connect();
    const { vaultKey } = deriveDevnetKeys(readDevnetSecret(localStorage)!);
    const fixture = buildVaultPsbt({
      vaultKey,
      paymentScript: btc.OutScript.encode(
        btc.Address(btc.TEST_NETWORK).decode(account.satsAddress),
      ),
    });
    const signed = await adapter.signPsbt(fixture.psbt, { signInputs: fixture.userInputs });
    expect(parsePsbt(signed).getInput(fixture.treasuryInput).tapKeySig).toBeUndefined();
    expect(cosignFinalizeAndVerify(signed, fixture).verdict).toEqual({ ok: true });
  });

  it('signs a repay: its UNIT input with the payment key (key path), the vault leaf with the vault key', async () => {
    const adapter = createDevnetAdapter({ network: 'devnet', requestFaucet: async () => {} });
    const account = await adapter.connect();
    const fixture = buildRepayPsbtFor(account);
    const signed = await adapter.signPsbt(fixture.psbt, { signInputs: fixture.userInputs });
    expect(cosignRepayAndVerify(signed, fixture)).toEqual({ ok: true });
  });

  it('is not offered off the devnet', async () => {
    const adapter = createDevnetAdapter({ network: 'signet', requestFaucet: async () => {} });
    expect(adapter.isInstalled()).toBe(false);
    expect((await rejectionOf(adapter.connect())).code).toBe('unsupported');
  });
});

describe('signing the sign-in challenge (BIP-322 simple)', () => {
  // The server verifies with bip322-js, which needs Node's Buffer and cannot run under jsdom:
  // here each adapter must ask its wallet for BIP-322 by its sats address and hand back exactly
  // what a BIP-322 signer makes (signBip322Simple, itself checked against bip322-js in
  // packages/bitcoin); the browser journeys sign in against the real server.
  const message = 'localhost wants you to sign in to UNIT with your Bitcoin account:\nNonce: 00';
  const wpkhSignature = (key: Uint8Array) =>
    signBip322Simple({
      message,
      script: btc.p2wpkh(secp256k1.getPublicKey(key, true), btc.TEST_NETWORK).script,
      secretKey: key,
    });

  it('Xverse asks sats-connect for BIP322 by the payment address', async () => {
    installFakeXverse();
    const adapter = createXverseAdapter();
    await adapter.connect();
    expect(await adapter.signMessage(message)).toBe(wpkhSignature(userKeys.paymentKey));
  });

  it("Unisat signs with 'bip322-simple'", async () => {
    installFakeUnisat({ chain: 'BITCOIN_TESTNET' });
    const adapter = createUnisatAdapter();
    await adapter.connect();
    expect(await adapter.signMessage(message)).toBe(wpkhSignature(userKeys.paymentKey));
  });

  it('Leather signs with its P2WPKH account', async () => {
    installFakeLeather();
    const adapter = createLeatherAdapter(undefined, 'signet');
    await adapter.connect();
    expect(await adapter.signMessage(message)).toBe(wpkhSignature(userKeys.paymentKey));
  });

  it('the devnet wallet signs with its own payment key, the key of its sats address', async () => {
    const adapter = createDevnetAdapter({ network: 'devnet', requestFaucet: async () => {} });
    const account = await adapter.connect();
    const { paymentKey } = deriveDevnetKeys(readDevnetSecret(localStorage)!);
    expect(btc.p2wpkh(secp256k1.getPublicKey(paymentKey, true), btc.TEST_NETWORK).address).toBe(
      account.satsAddress,
    );
    expect(await adapter.signMessage(message)).toBe(wpkhSignature(paymentKey));
  });
});
