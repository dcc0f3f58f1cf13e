// The guardian network as real processes on loopback: the CLI's DKG among three guardian
// processes, then 2-of-3 signing through the coordinator (this test process, which holds no
// share), with guardians killed, restarted, refusing and cheating, and hostile messages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { schnorr } from '@noble/curves/secp256k1.js';
import { randomBytes } from '@noble/hashes/utils.js';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bytesToHex, hexToBytes } from '../src/canonical';
import { Coordinator, QuorumError, type SignEvent } from '../src/coordinator';
import { MAX_MESSAGE_BYTES, sealMessage } from '../src/envelope';
import { frostIdentifier } from '../src/frost';
import { verifySet, type GuardianSet } from '../src/guardian-set';
import { loadIdentity, newIdentity, type Identity } from '../src/identity';
import { macOf, pairwiseKey } from '../src/pairwise-mac';
import { callParty, RemoteError } from '../src/transport';
import { vaultSpend } from './vault-spend';
import {
  allOutput,
  cliDkg,
  CLI,
  EVIL,
  freePorts,
  kill9,
  postRaw,
  readGuardian,
  run,
  waitHealthy,
  type Proc,
} from './harness';

const dir = mkdtempSync(join(tmpdir(), 'guardian-net-'));
const gdir = (id: number) => join(dir, `guardian-${id}`);
let basePort = 0;
let set: GuardianSet;
let coordinatorId: Identity;
let coordinator: Coordinator;
const procs = new Map<number, Proc>();

/** Guardian `id` as the set lists it: its https URL and the identity key its link is pinned to. */
const member = (id: number) => set.members[id - 1]!;
const url = (id: number) => member(id).url;

/** Runs `script` as guardian `id` from its directory on its port, once it answers healthy. */
async function startAs(id: number, script: string, first: string[], last: string[]): Promise<Proc> {
  const at = ['--id', String(id), '--dir', gdir(id), '--port', String(basePort + id - 1)];
  const p = run(script, [...first, ...at, ...last]);
  procs.set(id, p);
  await waitHealthy(member(id));
  return p;
}

const startGuardian = (id: number, policy = 'approve-all') =>
  startAs(id, CLI, ['start'], ['--policy', policy]);

const startEvil = (id: number, mode = 'bad-share') => startAs(id, EVIL, [], ['--mode', mode]);

async function stop(id: number): Promise<void> {
  const p = procs.get(id);
  if (p && p.child.exitCode === null) await kill9(p);
  procs.delete(id);
}

function storeRows(id: number, table: string): number {
  const db = new Database(join(gdir(id), 'store.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

function nonceRows(
  id: number,
): { session_id: string; attempt: number; hiding: string; binding: string; status: string }[] {
  const db = new Database(join(gdir(id), 'store.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT * FROM nonces').all() as never;
  } finally {
    db.close();
  }
}

const message = () => randomBytes(32);
const groupKey = () => hexToBytes(set.groupKey!);

beforeAll(async () => {
  basePort = await freePorts(3);
  // The CLI's DKG: it starts three guardian processes in DKG mode, runs the rounds, stops them.
  set = await cliDkg(dir, basePort);
  coordinatorId = loadIdentity(join(dir, 'coordinator', 'identity.json'));
  // Generous time-outs for a shared machine; a killed guardian fails at once anyway.
  coordinator = new Coordinator(set, coordinatorId, 10_000);
  await Promise.all([1, 2, 3].map((id) => startGuardian(id)));
});

afterAll(async () => {
  await Promise.all([...procs.keys()].map(stop));
  rmSync(dir, { recursive: true, force: true });
});

describe('guardian network on loopback (real processes)', () => {
  it('the DKG among three processes gives one signed 2-of-3 set that every guardian serves', async () => {
    expect(set.t).toBe(2);
    expect(set.n).toBe(3);
    expect(set.groupKey).toMatch(/^[0-9a-f]{64}$/);
    for (const id of [1, 2, 3]) {
      const served = (await readGuardian(member(id), '/v1/set')).body as GuardianSet;
      expect(verifySet(served, set.groupKey).signatures).toEqual(set.signatures);
      expect(statSync(join(gdir(id), 'share.json')).mode & 0o777).toBe(0o600);
      expect(statSync(join(gdir(id), 'identity.json')).mode & 0o777).toBe(0o600);
    }
    // A set with one member's signature swapped for another's is refused.
    expect(() =>
      verifySet({ ...set, signatures: { ...set.signatures, '2': set.signatures['1'] } }),
    ).toThrow(/signature from guardian 2/);
  });

  it('each guardian process names itself on its command line (ps)', () => {
    for (const [id, p] of procs) {
      const cmdline = readFileSync(`/proc/${p.child.pid}/cmdline`, 'utf8').split('\0').join(' ');
      expect(cmdline).toContain(`start --id ${id}`);
    }
  });

  it('two of three sign: the aggregate is a valid BIP-340 signature under the group key', async () => {
    const msg = message();
    const events: SignEvent[] = [];
    const result = await coordinator.sign(msg, { kind: 'test' }, (e) => {
      events.push(e);
    });
    expect(result.signers).toHaveLength(2);
    expect(schnorr.verify(result.signature, msg, groupKey())).toBe(true);
    expect(events.filter((e) => e.kind === 'decision' && e.approved).length).toBeGreaterThanOrEqual(
      2,
    );
  });

  it('two round trips per signer: attempt 1 commitments come with the approvals', async () => {
    // Messages each guardian accepted from now on (older rows may be pruned meanwhile).
    const since = Date.now();
    const seen = () =>
      [1, 2, 3].map((id) => {
        const db = new Database(join(gdir(id), 'store.sqlite'), { readonly: true });
        try {
          const q = 'SELECT count(*) AS n FROM seen_messages WHERE ts >= ?';
          return (db.prepare(q).get(since) as { n: number }).n;
        } finally {
          db.close();
        }
      });
    const before = seen();
    let session = '';
    const result = await coordinator.sign(
      message(),
      {},
      (e) => {
        if (e.kind === 'committed') session = e.sessionId;
      },
      { waitForAll: true },
    );
    expect(result.attempts).toBe(1);
    // Each guardian got sign/propose; each signer then only sign/share (no sign/commit).
    const after = seen();
    for (const id of [1, 2, 3])
      expect(after[id - 1]! - before[id - 1]!).toBe(result.signers.includes(id) ? 2 : 1);
    // The signers spent the nonce they committed with their approval; the third one's waits,
    // issued and unused, until it expires.
    for (const id of [1, 2, 3]) {
      const row = nonceRows(id).find((r) => r.session_id === session && r.attempt === 1);
      expect(row?.status).toBe(result.signers.includes(id) ? 'spent' : 'issued');
    }
  });

  it('the DKG group key is a vault guard_pubkey: the network signs a vault spend the devnet check accepts', async () => {
    const spend = vaultSpend(groupKey());
    const result = await coordinator.sign(spend.sighash, { kind: 'vault-update' });
    expect(spend.finish(result.signature)).toEqual({ ok: true });
  });

  it('a session proposed again gets the same early commitment while its nonce is unspent', async () => {
    const sessionId = bytesToHex(randomBytes(32));
    const msg = bytesToHex(message());
    const propose = async () => {
      const { payload } = await callParty({
        url: url(1),
        identity: coordinatorId,
        to: set.members[0]!.identityKey,
        setVersion: set.version,
        type: 'sign/propose',
        body: { sessionId, message: msg, context: {}, commitAttempt: 7 },
      });
      return payload.body as { approved: boolean; commitments?: { hiding: string } };
    };
    const first = await propose();
    expect(first.approved).toBe(true);
    expect(first.commitments?.hiding).toMatch(/^[0-9a-f]{66}$/);
    // Retaken (a failed quorum, the request sent again): the same commitment, no second nonce.
    expect(await propose()).toEqual(first);
    const rows = nonceRows(1).filter((r) => r.session_id === sessionId);
    expect(rows).toMatchObject([
      { attempt: 7, status: 'issued', hiding: first.commitments!.hiding },
    ]);
  });

  it('a guardian killed with -9 between the rounds is named and the other two sign', async () => {
    const msg = message();
    let killed = 0;
    const result = await coordinator.sign(msg, {}, async (e) => {
      if (e.kind === 'committed' && killed === 0) {
        killed = e.signers[1]!;
        await stop(killed);
      }
    });
    expect(killed).toBeGreaterThan(0);
    expect(result.signers).not.toContain(killed);
    expect(result.attempts).toBe(2);
    expect(result.excluded).toEqual([
      {
        guardian: killed,
        cause: 'unreachable',
        reason: expect.stringMatching(/no signature share: unreachable/),
      },
    ]);
    expect(schnorr.verify(result.signature, msg, groupKey())).toBe(true);
    await startGuardian(killed);
  });

  it('a crash between the rounds never reuses a nonce: the restarted guardian refuses its old one', async () => {
    const msg = message();
    let crashed = 0;
    let session = '';
    const result = await coordinator.sign(msg, {}, async (e) => {
      if (e.kind === 'committed' && crashed === 0) {
        crashed = e.signers[0]!;
        session = e.sessionId;
        await stop(crashed);
        await startGuardian(crashed);
      }
    });
    expect(schnorr.verify(result.signature, msg, groupKey())).toBe(true);
    expect(result.excluded).toEqual([
      { guardian: crashed, cause: 'refused', reason: expect.stringMatching(/nonce-unavailable/) },
    ]);
    const rows = nonceRows(crashed);
    expect(rows.find((r) => r.session_id === session && r.attempt === 1)?.status).toBe('abandoned');
    // Every commitment this guardian ever released is distinct, and none was used twice.
    const hidings = rows.map((r) => r.hiding);
    expect(new Set(hidings).size).toBe(hidings.length);
    // Asking again for a share on the same commitments (a spent nonce) is refused as well.
    // Each signer's last spent nonce made the signature (ROAST numbers each guardian's
    // commitments on its own; one that answered the failed session spent one there too).
    const spent = result.signers.map((id) => {
      const rows = nonceRows(id).filter((r) => r.session_id === session && r.status === 'spent');
      expect(rows.length).toBeGreaterThanOrEqual(1);
      return { id, row: rows.sort((a, b) => b.attempt - a.attempt)[0]! };
    });
    const commitments = spent.map(({ id, row }) => ({
      identifier: frostIdentifier(id),
      hiding: row.hiding,
      binding: row.binding,
    }));
    const attempt = spent[0]!.row.attempt;
    const again = await callParty({
      url: url(result.signers[0]!),
      identity: coordinatorId,
      to: set.members[result.signers[0]! - 1]!.identityKey,
      setVersion: set.version,
      type: 'sign/share',
      body: { sessionId: session, attempt, commitments },
    }).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(RemoteError);
    expect((again as RemoteError).code).toBe('nonce-unavailable');
  });

  // Guardian 3 is preferred, so the cheater is always in the first attempt.
  const cheaterFirst = { waitForAll: true, prefer: [3] };

  it('a guardian that sends a bad share is named and left out; honest guardians still sign', async () => {
    await stop(3);
    await startEvil(3);
    const msg = message();
    const result = await coordinator.sign(msg, {}, undefined, cheaterFirst);
    expect(schnorr.verify(result.signature, msg, groupKey())).toBe(true);
    expect(result.excluded).toEqual([
      { guardian: 3, cause: 'bad-share', reason: 'bad signature share' },
    ]);
    expect(result.signers).toEqual([1, 2]);
    expect(result.attempts).toBe(2);
    await stop(3);
    await startGuardian(3);
  });

  it('a wrong R beside an honest share changes nothing: the coordinator computes R itself', async () => {
    await stop(3);
    await startEvil(3, 'bad-rx');
    const msg = message();
    const result = await coordinator.sign(msg, {}, undefined, cheaterFirst);
    expect(schnorr.verify(result.signature, msg, groupKey())).toBe(true);
    expect(result.signers).toContain(3);
    expect(result).toMatchObject({ excluded: [], attempts: 1 });
    await stop(3);
    await startGuardian(3);
  });

  it('a guardian that sends a nonce commitment twice is named and left out', async () => {
    await stop(3);
    await startEvil(3, 'replay-nonce');
    // Its first commitment is fresh: it signs honestly.
    const first = await coordinator.sign(message(), {}, undefined, cheaterFirst);
    expect(first.signers).toContain(3);
    expect(first.excluded).toEqual([]);
    // Then it sends that commitment again.
    const msg = message();
    const second = await coordinator.sign(msg, {}, undefined, cheaterFirst);
    expect(second.excluded).toEqual([
      { guardian: 3, cause: 'bad-commitment', reason: 'reused a nonce commitment' },
    ]);
    expect(second.signers).toEqual([1, 2]);
    expect(schnorr.verify(second.signature, msg, groupKey())).toBe(true);
    await stop(3);
    await startGuardian(3);
  });

  it('with t-1 approvals nothing is signed, and each refusal is named', async () => {
    await stop(2);
    await startGuardian(2, 'refuse-all');
    await stop(3);
    const attempt = coordinator.sign(message(), {});
    await expect(attempt).rejects.toThrow(QuorumError);
    const err = (await attempt.catch((e: unknown) => e)) as QuorumError;
    expect(err.message).toMatch(/fewer than 2 of 3/);
    expect(err.message).toMatch(/guardian 2: this guardian refuses every request/);
    expect(err.message).toMatch(/guardian 3: unreachable/);
    // The refusing guardian gives no commitment for that session, whoever asks.
    const commit = await callParty({
      url: url(2),
      identity: coordinatorId,
      to: set.members[1]!.identityKey,
      setVersion: set.version,
      type: 'sign/commit',
      body: { sessionId: err.sessionId, attempt: 1 },
    }).catch((e: unknown) => e);
    expect((commit as RemoteError).code).toBe('refused');
    expect(nonceRows(2).some((r) => r.session_id === err.sessionId)).toBe(false);
    await stop(2);
    await Promise.all([startGuardian(2), startGuardian(3)]);
  });

  it('forged, replayed, oversized and out-of-set messages are refused and change nothing', async () => {
    const g1 = set.members[0]!;
    // Each over TLS with the sender's own certificate, so the envelope's checks are what refuse.
    const post = async (body: string, sender: Identity) => {
      const res = await postRaw(g1, body, sender);
      return { status: res.status, json: res.body as { error?: { code: string; message: string } } }; // prettier-ignore
    };
    const propose = (from: Identity, signer = from) =>
      JSON.stringify(
        sealMessage(
          {
            type: 'sign/propose',
            from: from.publicKey,
            to: g1.identityKey,
            setVersion: set.version,
            body: { sessionId: bytesToHex(randomBytes(32)), message: bytesToHex(randomBytes(32)) },
          },
          signer.secretKey,
        ),
      );
    const before = { seen: storeRows(1, 'seen_messages'), sessions: storeRows(1, 'sessions') };

    const stranger = newIdentity();
    const outOfSet = await post(propose(stranger), stranger);
    expect(outOfSet.status).toBe(403);
    expect(outOfSet.json.error).toEqual({
      code: 'sender-not-in-set',
      message: expect.stringMatching(/not in the published guardian set/),
    });

    // The coordinator's name signed by another: on the stranger's own link, refused by the link;
    // on the coordinator's, by the envelope's signature check.
    const onItsLink = await post(propose(coordinatorId, stranger), stranger);
    expect([onItsLink.status, onItsLink.json.error?.code]).toEqual([403, 'bad-certificate']);
    const forged = await post(propose(coordinatorId, stranger), coordinatorId);
    expect(forged.status).toBe(401);
    expect(forged.json.error?.code).toBe('bad-signature');

    const oversized = await post(
      JSON.stringify({ payload: 'x'.repeat(MAX_MESSAGE_BYTES + 1), sig: '' }),
      stranger,
    );
    expect(oversized.status).toBe(413);
    expect(oversized.json.error?.code).toBe('too-large');

    const stale = JSON.stringify(
      sealMessage(
        {
          type: 'sign/propose',
          from: coordinatorId.publicKey,
          to: g1.identityKey,
          setVersion: set.version,
          ts: Date.now() - 120_000,
          body: {},
        },
        coordinatorId.secretKey,
      ),
    );
    expect((await post(stale, coordinatorId)).json.error?.code).toBe('stale');

    // A guardian of the set may not ask another for a signature share: only a coordinator may.
    const g2 = loadIdentity(join(gdir(2), 'identity.json'));
    const fromPeer = await post(propose(g2), g2);
    expect(fromPeer.status).toBe(403);
    expect(fromPeer.json.error?.code).toBe('not-allowed');

    expect(storeRows(1, 'sessions')).toBe(before.sessions);
    // Only the peer's correctly signed message was recorded (its nonce), nothing else.
    expect(storeRows(1, 'seen_messages')).toBe(before.seen + 1);

    const valid = propose(coordinatorId);
    expect((await post(valid, coordinatorId)).status).toBe(200);
    const sessions = storeRows(1, 'sessions');
    const replayed = await post(valid, coordinatorId);
    expect(replayed.status).toBe(409);
    expect(replayed.json.error?.code).toBe('replayed');
    expect(storeRows(1, 'sessions')).toBe(sessions);
  });

  it('a MAC’d proposal is answered MAC’d; one under another pair’s key or replayed is refused and changes nothing', async () => {
    const g1 = set.members[0]!;
    const post = async (wire: unknown) => {
      const res = await postRaw(g1, JSON.stringify(wire), coordinatorId);
      return { status: res.status, json: res.body as { error?: { code: string }; mac?: string; sig?: string } }; // prettier-ignore
    };
    const propose = () =>
      sealMessage(
        {
          type: 'sign/propose',
          from: coordinatorId.publicKey,
          to: g1.identityKey,
          setVersion: set.version,
          body: { sessionId: bytesToHex(randomBytes(32)), message: bytesToHex(randomBytes(32)) },
        },
        coordinatorId.secretKey,
        'mac',
      );
    const before = { seen: storeRows(1, 'seen_messages'), sessions: storeRows(1, 'sessions') };
    // Guardian 2 knows its own key with guardian 1, not the coordinator's.
    const g2 = loadIdentity(join(gdir(2), 'identity.json'));
    const genuine = propose();
    const forged = {
      payload: genuine.payload,
      mac: macOf(pairwiseKey(g2.secretKey, g2.publicKey, g1.identityKey), genuine.payload),
    };
    const refused = await post(forged);
    expect([refused.status, refused.json.error?.code]).toEqual([401, 'bad-signature']);
    expect(storeRows(1, 'seen_messages')).toBe(before.seen);
    expect(storeRows(1, 'sessions')).toBe(before.sessions);

    const answer = await post(genuine);
    expect(answer.status).toBe(200);
    expect(typeof answer.json.mac).toBe('string');
    expect(answer.json.sig).toBeUndefined();
    expect(storeRows(1, 'sessions')).toBe(before.sessions + 1);
    const replayed = await post(genuine);
    expect([replayed.status, replayed.json.error?.code]).toEqual([409, 'replayed']);
    expect(storeRows(1, 'sessions')).toBe(before.sessions + 1);
  });

  it('refuses to start with a share file that others can read', async () => {
    await stop(3);
    const share = join(gdir(3), 'share.json');
    chmodSync(share, 0o640);
    try {
      const p = run(CLI, ['start', '--id', '3', '--dir', gdir(3), '--port', String(basePort + 2)]);
      expect(await p.exited).toBe(1);
      expect(p.output()).toMatch(/readable by others \(mode 640\)/);
    } finally {
      chmodSync(share, 0o600);
    }
    await startGuardian(3);
  });

  it('no share ever appears in a log, a health answer or the published set', async () => {
    const logs = allOutput.join('');
    const served = [1, 2, 3].map(async (id) => JSON.stringify(await waitHealthy(member(id))));
    const answers = (await Promise.all(served)).join('') + JSON.stringify(set);
    for (const id of [1, 2, 3]) {
      const secret = (
        JSON.parse(readFileSync(join(gdir(id), 'share.json'), 'utf8')) as { signingShare: string }
      ).signingShare;
      const identity = (
        JSON.parse(readFileSync(join(gdir(id), 'identity.json'), 'utf8')) as { secretKey: string }
      ).secretKey;
      for (const s of [secret, identity]) {
        expect(logs).not.toContain(s);
        expect(answers).not.toContain(s);
      }
    }
    expect(logs).toContain('"event":"listening"');
  });
});
