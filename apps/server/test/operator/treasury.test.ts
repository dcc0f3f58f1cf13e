// The operator's treasury commands on the devnet playing the network: a signet
// server's configuration, its chain services on a devnet instance, every transaction real and
// read back from that network's esplora and runes routes.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex } from '@noble/hashes/utils.js';
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { encodeRunestone as libEncode, tryDecodeRunestone } from '@magiceden-oss/runestone-lib';
import {
  classifyCommitmentLeaf,
  runeCommitment,
  RUNE_COMMIT_CONFIRMATIONS,
  transactionOutputs,
} from '@unit/bitcoin';
import { UNIT_POSTAGE_SATS, type UnitOutputDto, type UtxoDto } from '@unit/protocol';
import { runOperator } from '../../src/operator/cli';
import { etchedRuneIdFromOrd } from '../../src/operator/ord-rune';
import { OrdIndexer } from '../../src/chain/ord';
import { startTestApp, type RunningApp } from '../support';
import { openGuardian } from '../guardian-client';
import { signetEnvFor } from './network';

const REPO = path.resolve(import.meta.dirname, '../../../..');

let network: RunningApp;
let env: Record<string, string>;
let dataDir: string;
let treasury: string;

async function json<T>(url: string): Promise<T> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return (await response.json()) as T;
}

const unitOutputs = () =>
  json<UnitOutputDto[]>(`${network.url}/runes/address/${treasury}/outputs`).then((list) =>
    list.filter((o) => !o.spent),
  );

/** Runs one operator command in this process, collecting what it says. */
async function operator(args: string[], extra: Record<string, string> = {}): Promise<string[]> {
  const lines: string[] = [];
  await runOperator(args, { ...env, ...extra }, (line) => lines.push(line), 50);
  return lines;
}

/** unit.reserve over the server's /guardian socket; the reservation lives while the socket does. */
async function reserveOn(server: RunningApp) {
  const client = await openGuardian(server.url);
  const { treasury_utxo } = await client.call('unit.reserve', {
    vault_pubkey: '22'.repeat(32),
    vault_action: 'open',
    unit_amount: 5_000,
  });
  // An opening's reservation always names a treasury output.
  const utxo = treasury_utxo!;
  return {
    utxo,
    /** Closes the socket and waits until the server has released what it held. */
    release: async () => {
      client.close();
      for (let i = 0; i < 200; i++) {
        const live = await server.store.db
          .selectFrom('reservations')
          .select('reservation_id')
          .where('status', '=', 'active')
          .execute();
        if (live.length === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error('the reservation was never released');
    },
  };
}

beforeAll(async () => {
  network = await startTestApp(
    {},
    { devnetWriteLimitPerMinute: 10_000, writeLimitPerMinute: 10_000 },
  );
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-operator-'));
  env = {
    ...signetEnvFor(network.url, {
      unitRuneId: network.devnet!.unitRuneId,
      // The network's genesis paid the treasury of this guardian key: the operator's treasury.
      guardianKey: bytesToHex(network.keys.guardianSecretKey),
    }),
    DATA_DIR: dataDir,
  };
  const lines = await operator(['treasury']);
  treasury = /^treasury address\s+(\S+)/.exec(lines[0]!)![1]!;
  // BTC for the fees, as an operator sends it to the printed address.
  await network.devnet!.fund(treasury, 5_000_000n);
  await network.devnet!.mine(1);
});

afterAll(async () => {
  await network.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('npm run operator -- treasury', () => {
  it('prints the address, BTC, UNIT, each output with its postage, and live reservations', async () => {
    const before = await unitOutputs();
    // A signet server on the same database and keys, and a user reserving treasury UNIT on it.
    const server = await startTestApp({ ...env }, {});
    try {
      const reservation = await reserveOn(server);
      const reserved = reservation.utxo;
      const lines = await operator(['treasury']);
      await reservation.release();
      expect(lines[0]).toBe(`treasury address  ${treasury}`);
      expect(lines[1]).toBe(`UNIT rune         ${network.devnet!.unitRuneId}`);
      const total = before.reduce((sum, o) => sum + BigInt(o.unit_amount), 0n);
      expect(lines).toContain(
        `UNIT              ${total / 100n}.${String(total % 100n).padStart(2, '0')} in ${before.length} outputs`,
      );
      expect(lines[2]).toMatch(/^BTC\s+\d+ sats \(5000000 for fees, the rest is UNIT postage\)$/);
      for (const o of before)
        expect(
          lines.some(
            (l) =>
              l.startsWith(`  ${o.txid}:${o.vout}  `) && l.includes(`postage ${o.btc_amount} sats`),
          ),
        ).toBe(true);
      expect(lines.find((l) => l.startsWith(`  ${reserved.txid}:${reserved.vout}  `))).toMatch(
        /1 reserved$/,
      );
      expect(lines).toContain('reservations      1 live');
      expect(
        lines.some((l) =>
          l.startsWith(`  open 50.00 UNIT on ${reserved.txid}:${reserved.vout} until `),
        ),
      ).toBe(true);
    } finally {
      await server.stop();
    }
  });

  it('runs as the root package script, refusing an incomplete configuration with the list', async () => {
    const run = (extra: Record<string, string>) =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn('npm', ['run', '--silent', 'operator', '--', 'treasury'], {
          cwd: REPO,
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...extra },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout.on('data', (c: Buffer) => (out += String(c)));
        child.stderr.on('data', (c: Buffer) => (out += String(c)));
        child.once('exit', (code) => resolve({ code, out }));
      });
    const ok = await run(env);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain(`treasury address  ${treasury}`);
    const { GUARDIAN_KEY: _key, ...noKey } = env;
    const refused = await run(noKey);
    expect(refused.code).toBe(2);
    expect(refused.out).toContain('Invalid configuration:\n  GUARDIAN_KEY is required on signet');
  });
});

describe('npm run operator -- treasury, before a rune and through ord', () => {
  it('prints the address and BTC before UNIT_RUNE_ID is set, and the same UNIT read through ord', async () => {
    const before = await operator(['treasury'], { UNIT_RUNE_ID: '' });
    expect(before[0]).toBe(`treasury address  ${treasury}`);
    expect(before[1]).toBe('UNIT rune         (none configured: etch one or set UNIT_RUNE_ID)');
    expect(before).toContain('UNIT              0.00 in 0 outputs');
    // RUNES_API=ord: the operator reads runes as the server does, from ord's JSON API.
    const unitLine = (lines: string[]) => lines.find((l) => l.startsWith('UNIT  '));
    const viaOrd = await operator(['treasury'], {
      RUNES_API: 'ord',
      RUNES_URL: `${network.url}/ord`,
    });
    expect(unitLine(viaOrd)).toBe(unitLine(await operator(['treasury'])));
    expect(unitLine(viaOrd)).not.toBe('UNIT              0.00 in 0 outputs');
  });
});

describe('npm run operator -- split', () => {
  it('splits the free UNIT into n outputs of the treasury postage, UNIT conserved on chain', async () => {
    const before = await unitOutputs();
    const total = before.reduce((sum, o) => sum + o.unit_amount, 0);
    const server = await startTestApp({ ...env }, {});
    let lines: string[];
    let reserved: { txid: string; vout: number };
    try {
      const reservation = await reserveOn(server);
      reserved = reservation.utxo;
      lines = await operator(['split', '13', '--fee-rate', '2']);
      await reservation.release();
    } finally {
      await server.stop();
    }
    const txid = /^split ([0-9a-f]{64}): 13 outputs/.exec(lines.at(-1)!)![1]!;
    // The output a user's live reservation names is left as it was.
    const leftAlone = lines
      .filter((l) => l.startsWith('left alone (in use): '))
      .map((l) => l.slice('left alone (in use): '.length));
    expect(leftAlone).toEqual([`${reserved.txid}:${reserved.vout}`]);
    await network.devnet!.mine(1);
    const after = await unitOutputs();
    const split = after.filter((o) => o.txid === txid);
    expect(split).toHaveLength(13);
    expect(split.every((o) => o.btc_amount === UNIT_POSTAGE_SATS)).toBe(true);
    expect(after.filter((o) => o.txid !== txid).map((o) => `${o.txid}:${o.vout}`)).toEqual(
      leftAlone,
    );
    // UNIT conserved to the hundredth, in equal shares (the first also takes what does not divide).
    expect(after.reduce((sum, o) => sum + o.unit_amount, 0)).toBe(total);
    const [first, ...rest] = [...split].sort((a, b) => a.vout - b.vout).map((o) => o.unit_amount);
    const share = Math.floor((first! + rest.reduce((sum, a) => sum + a, 0)) / 13);
    expect(rest.every((amount) => amount === share)).toBe(true);
    expect(first! - share).toBeLessThan(13);
    // The BTC change came back to the treasury with no UNIT on it.
    const plain = await json<UtxoDto[]>(`${network.url}/ordinals/address/${treasury}/utxos`);
    expect(plain.some((o) => o.txid === txid)).toBe(true);
    expect(
      (await json<{ status: { confirmed: boolean } }>(`${network.url}/esplora/tx/${txid}`)).status
        .confirmed,
    ).toBe(true);
    await expect(operator(['split', '0'])).rejects.toThrow(/from 1 to 250/);
  });
});

describe('npm run operator -- etch, then use', () => {
  it('commits, waits six confirmations, reveals the etching signed by the treasury key', async () => {
    const said: string[] = [];
    const etching = runOperator(
      [
        'etch',
        '--name',
        'UNIT•OPERATOR•RUNE',
        '--supply',
        '500000',
        '--outputs',
        '4',
        '--fee-rate',
        '2',
      ],
      { ...env, UNIT_RUNE_ID: '' },
      (line) => said.push(line),
      50,
    );
    const waitFor = async (pattern: RegExp) => {
      for (let i = 0; i < 400; i++) {
        const line = said.find((l) => pattern.test(l));
        if (line) return line;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`never said ${pattern}: ${said.join('\n')}`);
    };
    const commitTxid = /^commit ([0-9a-f]{64}) sent/.exec(await waitFor(/^commit /))![1]!;
    // One block short of six confirmations: no reveal yet.
    await network.devnet!.mine(RUNE_COMMIT_CONFIRMATIONS - 1);
    await waitFor(new RegExp(`${RUNE_COMMIT_CONFIRMATIONS - 1} of ${RUNE_COMMIT_CONFIRMATIONS}`));
    expect(said.some((l) => l.startsWith('reveal '))).toBe(false);
    await network.devnet!.mine(1);
    const revealTxid = /^reveal ([0-9a-f]{64}) sent/.exec(await waitFor(/^reveal /))![1]!;
    await network.devnet!.mine(1);
    await etching;
    const runeId = /as (\d+:\d+) \(reveal/.exec(said.find((l) => l.startsWith('etched '))!)![1]!;

    // Read back from the network: the reveal is mined at runeId, six or more blocks after the commit.
    const commitStatus = await json<{ block_height: number }>(
      `${network.url}/esplora/tx/${commitTxid}/status`,
    );
    const revealStatus = await json<{ block_height: number; block_hash: string }>(
      `${network.url}/esplora/tx/${revealTxid}/status`,
    );
    expect(revealStatus.block_height - commitStatus.block_height + 1).toBeGreaterThan(
      RUNE_COMMIT_CONFIRMATIONS,
    );
    const txids = await json<string[]>(
      `${network.url}/esplora/block/${revealStatus.block_hash}/txids`,
    );
    expect(runeId).toBe(`${revealStatus.block_height}:${txids.indexOf(revealTxid)}`);

    const reveal = Transaction.fromRaw(
      hex.decode(await (await fetch(`${network.url}/esplora/tx/${revealTxid}/hex`)).text()),
      { allowUnknownOutputs: true },
    );
    // The runestone, as another implementation reads it: the etching and its premine split.
    const outputs = transactionOutputs(reveal);
    const artifact = tryDecodeRunestone({
      vout: outputs.map((o) => ({ scriptPubKey: { hex: hex.encode(o.script) } })),
    });
    expect(artifact && 'etching' in artifact && artifact.etching).toMatchObject({
      runeName: 'UNIT•OPERATOR•RUNE',
      divisibility: 2,
      premine: 500_000n,
      symbol: '¤',
    });
    expect(outputs.slice(0, 4).every((o) => o.amount === BigInt(UNIT_POSTAGE_SATS))).toBe(true);
    // The commitment: the name as ord encodes it, pushed in the spent leaf's tapscript.
    const witness = reveal.getInput(0).finalScriptWitness!;
    const leaf = classifyCommitmentLeaf(witness[1]!);
    const { etchingCommitment } = libEncode({ etching: { runeName: 'UNIT•OPERATOR•RUNE' } });
    expect(hex.encode(leaf!.commitment)).toBe(etchingCommitment!.toString('hex'));
    expect(hex.encode(runeCommitment('UNITOPERATORRUNE'))).toBe(etchingCommitment!.toString('hex'));
    // The commit output spent is Taproot, and it was the commit's.
    expect(hex.encode(reveal.getInput(0).txid!)).toBe(commitTxid);

    // `use` reads the etching back from its block.
    const used = await operator(['use', runeId]);
    expect(used).toEqual([
      `${runeId} is UNIT•OPERATOR•RUNE, divisibility 2, premine 500000`,
      `set UNIT_RUNE_ID=${runeId} in the server's environment`,
    ]);
    // Run again, the etching is done: it answers the same rune, sending nothing.
    const again = await operator(['etch'], { UNIT_RUNE_ID: '' });
    expect(again.at(-2)).toBe(`etched UNIT•OPERATOR•RUNE as ${runeId} (reveal ${revealTxid})`);
  });

  it("with RUNES_API=ord, learns the new rune's id from ord's /rune/<name> JSON", async () => {
    const ordUrl = `${network.url}/ord`;
    const ordEnv = {
      ...env,
      UNIT_RUNE_ID: '',
      RUNES_API: 'ord',
      RUNES_URL: ordUrl,
      ORDINALS_URL: ordUrl,
      // A fresh etching: the other test's plan stays in its own DATA_DIR.
      DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'unit-operator-ord-')),
    };
    const said: string[] = [];
    const etching = runOperator(
      [
        'etch',
        ...['--name', 'UNIT•ORD•SHAPED•RUNE', '--supply', '300000', '--outputs', '2'],
        ...['--fee-rate', '2'],
      ],
      ordEnv,
      (line) => said.push(line),
      50,
    );
    for (let i = 0; i < 400 && !said.some((l) => l.startsWith('commit ')); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    await network.devnet!.mine(RUNE_COMMIT_CONFIRMATIONS);
    for (let i = 0; i < 400 && !said.some((l) => l.startsWith('reveal ')); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const revealTxid = /^reveal ([0-9a-f]{64}) sent/.exec(
      said.find((l) => l.startsWith('reveal '))!,
    )![1]!;
    await network.devnet!.mine(1);
    await etching;
    const runeId = /as (\d+:\d+) \(reveal/.exec(said.find((l) => l.startsWith('etched '))!)![1]!;

    // ord's own answer, in ord's shape, names that id and the reveal as its etching...
    const answer = await fetch(`${ordUrl}/rune/UNIT%E2%80%A2ORD%E2%80%A2SHAPED%E2%80%A2RUNE`, {
      headers: { accept: 'application/json' },
    });
    const rune = (await answer.json()) as { id: string; entry: Record<string, unknown> };
    expect(rune).toMatchObject({
      id: runeId,
      entry: { etching: revealTxid, spaced_rune: 'UNIT•ORD•SHAPED•RUNE', divisibility: 2 },
    });
    expect(rune.entry.premine).toBe(300_000);
    // ...and it is the reveal's place in its block, as esplora shows it.
    const status = await json<{ block_height: number; block_hash: string }>(
      `${network.url}/esplora/tx/${revealTxid}/status`,
    );
    const txids = await json<string[]>(`${network.url}/esplora/block/${status.block_hash}/txids`);
    expect(runeId).toBe(`${status.block_height}:${txids.indexOf(revealTxid)}`);
    // ord naming that rune as another transaction's etching is refused, not taken.
    const ord = new OrdIndexer({ url: ordUrl, unitRuneId: runeId });
    const quiet = { say: () => undefined, sleep: () => Promise.resolve(), pollMs: 0 };
    await expect(
      etchedRuneIdFromOrd(quiet, ord, 'UNIT•ORD•SHAPED•RUNE', '00'.repeat(32)),
    ).rejects.toThrow(/etched by [0-9a-f]{64}, not the reveal/);
  });

  it("takes the network's own UNIT etching, and refuses an id that etches nothing or is not there", async () => {
    // Before UNIT_RUNE_ID is set, as README step 4 runs it.
    expect((await operator(['use', '1:1'], { UNIT_RUNE_ID: '' }))[0]).toBe(
      '1:1 is UNIT•RUNE•TOKEN, divisibility 2, premine 100000000000',
    );
    await expect(operator(['use', '2:0'])).rejects.toThrow(/etches no rune/);
    await expect(operator(['use', '999999:0'])).rejects.toThrow(/no block at height 999999/);
  });
});
