// A vault of layout 2 reaches its term: the devnet takes the settlement from the settlement height
// on (not before: the script check and finality refuse it), and the treasury and the owner get what
// the design says, to the sat. The group key here is one key standing for the guardians' FROST key:
// the chain sees one BIP-340 signature either way.
import { describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { TEST_NETWORK, p2tr } from '@scure/btc-signer';
import { termSettlement } from '@unit/protocol';
import {
  finishSettlement,
  ownerPayoutScript,
  planSettlement,
  scriptToAddress,
  settlementSighash,
  thresholdHash,
  vaultOutput,
  type SettlementRequest,
} from '@unit/bitcoin';
import { BroadcastError } from '../../src/chain/port';
import { devnetPerTest } from './fixtures';

const openDevnet = devnetPerTest();

const owner = schnorr.getPublicKey(sha256(new TextEncoder().encode('settlement owner')));
const group = sha256(new TextEncoder().encode('settlement group key'));
const treasuryScript = p2tr(
  schnorr.getPublicKey(sha256(Uint8Array.of(40))),
  undefined,
  TEST_NETWORK,
).script;

describe('a vault that reaches its term with the network running', () => {
  it('is settled from the settlement height: debt and tax to the treasury, the rest to the owner, to the sat', async () => {
    const { devnet } = await openDevnet();
    const tip = (await devnet.tip()).height;
    const term = { settleHeight: tip + 3, exitHeight: tip + 6 };
    const vault = vaultOutput({
      vaultPubkey: owner,
      guardPubkey: schnorr.getPublicKey(group),
      thresholdHash: thresholdHash(new Uint8Array(32).fill(4)),
      network: TEST_NETWORK,
      term,
    });
    const txid = await devnet.fund(vault.address, 2_500_000n);
    await devnet.mine(1);
    const vout = (await devnet.getTx(txid))!.outputs.findIndex((o) => o.address === vault.address);
    // 500 UNIT owed at 80,000 USD: 625,000 sats of debt and 93,750 of tax.
    const request: SettlementRequest = {
      vault,
      slot: 0,
      utxo: { txid, vout, amount: 2_500_000n },
      debtCents: 50_000n,
      priceCents: 8_000_000n,
      treasuryScript,
      feeRate: 3,
    };
    const plan = planSettlement(request);
    const tx = finishSettlement(
      plan,
      request,
      schnorr.sign(settlementSighash(plan, request), group),
    );
    await expect(devnet.broadcast(tx.hex)).rejects.toThrow(BroadcastError);
    while ((await devnet.tip()).height < term.settleHeight) await devnet.mine(1);
    expect(await devnet.broadcast(tx.hex)).toBe(tx.id);
    await devnet.mine(1);
    expect((await devnet.txStatus(tx.id))?.confirmed).toBe(true);
    const outputs = (await devnet.getTx(tx.id))!.outputs;
    const split = termSettlement({
      collateralSats: 2_500_000n,
      debtCents: 50_000n,
      priceCents: 8_000_000n,
      feeSats: plan.feeSats,
    });
    expect(split).toMatchObject({ debtSats: 625_000n, taxSats: 93_750n, treasurySats: 718_750n });
    expect(outputs.map((o) => BigInt(o.value))).toEqual([
      718_750n,
      2_500_000n - 718_750n - plan.feeSats,
    ]);
    expect(split.ownerSats).toBe(2_500_000n - 718_750n - plan.feeSats);
    expect(outputs.map((o) => o.address)).toEqual([
      scriptToAddress(treasuryScript, TEST_NETWORK),
      scriptToAddress(ownerPayoutScript(owner), TEST_NETWORK),
    ]);
    expect(plan.feeSats).toBe(BigInt(3 * Math.ceil((await devnet.getTx(tx.id))!.weight / 4)));
  });
});
