import { hex } from '@scure/base';
import { mkdtempSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { thresholdHash, thresholdSecret } from '@unit/bitcoin';
import { newIdentity } from '../identity';
import type { GuardianSetBody } from '../guardian-set';
import { oracleListProblem } from '../vault-policy/oracle-hashes';
import { revealRefusal } from './routes';
import {
  ensureOracleSecret,
  oracleHashProblem,
  oracleCount,
  ThresholdOracle,
} from './threshold-oracle';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'oracle-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** n guardians, each with its identity and its own oracle directory. */
function network(n: number, t = 2) {
  const ids = Array.from({ length: n }, () => newIdentity());
  const set: Pick<GuardianSetBody, 'members' | 'version' | 't'> = {
    version: 4,
    t,
    members: ids.map((id, i) => ({
      id: i + 1,
      name: `guardian-${i + 1}`,
      identityKey: id.publicKey,
      url: `http://127.0.0.1:${7400 + i}`,
    })),
  };
  const oracles = ids.map(
    (id, i) =>
      new ThresholdOracle({ dir: tempDir(), guardian: i + 1, identitySecret: () => id.secretKey }),
  );
  return { set, oracles };
}

describe("a guardian's own oracle", () => {
  it('derives the secret as @unit/bitcoin does, from a 0600 file that persists', () => {
    const dir = tempDir();
    const secret = ensureOracleSecret(join(dir, 'oracle.json'));
    expect(statSync(join(dir, 'oracle.json')).mode & 0o777).toBe(0o600);
    expect(hex.encode(ensureOracleSecret(join(dir, 'oracle.json')))).toBe(hex.encode(secret));
    const oracle = new ThresholdOracle({ dir, guardian: 1, identitySecret: () => secret });
    expect(hex.encode(oracle.thresholdSecret(7_965_000, 1_700_000_000))).toBe(
      hex.encode(thresholdSecret(secret, 7_965_000n, 1_700_000_000)),
    );
    expect(hex.encode(oracle.hash(7_965_000, 1_700_000_000))).toBe(
      hex.encode(thresholdHash(thresholdSecret(secret, 7_965_000n, 1_700_000_000))),
    );
  });

  it('refuses an oracle file others can read', () => {
    const file = join(tempDir(), 'oracle.json');
    writeFileSync(file, JSON.stringify({ oracleSecret: '11'.repeat(32) }));
    chmodSync(file, 0o644);
    expect(() => ensureOracleSecret(file)).toThrow(/chmod 600/);
  });

  it('signs statements that name its id, the set version, th and ts', () => {
    const { set, oracles } = network(3);
    const s = oracles[1]!.statement(4, 8_000_000, 1_700_000_000);
    expect(oracleHashProblem(set, s, 8_000_000, 1_700_000_000)).toBeNull();
    expect(oracleHashProblem(set, { ...s, guardian: 1 }, 8_000_000, 1_700_000_000)).toMatch(
      /does not verify/,
    );
    expect(oracleHashProblem(set, { ...s, th: 8_000_001 }, 8_000_001, 1_700_000_000)).toMatch(
      /does not verify/,
    );
    expect(oracleHashProblem(set, s, 8_000_001, 1_700_000_000)).toMatch(/another threshold/);
    expect(oracleHashProblem({ ...set, version: 5 }, s, 8_000_000, 1_700_000_000)).toMatch(
      /set version 4/,
    );
    const other = oracles[0]!.statement(4, 8_000_000, 1_700_000_000);
    expect(oracleHashProblem(set, { ...s, hash: other.hash }, 8_000_000, 1_700_000_000)).toMatch(
      /does not verify/,
    );
  });

  it('signs a (set version, th, ts) once, and keeps at most its cache size of statements', () => {
    const id = newIdentity();
    let keyReads = 0; // the identity key is read once per signature
    const oracle = new ThresholdOracle({
      dir: tempDir(),
      guardian: 1,
      identitySecret: () => (keyReads++, id.secretKey),
      cacheSize: 16,
    });
    const first = oracle.statement(4, 8_000_000, 1_700_000_000);
    for (let i = 0; i < 50; i++)
      expect(oracle.statement(4, 8_000_000, 1_700_000_000)).toEqual(first);
    expect([keyReads, oracle.signed]).toEqual([1, 1]);
    // Another set version, threshold or stamp is another statement.
    oracle.statement(5, 8_000_000, 1_700_000_000);
    oracle.statement(4, 8_000_001, 1_700_000_000);
    oracle.statement(4, 8_000_000, 1_700_000_001);
    expect(oracle.signed).toBe(4);
    // Bounded: past the cap the oldest is forgotten (signed again when asked), the newest kept.
    for (let ts = 0; ts < 16; ts++) oracle.statement(4, 1, ts);
    const signed = oracle.signed;
    oracle.statement(4, 1, 15);
    expect(oracle.signed).toBe(signed);
    oracle.statement(4, 8_000_000, 1_700_000_000);
    expect(oracle.signed).toBe(signed + 1);
    expect(keyReads).toBe(oracle.signed);
  });

  it('reveals only at or under its own fresh price, never for th 0', () => {
    const fresh = (priceCents: number) => ({
      fresh: true as const,
      price: { guardian: 1, setVersion: 1, priceCents, time: 1, sig: '' },
    });
    expect(revealRefusal(8_000_000, fresh(8_000_000))).toBeNull();
    expect(revealRefusal(8_000_000, fresh(7_000_000))).toBeNull();
    expect(revealRefusal(8_000_000, fresh(8_000_001))).toMatch(/above the threshold/);
    expect(revealRefusal(0, fresh(1))).toMatch(/never/);
    expect(revealRefusal(8_000_000, null)).toMatch(/no price feeds/);
    expect(revealRefusal(8_000_000, { fresh: false, reason: 'stale' })).toMatch(/no fresh price/);
  });
});

describe("the vault's oracle list, as each guardian checks it", () => {
  const th = 8_000_000;
  const ts = 1_700_000_000;

  it('is min(t, 3) to 3 guardians', () => {
    expect(oracleCount(network(3, 2).set)).toEqual({ min: 2, max: 3 });
    expect(oracleCount(network(7, 5).set)).toEqual({ min: 3, max: 3 });
  });

  it('takes 2 or 3 signed hashes in id order, its own recomputed; refuses every other list', () => {
    const { set, oracles } = network(4);
    const statements = oracles.slice(0, 3).map((o) => o.statement(4, th, ts));
    const hashes = statements.map((s) => hex.decode(s.hash));
    const env = { set, oracle: oracles[1]! };
    expect(oracleListProblem(env, th, ts, hashes, statements)).toBeNull();
    // Guardian 2 was down at quote time: guardians 1 and 3 (guardian 2 checks it too: not listed).
    const pair = [statements[0]!, statements[2]!];
    expect(oracleListProblem(env, th, ts, [hashes[0]!, hashes[2]!], pair)).toBeNull();
    // One, four, out of order, a hash not from the set, a forged statement, another (th, ts).
    expect(oracleListProblem(env, th, ts, hashes.slice(0, 1), statements.slice(0, 1))).toMatch(
      /2 to 3 guardians' threshold hashes, not 1/,
    );
    const all = oracles.map((o) => o.statement(4, th, ts));
    expect(
      oracleListProblem(
        env,
        th,
        ts,
        all.map((s) => hex.decode(s.hash)),
        all,
      ),
    ).toMatch(/not 4/);
    const swapped = [statements[1]!, statements[0]!, statements[2]!];
    expect(
      oracleListProblem(
        env,
        th,
        ts,
        swapped.map((s) => hex.decode(s.hash)),
        swapped,
      ),
    ).toMatch(/out of id order/);
    const twice = [statements[0]!, statements[0]!];
    expect(
      oracleListProblem(
        env,
        th,
        ts,
        twice.map((s) => hex.decode(s.hash)),
        twice,
      ),
    ).toMatch(/out of id order/);
    const foreign = [...hashes];
    foreign[2] = new Uint8Array(20).fill(3);
    expect(oracleListProblem(env, th, ts, foreign, statements)).toMatch(/not the one guardian-3/);
    const fourth = [...statements];
    fourth[2] = { ...oracles[3]!.statement(4, th, ts), guardian: 3 };
    const fourthHashes = fourth.map((s) => hex.decode(s.hash));
    expect(oracleListProblem(env, th, ts, fourthHashes, fourth)).toMatch(/does not verify/);
    expect(oracleListProblem(env, th + 1, ts, hashes, statements)).toMatch(/another threshold/);
    expect(oracleListProblem(env, th, ts, hashes, [statements[0], 'x', statements[2]])).toMatch(
      /no guardian's statement/,
    );
    expect(oracleListProblem(env, th, ts, hashes, statements.slice(0, 2))).toMatch(
      /come with 2 statements/,
    );
  });

  it("refuses a list whose own entry is not this guardian's hash, even when signed", () => {
    const { set, oracles } = network(3);
    const statements = oracles.map((o) => o.statement(4, th, ts));
    const hashes = statements.map((s) => hex.decode(s.hash));
    // Guardian 2's directory was swapped for another secret: its own hash differs from its statement.
    const impostor = new ThresholdOracle({
      dir: tempDir(),
      guardian: 2,
      identitySecret: () => new Uint8Array(32).fill(1),
    });
    expect(oracleListProblem({ set, oracle: impostor }, th, ts, hashes, statements)).toMatch(
      /not this guardian's own/,
    );
  });
});
