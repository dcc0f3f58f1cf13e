// Which first roster a waiting guardian joins, and when a receiver's accusation names a sender.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { approvalRecord } from './approval';
import { writeApproval } from './approval-files';
import { bytesToHex } from './canonical';
import { acceptFirstRoster, receiveFirstRoster } from './first-roster';
import { judgeBlame, seal, shareKey, type BlameParties } from './dkg-share-box';
import { sealMessage, ProtocolError } from './envelope';
import { frost, frostIdentifier } from './frost';
import { newIdentity } from './identity';

const [g1, g2, g3, coordinator] = [newIdentity(), newIdentity(), newIdentity(), newIdentity()];
const url = (i: number) => `http://127.0.0.1:${7400 + i}`;
const roster = {
  kind: 'unit/guardian-set' as const,
  version: 0,
  t: 2,
  n: 3,
  members: [g1, g2, g3].map((g, i) => ({ id: i + 1, name: `g${i + 1}`, identityKey: g.publicKey, url: url(i + 1) })), // prettier-ignore
  coordinators: [{ name: 'coordinator', identityKey: coordinator.publicKey }],
};
const session = 'ab'.repeat(16);
const own = { name: 'g2', identityKey: g2.publicKey, url: url(2) };

const refusal = (f: () => unknown) => {
  try {
    f();
    return 'accepted';
  } catch (e) {
    return e instanceof ProtocolError ? `${e.code}: ${e.message}` : String(e);
  }
};

describe('acceptFirstRoster', () => {
  it('joins a roster naming it with its key and URL, from a coordinator the roster names', () => {
    expect(acceptFirstRoster({ roster, session }, g2, coordinator.publicKey, own)).toMatchObject({ id: 2, session }); // prettier-ignore
  });

  it('refuses every other roster', () => {
    const other = newIdentity();
    const cases: [unknown, string, RegExp][] = [
      [{ roster, session }, g1.publicKey, /does not name its sender as a coordinator/],
      [{ roster, session }, other.publicKey, /does not name its sender/],
      [{ roster: { ...roster, version: 1 }, session }, coordinator.publicKey, /version 0/],
      [{ roster: { ...roster, groupKey: g1.publicKey }, session }, coordinator.publicKey, /frost|group key/], // prettier-ignore
      [{ roster: { ...roster, members: roster.members.map((m) => (m.id === 2 ? { ...m, identityKey: other.publicKey } : m)) }, session }, coordinator.publicKey, /not in the roster with its identity key/], // prettier-ignore
      [{ roster: { ...roster, members: roster.members.map((m) => (m.id === 2 ? { ...m, url: url(9) } : m)) }, session }, coordinator.publicKey, /URL .*7409.*its own is .*7402/], // prettier-ignore
      [{ roster, session: 'nope' }, coordinator.publicKey, /session/],
      [{ roster: { kind: 'x' }, session }, coordinator.publicKey, /bad roster/],
      [null, coordinator.publicKey, /session|malformed/],
    ];
    for (const [body, from, why] of cases)
      expect(refusal(() => acceptFirstRoster(body, g2, from, own))).toMatch(why);
  });
});

describe('receiveFirstRoster', () => {
  const wire = (from = coordinator) =>
    JSON.stringify(
      sealMessage(
        { type: 'dkg/roster', from: from.publicKey, to: g2.publicKey, setVersion: 0, body: { roster, session } }, // prettier-ignore
        from.secretKey,
      ),
    );
  // Guardian 2's directory, holding its operator's approvals of the rosters a case offers.
  const dir = mkdtempSync(join(tmpdir(), 'first-roster-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const approve = (r: typeof roster) => writeApproval(dir, approvalRecord('dkg', 0, roster.members[1]!, r)); // prettier-ignore
  const o = (pin?: string) => ({ identity: g2, dir, startedAs: undefined, coordinator: pin, remember: () => true }); // prettier-ignore

  it('joins only a roster its operator approved', async () => {
    await expect(receiveFirstRoster(wire(), o())).rejects.toThrow(/not approved/);
  });

  it('with its operator’s pin, joins only that coordinator’s roster', async () => {
    approve(roster);
    expect(await receiveFirstRoster(wire(), o(coordinator.publicKey))).toMatchObject({ id: 2 });
    const stranger = newIdentity();
    const theirs = { ...roster, coordinators: [{ name: 'c', identityKey: stranger.publicKey }] };
    approve(theirs);
    const raw = JSON.stringify(sealMessage({ type: 'dkg/roster', from: stranger.publicKey, to: g2.publicKey, setVersion: 0, body: { roster: theirs, session } }, stranger.secretKey)); // prettier-ignore
    expect(await receiveFirstRoster(raw, o()).then((r) => r.id)).toBe(2);
    await expect(receiveFirstRoster(raw, o(coordinator.publicKey))).rejects.toThrow(/coordinator its operator named/); // prettier-ignore
  });

  it('refuses a roster message not signed by a coordinator the roster names', async () => {
    await expect(receiveFirstRoster(wire(g1), o())).rejects.toThrow(/not in the published guardian set/); // prettier-ignore
  });
});

describe('judgeBlame', () => {
  // Guardian 3's round 1 and its share for guardian 1, honest and tampered.
  const r1 = frost.DKG.round1(frostIdentifier(3), { min: 2, max: 3 });
  const others = [1, 2].map((id) => frost.DKG.round1(frostIdentifier(id), { min: 2, max: 3 }).public); // prettier-ignore
  const shares = frost.DKG.round2(r1.secret, others);
  const honest = shares[frostIdentifier(1)]!.signingShare;
  const bad = honest.slice();
  bad[31] = bad[31]! ^ 1;
  const parties: BlameParties = {
    session,
    accuser: { id: 1, identityKey: g1.publicKey },
    accused: { id: 3, identityKey: g3.publicKey },
    round1: r1.public,
  };
  const key = shareKey(g1, g3.publicKey, session);
  const message = (share: Uint8Array, s = session, signer = g3, to = g1.publicKey) =>
    sealMessage(
      { type: 'dkg/share', from: signer.publicKey, to, setVersion: 0, body: { session: s, box: seal(shareKey(signer, g1.publicKey, s), signer.publicKey, g1.publicKey, share) } }, // prettier-ignore
      signer.secretKey,
    );

  it('both ends of a pair derive the same key, and it differs by session', () => {
    expect(bytesToHex(shareKey(g3, g1.publicKey, session))).toBe(bytesToHex(key));
    expect(bytesToHex(shareKey(g1, g3.publicKey, 'cd'.repeat(16)))).not.toBe(bytesToHex(key));
  });

  it('names the sender of a share that opens and fails its commitment', () => {
    const verdict = judgeBlame({ guardian: 3, share: message(bad), key: bytesToHex(key) }, parties);
    expect(verdict.verdict).toBe('accused');
  });

  it('does not name a sender on evidence that does not prove it', () => {
    const cases: [unknown, RegExp][] = [
      [{ guardian: 3, share: message(honest), key: bytesToHex(key) }, /holds/],
      [{ guardian: 3, share: message(bad), key: '00'.repeat(32) }, /does not open/],
      [{ guardian: 3, share: message(bad, 'cd'.repeat(16)), key: bytesToHex(key) }, /another DKG session/], // prettier-ignore
      [{ guardian: 3, share: message(bad, session, g2), key: bytesToHex(key) }, /not signed by the accused/], // prettier-ignore
      [{ guardian: 3, share: message(bad, session, g3, g2.publicKey), key: bytesToHex(key) }, /not its share to the accuser/], // prettier-ignore
      [{ guardian: 3, share: message(bad), key: 'zz' }, /malformed/],
      [{ guardian: 3 }, /not signed/],
    ];
    for (const [evidence, why] of cases) {
      const verdict = judgeBlame(evidence, parties);
      expect(verdict.verdict).toBe('unproven');
      expect(verdict.why).toMatch(why);
    }
  });
});
