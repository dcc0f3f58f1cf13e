// `npm run exit`: the owner leaves a vault of layout 2 with the chain alone. The devnet serves only a
// network's services (esplora), no app server and no guardian run: the command reads the vault from
// its id or its address, refuses before the exit height (and the devnet would too) and every bad
// input with a sentence before anything is signed, and once the chain is there signs and
// broadcasts the exit, which pays the whole vault less the fee.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import { Address, NETWORK, OutScript, TEST_NETWORK } from '@scure/btc-signer';
import { stateRecordScript, thresholdHash, vaultOutput } from '@unit/bitcoin';
import { serveNetwork, type ServedNetwork } from '../../src/devnet/serve';
import { main } from '../../src/exit/cli';
import { ALICE, BOB, signedSpend, TREASURY } from '../devnet/fixtures';

const owner = sha256(new TextEncoder().encode('exit-command owner'));
const VAULT_SATS = 150_000n;
const SMALL_VAULT_SATS = 20_000n;
let served: ServedNetwork;
let dir: string;
let keyFile: string;
let vaultTxid: string;
let vaultAddress: string;
let vaultScriptHex: string;
let smallVaultTxid: string;
let exitHeight: number;

async function run(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    args,
    (l) => out.push(l),
    (l) => err.push(l),
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-exit-'));
  keyFile = path.join(dir, 'owner.key');
  fs.writeFileSync(keyFile, `${hex.encode(owner)}\n`, { mode: 0o600 });
  served = await serveNetwork({
    dataDir: dir,
    host: '127.0.0.1',
    port: 0,
    blockIntervalMs: 0,
    unitTo: TREASURY.trAddress,
    startPriceCents: 88_000_00,
  });
  const { devnet } = served;
  const tip = (await devnet.tip()).height;
  const term = { settleHeight: tip + 6, exitHeight: tip + 8 };
  exitHeight = term.exitHeight;
  ({
    txid: vaultTxid,
    address: vaultAddress,
    scriptHex: vaultScriptHex,
  } = await openVault(term, VAULT_SATS));
  ({ txid: smallVaultTxid } = await openVault(term, SMALL_VAULT_SATS));
});

/** Opens a vault of layout 2 of `sats` for the owner from a faucet payment to Alice; mined. */
async function openVault(term: { settleHeight: number; exitHeight: number }, sats: bigint) {
  const { devnet } = served;
  const funded = sats + 50_000n;
  const fundTxid = await devnet.fund(ALICE.address, funded);
  await devnet.mine(1);
  const fundVout = (await devnet.getTx(fundTxid))!.outputs.findIndex(
    (o) => o.address === ALICE.address,
  );
  const vault = vaultOutput({
    vaultPubkey: schnorr.getPublicKey(owner),
    guardPubkey: schnorr.getPublicKey(sha256(Uint8Array.of(7))),
    thresholdHash: thresholdHash(new Uint8Array(32).fill(3)),
    network: TEST_NETWORK,
    term,
  });
  const record = stateRecordScript({
    action: 'o',
    unitDebt: 0n,
    vaultSats: sats,
    quotePriceCents: 88_000_00n,
    thresholdCents: 0n,
    quoteStamp: 1_750_000_000,
    nonce: new Uint8Array(16).fill(5),
    expiry: 1_750_000_060,
    vaultPubkey: schnorr.getPublicKey(owner),
    term: { ...term, exitBranch: vault.exitBranch! },
  });
  const opening = signedSpend(
    [{ txid: fundTxid, vout: fundVout, value: funded, key: ALICE }],
    [
      { script: vault.script, amount: sats },
      { script: record, amount: 0n },
      { script: ALICE.script, amount: funded - sats - 1_000n },
    ],
  );
  const txid = await devnet.broadcast(opening.hex);
  await devnet.mine(1);
  return { txid, address: vault.address, scriptHex: hex.encode(vault.script) };
}

afterAll(async () => {
  await served?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const chain = () => `${served.url}/esplora`;

describe('npm run exit', () => {
  it("shows a vault's leaves and when its exit opens, from its id or its address", async () => {
    for (const vault of [vaultTxid, vaultAddress]) {
      const shown = await run(['--chain', chain(), '--vault', vault]);
      expect(shown.code, shown.err).toBe(0);
      expect(shown.out).toContain(`${vaultTxid}:0`);
      expect(shown.out).toContain(`holds          ${VAULT_SATS} sats`);
      expect(shown.out).toContain(`OP_CHECKLOCKTIMEVERIFY`);
      expect(shown.out).toMatch(new RegExp(`exit +opens at block ${exitHeight}, in \\d+ blocks`));
    }
  });

  it('refuses before the exit height, a foreign output, a bad fee and an address of another network', async () => {
    const args = ['--chain', chain(), '--vault', vaultTxid, '--key-file', keyFile];
    const early = await run([...args, '--to', BOB.address, '--broadcast']);
    expect(early.code).toBe(1);
    expect(early.err).toMatch(
      /^The exit opens at block \d+ and the chain is at block \d+: wait \d+ more blocks and try again\.$/,
    );
    expect(await served.devnet.mempoolTxids()).toEqual([]);
    while ((await served.devnet.tip()).height < exitHeight) await served.devnet.mine(1);
    const fee = await run([...args, '--to', BOB.address, '--fee-rate', '0']);
    expect(fee).toMatchObject({
      code: 1,
      err: expect.stringMatching(/fee rate must be a whole number/),
    });
    const mainnet = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
    const other = await run([...args, '--to', mainnet]);
    expect(other).toMatchObject({
      code: 1,
      err: `${mainnet} is a mainnet address, not one of the network the vault is on: enter an address of that network.`,
    });
    const foreign = await run(['--chain', chain(), '--vault', ALICE.address]);
    expect(foreign).toMatchObject({
      code: 1,
      err: expect.stringMatching(/is not a vault output on this chain/),
    });
    const strangerKey = path.join(dir, 'stranger.key');
    fs.writeFileSync(strangerKey, hex.encode(sha256(Uint8Array.of(9))), { mode: 0o600 });
    const stranger = await run([
      '--chain',
      chain(),
      '--vault',
      vaultTxid,
      '--key-file',
      strangerKey,
      '--to',
      BOB.address,
    ]);
    expect(stranger).toMatchObject({
      code: 1,
      err: expect.stringMatching(/not the vault these facts describe/),
    });
    const down = await run(['--chain', 'http://127.0.0.1:9/esplora', '--vault', vaultTxid]);
    expect(down).toMatchObject({
      code: 1,
      err: expect.stringMatching(
        /^The esplora at http:\/\/127\.0\.0\.1:9\/esplora could not be reached .+\.$/,
      ),
    });
  });

  it('refuses a vault that is neither an id nor an address, a vault address of another network, a malformed destination and a fee the vault cannot pay', async () => {
    const malformed = await run(['--chain', chain(), '--vault', 'my-vault']);
    expect(malformed).toMatchObject({
      code: 1,
      err: 'That is neither a vault id (64 hexadecimal characters) nor a Bitcoin address: copy the vault id or the vault address again.',
    });
    const mainnetVault = Address(NETWORK).encode(OutScript.decode(hex.decode(vaultScriptHex)));
    const otherNetwork = await run(['--chain', chain(), '--vault', mainnetVault]);
    expect(otherNetwork).toMatchObject({
      code: 1,
      err: `${mainnetVault} is a mainnet address and this esplora does not take it: type the esplora URL of the network the vault is on.`,
    });
    const unknown = await run(['--chain', chain(), '--vault', 'cd'.repeat(32)]);
    expect(unknown).toMatchObject({
      code: 1,
      err: expect.stringMatching(/^This chain has no transaction/),
    });
    while ((await served.devnet.tip()).height < exitHeight) await served.devnet.mine(1);
    const args = ['--chain', chain(), '--key-file', keyFile];
    const typo = await run([...args, '--vault', vaultTxid, '--to', 'tb1qnotanaddress']);
    expect(typo).toMatchObject({
      code: 1,
      err: 'The address to send the vault to is not a Bitcoin address: copy it again from the wallet that will receive the vault.',
    });
    const dust = await run([
      ...args,
      '--vault',
      smallVaultTxid,
      '--to',
      BOB.address,
      '--fee-rate',
      '200',
    ]);
    expect(dust).toMatchObject({
      code: 1,
      err: expect.stringMatching(
        /^The vault holds 20000 sats and a fee of \d+ sats \(\d+ vB at 200 sat\/vB\) would leave less than 546 sats to send: lower the fee rate\.$/,
      ),
    });
    const missing = path.join(dir, 'no-such.key');
    expect(
      await run([
        ...args.slice(0, 2),
        '--key-file',
        missing,
        '--vault',
        vaultTxid,
        '--to',
        BOB.address,
      ]),
    ).toMatchObject({
      code: 1,
      err: `The key file ${missing} could not be read (ENOENT): check its path and that you may read it.`,
    });
    const letters = await run([
      ...args,
      '--vault',
      vaultTxid,
      '--to',
      BOB.address,
      '--fee-rate',
      'two',
    ]);
    expect(letters).toMatchObject({
      code: 1,
      err: expect.stringMatching(/fee rate must be a whole number/),
    });
    expect(await served.devnet.mempoolTxids()).toEqual([]);
  });

  it('signs and broadcasts the exit once the chain reaches its height: the whole vault less the fee', async () => {
    while ((await served.devnet.tip()).height < exitHeight) await served.devnet.mine(1);
    const sent = await run([
      '--chain',
      chain(),
      '--vault',
      vaultTxid,
      '--key-file',
      keyFile,
      '--to',
      BOB.address,
      '--fee-rate',
      '3',
      '--broadcast',
    ]);
    expect(sent.code, sent.err).toBe(0);
    const txid = /broadcast +([0-9a-f]{64})/.exec(sent.out)![1]!;
    const fee = BigInt(/fee (\d+) sats/.exec(sent.out)![1]!);
    await served.devnet.mine(1);
    const tx = (await served.devnet.getTx(txid))!;
    expect(tx.outputs).toHaveLength(1);
    expect(tx.outputs[0]!.address).toBe(BOB.address);
    expect(BigInt(tx.outputs[0]!.value)).toBe(VAULT_SATS - fee);
    expect(fee).toBe(BigInt(3 * Math.ceil(tx.weight / 4)));
    expect((await served.devnet.txStatus(txid))?.confirmed).toBe(true);
    // The vault is gone: the command says so.
    const after = await run(['--chain', chain(), '--vault', vaultTxid]);
    expect(after).toMatchObject({ code: 1, err: expect.stringMatching(/closed by transaction/) });
  });
});
