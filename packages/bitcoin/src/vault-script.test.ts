import { describe, expect, it } from 'vitest';
import { hex } from '@scure/base';
import { p2tr, TAPROOT_UNSPENDABLE_KEY, TEST_NETWORK } from '@scure/btc-signer';
import { hash160 } from '@scure/btc-signer/utils.js';
import { guardianKey, oracleSecret, userKey } from '../test/testKeys';
import {
  classifyTapLeaf,
  liquidationLeafScript,
  thresholdHash,
  thresholdSecret,
  updateLeafScript,
  vaultOutput,
} from './vault-script';

const hash = thresholdHash(thresholdSecret(oracleSecret, 7_037_500n, 1_750_000_000));

describe('vault leaves', () => {
  it('writes the update leaf as <vault> CHECKSIGVERIFY <guard> CHECKSIG', () => {
    const script = updateLeafScript(userKey.xOnly, guardianKey.xOnly);
    expect(hex.encode(script)).toBe(
      `20${hex.encode(userKey.xOnly)}ad20${hex.encode(guardianKey.xOnly)}ac`,
    );
  });

  it('writes the liquidation leaf as HASH160 <hash> EQUALVERIFY <guard> CHECKSIG', () => {
    const script = liquidationLeafScript(hash, guardianKey.xOnly);
    expect(hex.encode(script)).toBe(
      `a914${hex.encode(hash)}8820${hex.encode(guardianKey.xOnly)}ac`,
    );
  });

  it('refuses keys and hashes of the wrong length', () => {
    expect(() => updateLeafScript(userKey.compressed, guardianKey.xOnly)).toThrow(
      'vault_pubkey must be 32 bytes',
    );
    expect(() => liquidationLeafScript(hash.subarray(0, 19), guardianKey.xOnly)).toThrow(
      'threshold_hash',
    );
  });

  it('classifies both vault leaves back to their keys and hash', () => {
    const update = classifyTapLeaf(updateLeafScript(userKey.xOnly, guardianKey.xOnly));
    expect(update?.kind).toBe('update');
    if (update?.kind !== 'update') throw new Error('unreachable');
    expect(update.vaultPubkey).toEqual(userKey.xOnly);
    expect(update.guardPubkey).toEqual(guardianKey.xOnly);

    const liquidation = classifyTapLeaf(liquidationLeafScript(hash, guardianKey.xOnly));
    expect(liquidation?.kind).toBe('liquidation');
    if (liquidation?.kind !== 'liquidation') throw new Error('unreachable');
    expect(liquidation.thresholdHash).toEqual(hash);
    expect(liquidation.guardPubkey).toEqual(guardianKey.xOnly);
  });

  it('classifies any other script as null', () => {
    const update = updateLeafScript(userKey.xOnly, guardianKey.xOnly);
    const tampered = update.slice();
    tampered[33] = 0xac; // CHECKSIG where CHECKSIGVERIFY belongs
    expect(classifyTapLeaf(tampered)).toBeNull();
    expect(classifyTapLeaf(update.subarray(0, 67))).toBeNull();
    expect(classifyTapLeaf(Uint8Array.of(0x51))).toBeNull();
  });
});

describe('vault output', () => {
  const vault = vaultOutput({
    vaultPubkey: userKey.xOnly,
    guardPubkey: guardianKey.xOnly,
    thresholdHash: hash,
    network: TEST_NETWORK,
  });

  it('is the p2tr of the unspendable key over the two leaves, with a tb1p address', () => {
    const expected = p2tr(
      TAPROOT_UNSPENDABLE_KEY,
      [
        { script: updateLeafScript(userKey.xOnly, guardianKey.xOnly) },
        { script: liquidationLeafScript(hash, guardianKey.xOnly) },
      ],
      TEST_NETWORK,
      true,
    );
    expect(vault.script).toEqual(expected.script);
    expect(vault.address).toBe(expected.address);
    expect(vault.address.startsWith('tb1p')).toBe(true);
    expect(vault.tapInternalKey).toEqual(TAPROOT_UNSPENDABLE_KEY);
    expect(vault.tapLeafScript).toHaveLength(2);
  });

  it('gives control blocks naming the unspendable internal key with leaf version 0xc0', () => {
    for (const leaf of [vault.updateLeaf, vault.liquidationLeaf]) {
      expect(leaf.controlBlock.length).toBe(33 + 32);
      expect(leaf.controlBlock[0]! & 0xfe).toBe(0xc0);
      expect(leaf.controlBlock.subarray(1, 33)).toEqual(TAPROOT_UNSPENDABLE_KEY);
    }
  });

  it('changes address when the threshold hash changes', () => {
    const other = vaultOutput({
      vaultPubkey: userKey.xOnly,
      guardPubkey: guardianKey.xOnly,
      thresholdHash: thresholdHash(thresholdSecret(oracleSecret, 7_037_501n, 1_750_000_000)),
      network: TEST_NETWORK,
    });
    expect(other.address).not.toBe(vault.address);
  });
});

describe('threshold secret', () => {
  it('is deterministic and depends on the price and the stamp', () => {
    const a = thresholdSecret(oracleSecret, 7_037_500n, 1_750_000_000);
    expect(a).toHaveLength(32);
    expect(thresholdSecret(oracleSecret, 7_037_500n, 1_750_000_000)).toEqual(a);
    expect(thresholdSecret(oracleSecret, 7_037_501n, 1_750_000_000)).not.toEqual(a);
    expect(thresholdSecret(oracleSecret, 7_037_500n, 1_750_000_001)).not.toEqual(a);
  });

  it('hashes with hash160', () => {
    const secret = thresholdSecret(oracleSecret, 1n, 2);
    expect(thresholdHash(secret)).toEqual(hash160(secret));
    expect(thresholdHash(secret)).toHaveLength(20);
  });

  it('matches HMAC-SHA256 over "unit/threshold" || u64be || u32be', async () => {
    const { createHmac } = await import('node:crypto');
    const message = Buffer.concat([
      Buffer.from('unit/threshold'),
      Buffer.from('0000000000001234', 'hex'),
      Buffer.from('00000005', 'hex'),
    ]);
    const expected = createHmac('sha256', Buffer.from(oracleSecret)).update(message).digest();
    expect(hex.encode(thresholdSecret(oracleSecret, 0x1234n, 5))).toBe(expected.toString('hex'));
  });
});
