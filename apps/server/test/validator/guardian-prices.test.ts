// The open validator checks each network-mode record's price quorum with the signed prices the
// guardians themselves kept: three real `--policy vault` guardian processes co-sign a seeded
// history through the real app (openings, a borrow, a deposit), each keeping the prices of every
// quote it approved in its own directory and serving them at GET /v1/prices/<commitment>. A
// validator given only the devnet's esplora, the published set file and the rune id (its command
// line: the set file gives the treasury, the guardians' URLs and their keys) checks every
// record against those prices; prices altered on every guardian's disk are named as a broken rule
// with the vault and txid, and a record whose prices no guardian keeps stays unverifiable.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hex } from '@scure/base';
import { findStateRecord, parseTransaction } from '@unit/bitcoin';
import { readPublic, verifySet, type GuardianSet } from '@unit/guardian-net';
import { parseValidatorArgs, runValidator, type ValidatorArgs } from '../../src/validator/cli';
import type { RunningApp } from '../support';
import { call, type Harness, type TestWallet } from '../guardian/harness';
import {
  startVaultPolicyWorld,
  type TestGuardianNetwork,
} from '../guardian-network/signer-harness';

/** A guardian's public read: the pinned link's time-out and size cap. */
const READ = { timeoutMs: 5_000, maxBytes: 64 * 1024 };
let network: TestGuardianNetwork;
let unit: RunningApp;
let h: Harness;
let set: GuardianSet;
let alice: TestWallet;
/** each seeded action's txid and the quorum commitment its record carries */
const records: { txid: string; vaultId: string; commitment: string }[] = [];

const keptFiles = (commitment: string) =>
  [1, 2, 3]
    .map((id) => join(network.dir, `guardian-${id}`, 'prices', `${commitment}.json`))
    .filter(existsSync);

/** Signs, mines and keeps `request`'s record; `vaultId`: the vault it acts on (an opening's own). */
async function seeded(method: string, request: unknown, vaultId?: string): Promise<void> {
  const { vault_txid: txid } = await call<{ vault_txid: string }>(unit.guardian, method, request);
  await unit.devnet!.mine(1);
  await unit.guardian.onBlock();
  const { record } = findStateRecord(parseTransaction((await unit.chain.txHex(txid))!))!;
  records.push({
    txid,
    vaultId: vaultId ?? txid,
    commitment: hex.encode(record.quorumCommitment!),
  });
}

beforeAll(async () => {
  ({ network, unit, h } = await startVaultPolicyWorld());
  set = verifySet(JSON.parse(readFileSync(join(network.dir, 'guardian-set.json'), 'utf8')));
  alice = await h.wallet('alice');
  const bob = await h.wallet('bob');
  await seeded('vault.open', (await alice.open(2_000_000n, 50_000n)).request);
  await seeded('vault.open', (await bob.open(3_000_000n, 20_000n)).request);
  // The guardians sign a new price every 500 ms, stamped by the second: a quorum read a second
  // later is another, so the last two records carry another commitment however fast this runs.
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  await unit.oracle.refreshQuorum();
  await seeded('vault.borrow', (await alice.borrow(5_000n)).request, records[0]!.txid);
  await seeded('vault.deposit', (await bob.deposit(400_000n)).request, records[1]!.txid);
}, 240_000);

afterAll(async () => {
  await unit?.stop();
  await network?.close();
});

/** The command line a validator's operator types: the chain, the published set and the rune. */
const args = async (): Promise<ValidatorArgs> => ({
  ...(await parseValidatorArgs([
    ...['--chain', `${unit.url}/esplora`, '--set', join(network.dir, 'guardian-set.json')],
    ...['--rune', unit.devnet!.unitRuneId, '--compare', unit.url],
    ...['--until', String((await unit.chain.tip()).height)],
  ])),
  pollMs: 0,
});

const findingsOf = (lines: string[]) =>
  lines.filter((l) => /^ {2}(broken-rule|unverifiable|unparseable)/.test(l));

describe('the validator checks each record with the prices its guardians kept', () => {
  it('finds every record’s signed prices on the guardians that approved it, and every record passes', async () => {
    expect(records).toHaveLength(4);
    for (const { commitment } of records) {
      // At least t guardians approved each record, so at least t keep its prices, and each
      // guardian serves exactly what its own directory keeps.
      expect(keptFiles(commitment).length).toBeGreaterThanOrEqual(set.t);
      for (const m of set.members) {
        const file = join(network.dir, `guardian-${m.id}`, 'prices', `${commitment}.json`);
        // Over the guardian's own link, pinned to its identity key as the validator reads it.
        const res = await readPublic(m, `/v1/prices/${commitment}`, READ);
        expect(res.status).toBe(existsSync(file) ? 200 : 404);
        if (existsSync(file)) expect(res.body).toEqual(JSON.parse(readFileSync(file, 'utf8')));
      }
    }
    const lines: string[] = [];
    await runValidator(await args(), (line) => lines.push(line));
    expect(findingsOf(lines)).toEqual([]);
    expect(lines.filter((l) => l.includes('app agrees')).length).toBeGreaterThanOrEqual(4);
    expect(lines.some((l) => /DISAGREES/.test(l))).toBe(false);
  }, 120_000);

  it('names a record whose kept prices were altered, and leaves unverifiable one whose prices no guardian keeps', async () => {
    // Records quoted within one quorum's life share its commitment: each is judged alike.
    const opened = records[0]!;
    const altered = records.find((r) => r.commitment !== opened.commitment)!;
    const changed = new Map<string, string>();
    for (const file of keptFiles(altered.commitment)) {
      const text = readFileSync(file, 'utf8');
      changed.set(file, text);
      const kept = JSON.parse(text) as { prices: { priceCents: number }[] };
      kept.prices[0]!.priceCents += 100;
      writeFileSync(file, JSON.stringify(kept));
    }
    for (const file of keptFiles(opened.commitment)) {
      changed.set(file, readFileSync(file, 'utf8'));
      rmSync(file);
    }
    try {
      const lines: string[] = [];
      await runValidator(await args(), (line) => lines.push(line));
      const expected = records.flatMap((r) => {
        const head = ` vault ${r.vaultId} tx ${r.txid}: `;
        if (r.commitment === opened.commitment)
          return [
            `  unverifiable${head}its price quorum ${r.commitment} was not checked: ` +
              set.members.map((m) => `${m.url} keeps none`).join('; '),
          ];
        if (r.commitment !== altered.commitment) return [];
        const servers = set.members.filter((m) =>
          keptFiles(r.commitment).some((f) => f.includes(`guardian-${m.id}/`)),
        );
        return [
          `  broken-rule${head}no guardian serves the signed prices of its price quorum ${r.commitment}; ` +
            servers
              .map(
                (m) => `${m.url}: its prices do not hash to the record's price quorum commitment`,
              )
              .join('; '),
        ];
      });
      expect(expected.length).toBeGreaterThanOrEqual(2);
      expect(findingsOf(lines)).toEqual(expected);
    } finally {
      for (const [file, text] of changed) writeFileSync(file, text);
    }
    // Put back, they pass again; no other guardian file was touched.
    const lines: string[] = [];
    await runValidator(await args(), (line) => lines.push(line));
    expect(findingsOf(lines)).toEqual([]);
    for (const id of [1, 2, 3]) {
      const dir = join(network.dir, `guardian-${id}`, 'prices');
      if (existsSync(dir))
        expect(readdirSync(dir).every((n) => /^[0-9a-f]{64}\.json$/.test(n))).toBe(true);
    }
  }, 120_000);
});
