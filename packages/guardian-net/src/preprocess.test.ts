// A guardian's preprocessed nonces over its own SQLite store: each commitment signs once, over the
// list and message it is asked with, only for the coordinator it was issued to; a refusal burns it;
// and a process that dies (its memory gone, its store left as a kill -9 leaves it) never signs with
// any commitment it handed out before, since the next start marks every issued row abandoned.
import { afterEach, describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import { randomBytes } from '@noble/hashes/utils.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bytesToHex, parseHex, type Json } from './canonical';
import { groupCommitmentX, signatureOf } from './aggregate';
import { frostIdentifier, publicFromJson, type CommitmentsJson } from './frost';
import { newIdentity } from './identity';
import { MAX_PREPROCESSED, preprocessedAttempt, preprocessedRow } from './preprocess';
import { SigningRounds, type Decision } from './signing-rounds';
import { GuardianStore } from './store';
import { dealSet, identities } from '../test/guardian-dir';

const coordinator = newIdentity();
const other = newIdentity();
const dealt = dealSet(1, 2, identities(3), coordinator);
const { set } = dealt;
const pub = publicFromJson(set.frost!, set.t, set.n);
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function storePath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'guardian-pre-'));
  dirs.push(dir);
  return join(dir, 'store.sqlite');
}

/** Guardian `id`'s signing rounds over the store at `path`, deciding by `decide`. */
function guardian(
  id: number,
  path = storePath(),
  decide: () => Decision = () => ({ approve: true }),
) {
  const store = new GuardianStore(path);
  const share = dealt.secrets[frostIdentifier(id)]!;
  const rounds = new SigningRounds({
    store,
    ready: () => ({ set, share, pub }),
    validate: decide,
    log: () => {},
  });
  return { rounds, store, path };
}

type G = ReturnType<typeof guardian>;

async function batch(g: G, count: number, owner = coordinator.publicKey) {
  const r = (await g.rounds.preprocess(owner, { count })) as {
    epoch: string;
    commitments: CommitmentsJson[];
  };
  return r;
}

function once(
  g: G,
  sessionId: string,
  message: Uint8Array,
  list: CommitmentsJson[],
  from = coordinator.publicKey,
) {
  return g.rounds.once(from, {
    sessionId,
    message: bytesToHex(message),
    context: {},
    commitments: list as unknown as Json[],
  }) as Promise<{ approved: boolean; reason: string | null; share?: string; rx?: string }>;
}

const session = () => bytesToHex(randomBytes(32));
const code = (e: unknown) => (e as { code?: string }).code;

describe('preprocessed nonces (one-round signing)', () => {
  it('two guardians each sign once over a list of their preprocessed commitments: a valid signature', async () => {
    const [g1, g2] = [guardian(1), guardian(2)];
    const [b1, b2] = [await batch(g1, 4), await batch(g2, 4)];
    expect(b1.commitments).toHaveLength(4);
    const list = [b1.commitments[0]!, b2.commitments[0]!];
    const message = randomBytes(32);
    const id = session();
    const answers = await Promise.all([once(g1, id, message, list), once(g2, id, message, list)]);
    expect(answers.map((a) => a.approved)).toEqual([true, true]);
    const parsed = list.map((c) => ({ identifier: c.identifier, hiding: parseHex(c.hiding, 33), binding: parseHex(c.binding, 33) })); // prettier-ignore
    const rx = groupCommitmentX(set.groupKey!, parsed, message);
    const signature = signatureOf(
      rx,
      answers.map((a) => parseHex(a.share, 32)),
    );
    expect(schnorr.verify(signature, message, parseHex(set.groupKey, 32))).toBe(true);
    // Recorded spent in the store, filed under the session it signed, and gone: the same list
    // again (a replay) is refused.
    const hiding = b1.commitments[0]!.hiding;
    const row = preprocessedRow(hiding);
    expect(g1.store.nonce(row.sessionId, row.attempt)).toBeUndefined();
    expect(g1.store.nonce(id, preprocessedAttempt(hiding))).toMatchObject({ status: 'spent', hiding }); // prettier-ignore
    expect(g1.store.session(id)?.signed_at).not.toBeNull();
    const replay = await once(g1, id, message, list).catch((e: unknown) => e);
    expect(code(replay)).toBe('nonce-unavailable');
    const other = await once(g1, session(), randomBytes(32), list).catch((e: unknown) => e);
    expect(code(other)).toBe('nonce-unavailable');
  });

  it('refuses a commitment issued to another coordinator, one it never issued, and another guardian’s in its slot', async () => {
    const [g1, g2] = [guardian(1), guardian(2)];
    const [b1, b2] = [await batch(g1, 2), await batch(g2, 2)];
    const message = randomBytes(32);
    const list = [b1.commitments[0]!, b2.commitments[0]!];
    // Issued to `coordinator`; `other` (also a party the guardian answers) may not use it.
    expect(code(await once(g1, session(), message, list, other.publicKey).catch((e) => e))).toBe('nonce-unavailable'); // prettier-ignore
    // A commitment of the right shape it never issued (its binding changed).
    const forged = { ...b1.commitments[1]!, binding: b1.commitments[0]!.binding };
    expect(code(await once(g1, session(), message, [forged, b2.commitments[1]!]).catch((e) => e))).toBe('nonce-unavailable'); // prettier-ignore
    // Guardian 2's commitment put in guardian 1's place: the list does not carry its own.
    const foreign = { ...b2.commitments[1]!, identifier: b1.commitments[1]!.identifier };
    expect(code(await once(g1, session(), message, [foreign, b2.commitments[1]!]).catch((e) => e))).toBe('nonce-unavailable'); // prettier-ignore
    // None of these cost it a nonce: the genuine list still signs.
    expect((await once(g1, session(), message, list)).approved).toBe(true);
  });

  it('a refused request burns the commitment it named', async () => {
    const g1 = guardian(1, storePath(), () => ({ approve: false, reason: 'not today' }));
    const g2 = guardian(2);
    const [b1, b2] = [await batch(g1, 1), await batch(g2, 1)];
    const list = [b1.commitments[0]!, b2.commitments[0]!];
    const answer = await once(g1, session(), randomBytes(32), list);
    expect(answer).toEqual({ approved: false, reason: 'not today' });
    const row = preprocessedRow(b1.commitments[0]!.hiding);
    expect(g1.store.nonce(row.sessionId, row.attempt)?.status).toBe('abandoned');
    expect(g1.rounds.pre.size).toBe(0);
  });

  it('a process that dies after handing out a batch never signs with it: the next start burns it', async () => {
    const before = guardian(1);
    const b = await batch(before, 8);
    const g2 = guardian(2);
    const b2 = await batch(g2, 1);
    // What a kill -9 leaves: the store's committed rows; the nonces in memory are gone. (The
    // real-process test kills a guardian process; this is the same store and start sequence.)
    const after = guardian(1, before.path);
    expect(after.store.abandonIssuedNonces()).toBe(8);
    for (const c of b.commitments) {
      const row = preprocessedRow(c.hiding);
      expect(after.store.nonce(row.sessionId, row.attempt)?.status).toBe('abandoned');
    }
    const list = [b.commitments[0]!, b2.commitments[0]!];
    expect(code(await once(after, session(), randomBytes(32), list).catch((e) => e))).toBe('nonce-unavailable'); // prettier-ignore
    // A new batch is a new epoch, and every commitment ever issued is distinct.
    const fresh = await batch(after, 8);
    expect(fresh.epoch).not.toBe(b.epoch);
    const hidings = after.store.allNonces().map((r) => r.hiding);
    expect(new Set(hidings).size).toBe(16);
    before.store.close();
  });

  it('holds at most MAX_PREPROCESSED per coordinator: a new batch burns that coordinator’s oldest', async () => {
    const g = guardian(1);
    const first = await batch(g, 64);
    await batch(g, 64, other.publicKey);
    for (let i = 0; i < MAX_PREPROCESSED / 64; i++) await batch(g, 64);
    expect(g.rounds.pre.size).toBe(MAX_PREPROCESSED + 64);
    const oldest = preprocessedRow(first.commitments[0]!.hiding);
    expect(g.store.nonce(oldest.sessionId, oldest.attempt)?.status).toBe('abandoned');
    expect(code(await batch(g, 65).catch((e) => e))).toBe('malformed');
  });
});
