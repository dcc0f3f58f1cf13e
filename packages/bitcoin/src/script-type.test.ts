import { describe, expect, it } from 'vitest';
import { p2pk, p2pkh, p2sh, p2tr, p2wpkh, p2wsh, TEST_NETWORK } from '@scure/btc-signer';
import { outputScriptBytes } from '@unit/protocol';
import { userKey } from '../test/testKeys';
import { addressToScript, isValidAddress, scriptToAddress } from './address';
import { assertSpendableScript, classifyScript } from './script-type';
import { stateRecordScript } from './state-record';

const wpkh = p2wpkh(userKey.compressed, TEST_NETWORK);
const shwpkh = p2sh(p2wpkh(userKey.compressed, TEST_NETWORK), TEST_NETWORK);
const tr = p2tr(userKey.xOnly, undefined, TEST_NETWORK);
const pkh = p2pkh(userKey.compressed, TEST_NETWORK);
const wsh = p2wsh(p2pk(userKey.compressed), TEST_NETWORK);

describe('classifyScript', () => {
  it('names the standard output types', () => {
    expect(classifyScript(wpkh.script)).toBe('p2wpkh');
    expect(classifyScript(shwpkh.script)).toBe('p2sh');
    expect(classifyScript(tr.script)).toBe('p2tr');
    expect(classifyScript(Uint8Array.of(0x6a, 0x01, 0x00))).toBe('op_return');
  });

  it('calls P2PKH, P2WSH and empty scripts other', () => {
    expect(classifyScript(pkh.script)).toBe('other');
    expect(classifyScript(wsh.script)).toBe('other');
    expect(classifyScript(new Uint8Array())).toBe('other');
  });
});

describe('assertSpendableScript (SPEC §8)', () => {
  it('lets p2sh, p2wpkh and p2tr through', () => {
    expect(assertSpendableScript(shwpkh.script)).toBe('p2sh');
    expect(assertSpendableScript(wpkh.script)).toBe('p2wpkh');
    expect(assertSpendableScript(tr.script)).toBe('p2tr');
  });

  it("throws 'Unexpected script type' for anything else", () => {
    expect(() => assertSpendableScript(pkh.script)).toThrow('Unexpected script type');
    expect(() => assertSpendableScript(wsh.script)).toThrow('Unexpected script type');
    expect(() =>
      assertSpendableScript(
        stateRecordScript({
          action: 'o',
          unitDebt: 0n,
          vaultSats: 0n,
          quotePriceCents: 0n,
          thresholdCents: 0n,
          quoteStamp: 0,
          nonce: new Uint8Array(16),
          expiry: 0,
        }),
      ),
    ).toThrow('Unexpected script type');
  });
});

describe('addresses', () => {
  it('turns tb1 addresses into their scripts and back', () => {
    expect(wpkh.address.startsWith('tb1q')).toBe(true);
    expect(addressToScript(wpkh.address, TEST_NETWORK)).toEqual(wpkh.script);
    expect(addressToScript(tr.address, TEST_NETWORK)).toEqual(tr.script);
    expect(addressToScript(shwpkh.address, TEST_NETWORK)).toEqual(shwpkh.script);
    expect(scriptToAddress(tr.script, TEST_NETWORK)).toBe(tr.address);
    expect(scriptToAddress(shwpkh.script, TEST_NETWORK)).toBe(shwpkh.address);
  });

  it('has no address for an OP_RETURN', () => {
    expect(scriptToAddress(Uint8Array.of(0x6a, 0x01, 0x00), TEST_NETWORK)).toBeNull();
  });

  it('refuses a mainnet address on the test network and a broken checksum', () => {
    const mainnet = p2wpkh(userKey.compressed).address;
    expect(isValidAddress(mainnet, TEST_NETWORK)).toBe(false);
    expect(() => addressToScript(mainnet, TEST_NETWORK)).toThrow();
    const broken = wpkh.address.slice(0, -1) + (wpkh.address.endsWith('q') ? 'p' : 'q');
    expect(isValidAddress(broken, TEST_NETWORK)).toBe(false);
    expect(isValidAddress(wpkh.address, TEST_NETWORK)).toBe(true);
  });
});

describe("the protocol's outputScriptBytes, read from an address alone", () => {
  it('is the length of the script the address decodes to, on test and main networks', () => {
    const main = { bech32: 'bc', pubKeyHash: 0x00, scriptHash: 0x05, wif: 0x80 };
    const regtest = { ...TEST_NETWORK, bech32: 'bcrt' };
    for (const net of [TEST_NETWORK, main, regtest])
      for (const out of [
        p2wpkh(userKey.compressed, net),
        p2sh(p2wpkh(userKey.compressed, net), net),
        p2tr(userKey.xOnly, undefined, net),
        p2pkh(userKey.compressed, net),
        p2wsh(p2pk(userKey.compressed), net),
      ])
        expect(outputScriptBytes(out.address!)).toBe(addressToScript(out.address!, net).length);
  });
});
