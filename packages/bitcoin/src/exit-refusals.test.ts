// Every input the owner's exit refuses before anything is signed (docs/protocol.md, "Leaving without
// the guardians"), each with a full sentence that says what to do: a vault id or address that is
// neither, an address of another network, an esplora that does not answer in time or is not one, a
// vault before its exit height, a fee rate out of range or one the vault can't pay, a destination
// that is no address or one of another network, a key that is not the vault's. The esplora is a
// fake at fetch, the edge of this unit test (the command's test runs the real devnet).
import { describe, expect, it, vi } from 'vitest';
import { NETWORK, p2wpkh, TEST_NETWORK } from '@scure/btc-signer';
import { exitVault } from '../test/exit-fixture';
import { fakeTxid, guardianKey, strangerKey, testKey, userKey } from '../test/testKeys';
import { EsploraError, ExitEsplora, readVaultExit, type FetchLike } from './exit-chain';
import { describeVaultExit } from './exit-describe';
import { ExitError, planExit, type ExitRequest } from './exit-spend';
import { thresholdHash, vaultOutput } from './vault-script';

const TERM = { settleHeight: 1_040, exitHeight: 1_060 };
const TXID = fakeTxid(1);
const { vault, tx: vaultTx } = exitVault(
  {
    vaultPubkey: userKey.xOnly,
    guardPubkey: guardianKey.xOnly,
    secret: new Uint8Array(32).fill(3),
  },
  TERM,
  TXID,
);
const PAY_TO = p2wpkh(testKey('recipient').compressed, TEST_NETWORK).address!;
const MAINNET_TO = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';

const request = (over: Partial<ExitRequest> = {}): ExitRequest => ({
  vaultPubkey: userKey.xOnly,
  exitHeight: TERM.exitHeight,
  exitBranch: vault.exitBranch!,
  utxo: { txid: TXID, vout: 0, script: vault.script, amount: 90_000n },
  toAddress: PAY_TO,
  feeRate: 2,
  tipHeight: TERM.exitHeight,
  network: TEST_NETWORK,
  ...over,
});

function refusal(fn: () => unknown): ExitError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ExitError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

const sentence = /^[A-Z0-9].*: .+\.$/;

describe('planExit refuses before anything is signed', () => {
  it('a vault before its exit height, with the blocks left', () => {
    const e = refusal(() => planExit(request({ tipHeight: TERM.exitHeight - 3 })));
    expect(e.reason).toBe('before-term');
    expect(e.message).toBe(
      'The exit opens at block 1060 and the chain is at block 1057: wait 3 more blocks and try again.',
    );
  });

  it('a fee rate that is not a whole number from 1 to 1,000 sat/vB', () => {
    for (const feeRate of [0, -1, 2.5, Number.NaN, 1_001]) {
      const e = refusal(() => planExit(request({ feeRate })));
      expect(e.reason).toBe('bad-fee');
      expect(e.message).toMatch(sentence);
    }
  });

  it('a fee the vault cannot pay and still leave a spendable output, with the figures', () => {
    const small = { txid: TXID, vout: 0, script: vault.script, amount: 20_000n };
    const e = refusal(() => planExit(request({ utxo: small, feeRate: 200 })));
    expect(e.reason).toBe('dust');
    expect(e.message).toMatch(
      /^The vault holds 20000 sats and a fee of \d+ sats \(\d+ vB at 200 sat\/vB\) would leave less than 546 sats to send: lower the fee rate\.$/,
    );
    // The same vault pays a fee it can afford.
    expect(planExit(request({ utxo: small, feeRate: 2 })).sendSats).toBeGreaterThan(19_000n);
  });

  it('a destination of another network, and one that is no address at all', () => {
    const other = refusal(() => planExit(request({ toAddress: MAINNET_TO })));
    expect(other.reason).toBe('bad-address');
    expect(other.message).toBe(
      `${MAINNET_TO} is a mainnet address, not one of the network the vault is on: enter an address of that network.`,
    );
    for (const toAddress of ['tb1qnotanaddress', '', 'bc1q' + 'x'.repeat(38)]) {
      const bad = refusal(() => planExit(request({ toAddress })));
      expect(bad.reason).toBe('bad-address');
      expect(bad.message).toBe(
        'The address to send the vault to is not a Bitcoin address: copy it again from the wallet that will receive the vault.',
      );
    }
  });

  it('a key, height or branch that is not the vault on chain (a foreign script)', () => {
    for (const over of [
      { vaultPubkey: strangerKey.xOnly },
      { exitHeight: TERM.exitHeight + 1, tipHeight: TERM.exitHeight + 1 },
      { exitBranch: new Uint8Array(32).fill(9) },
      { utxo: { txid: TXID, vout: 0, script: p2wpkh(userKey.compressed).script, amount: 9n } },
    ]) {
      const e = refusal(() => planExit(request(over)));
      expect(e.reason).toBe('foreign-script');
      expect(e.message).toMatch(sentence);
    }
  });
});

/** A fake esplora: a path's answer, or a status and text; every URL asked is kept. */
function esplora(answers: Record<string, unknown>) {
  const asked: string[] = [];
  const fetchImpl = vi.fn(async (url: string) => {
    asked.push(url);
    const path = new URL(url).pathname.replace(/^\/api/, '');
    const body = answers[path];
    if (body === undefined) return { ok: false, status: 404, text: async () => 'Not found' };
    if (body instanceof Response)
      return { ok: body.ok, status: body.status, text: () => body.text() };
    return { ok: true, status: 200, text: async () => JSON.stringify(body) };
  });
  return { chain: new ExitEsplora('http://chain.test/api', fetchImpl as FetchLike, 200), asked };
}

describe('reading the vault refuses before anything is signed', () => {
  it('a vault id or address that is neither, without asking the esplora', async () => {
    for (const input of [
      '',
      'hello',
      'ab'.repeat(31),
      `${vault.address}x`,
      '0x' + 'ab'.repeat(32),
    ]) {
      const { chain, asked } = esplora({});
      await expect(readVaultExit(chain, input)).rejects.toThrow(
        'That is neither a vault id (64 hexadecimal characters) nor a Bitcoin address: copy the vault id or the vault address again.',
      );
      expect(asked).toEqual([]);
    }
  });

  it('a vault address of another network than the esplora', async () => {
    const mainnetVault = vaultOutput({
      vaultPubkey: userKey.xOnly,
      guardPubkey: guardianKey.xOnly,
      thresholdHash: thresholdHash(new Uint8Array(32).fill(3)),
      network: NETWORK,
      term: TERM,
    }).address;
    const { chain } = esplora({
      [`/address/${mainnetVault}/utxo`]: new Response('Invalid Bitcoin address', { status: 400 }),
    });
    await expect(readVaultExit(chain, mainnetVault)).rejects.toThrow(
      `${mainnetVault} is a mainnet address and this esplora does not take it: type the esplora URL of the network the vault is on.`,
    );
  });

  it('an address or a transaction that is no vault (a foreign script), and an unknown vault id', async () => {
    const stranger = p2wpkh(strangerKey.compressed, TEST_NETWORK).address!;
    const plain = {
      txid: fakeTxid(2),
      vout: [{ scriptpubkey: '0014' + '11'.repeat(20), value: 5 }],
    };
    const { chain } = esplora({
      [`/address/${stranger}/utxo`]: [{ txid: fakeTxid(2), vout: 0 }],
      [`/tx/${fakeTxid(2)}`]: plain,
    });
    await expect(readVaultExit(chain, stranger)).rejects.toThrow(
      `Address ${stranger} is not a vault output on this chain: check the vault id or address and the chain URL.`,
    );
    await expect(readVaultExit(chain, fakeTxid(2))).rejects.toThrow(/is not a vault output/);
    await expect(readVaultExit(chain, fakeTxid(3))).rejects.toThrow(
      `This chain has no transaction ${fakeTxid(3)}: check the vault id, and that the esplora is one of the network the vault is on.`,
    );
  });

  it('an esplora that does not answer in time, cannot be reached, or is not an esplora', async () => {
    const silent = new ExitEsplora(
      'http://chain.test/api',
      (_url, init) =>
        new Promise((_resolve, reject) =>
          init?.signal?.addEventListener('abort', () => reject(new Error('aborted'))),
        ),
      50,
    );
    await expect(readVaultExit(silent, TXID)).rejects.toThrow(
      "The esplora at http://chain.test/api did not answer within 50 ms: check the URL and your connection, or type another esplora's URL.",
    );
    const down = new ExitEsplora('http://chain.test/api', async () => {
      throw new TypeError('fetch failed');
    });
    await expect(readVaultExit(down, TXID)).rejects.toThrow(
      /^The esplora at http:\/\/chain\.test\/api could not be reached \(fetch failed\): check the URL, .+\.$/,
    );
    const { chain } = esplora({ [`/tx/${TXID}`]: new Response('<html>shop</html>') });
    await expect(readVaultExit(chain, TXID)).rejects.toThrow(
      /answered \/tx\/[0-9a-f]{64} with something that is not esplora's JSON: check that the URL is an esplora API \(on mempool\.space it ends in \/api\)\.$/,
    );
    expect(() => new ExitEsplora('mempool.space/api')).toThrow(/is not a URL/);
    expect(() => new ExitEsplora('ftp://chain.test')).toThrow(/must start with http/);
  });

  it('reads a vault and says when its exit opens, with a date at 10 minutes a block', async () => {
    const { chain } = esplora({
      [`/address/${vault.address}/utxo`]: [{ txid: TXID, vout: 0 }],
      [`/tx/${TXID}`]: vaultTx,
      '/blocks/tip/height': 1_054,
    });
    const facts = await readVaultExit(chain, vault.address);
    const lines = describeVaultExit(facts, Date.UTC(2026, 0, 1, 12, 0));
    expect(lines.at(-1)).toBe(
      'exit           opens at block 1060, in 6 blocks (around 2026-01-01 13:00 UTC at 10 minutes a block)',
    );
  });

  it('a broadcast the esplora refuses says that nothing was spent', async () => {
    const { chain } = esplora({
      '/tx': new Response('sendrawtransaction RPC error: {"code":-26,"message":"non-final"}', {
        status: 400,
      }),
    });
    const error = await chain.broadcast('00').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EsploraError);
    expect((error as Error).message).toBe(
      'The esplora refused the exit (400): sendrawtransaction RPC error: {"code":-26,"message":"non-final"}. Nothing was spent: read the vault again, and if its exit is open, build it again.',
    );
  });
});
