// Every forbidden roster against a running guardian's own message handler (`GuardianNode.handle`,
// in this process, no CLI): a coordinator of its set sends `rotate/roster` and `set/handover`; the
// guardian joins only a roster its own operator approved exactly, from the set it is on, within the
// rules no approval lifts. Each refusal is `refused` with its reason, and it stays on its set.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { approvalRecord, type ApprovalRecord } from '../src/approval';
import { approvalPath, writeApproval } from '../src/approval-files';
import { approve, approveRoster } from '../src/approve';
import { ProtocolError, sealMessage } from '../src/envelope';
import type { GuardianSet, GuardianSetBody } from '../src/guardian-set';
import { newIdentity } from '../src/identity';
import { GuardianNode } from '../src/node';
import { nextRoster } from '../src/rotate';
import { dealSet, identities, writeGuardianDir, type DealtSet } from './guardian-dir';

const root = mkdtempSync(join(tmpdir(), 'guardian-approval-'));
const coordinator = newIdentity();
/** A 3-of-4 set 1, and set 2 (which guardian 1 of the second node also holds). */
let set1: DealtSet;
let set2: DealtSet;
const nodes: GuardianNode[] = [];

async function nodeAt(dir: string, id: number): Promise<GuardianNode> {
  const node = new GuardianNode({ id, dir, validate: () => ({ approve: true }) });
  await node.store.open();
  nodes.push(node);
  return node;
}

/** The coordinator's message to guardian 1 of `set`, handled by `node`: its answer or refusal. */
async function ask(node: GuardianNode, set: GuardianSet, type: string, body: unknown) {
  const wire = sealMessage(
    {
      type,
      from: coordinator.publicKey,
      to: set.members[0]!.identityKey,
      setVersion: set.version,
      body: body as never,
    },
    coordinator.secretKey,
  );
  try {
    const reply = await node.handle(JSON.stringify(wire));
    return { body: (JSON.parse(reply.payload) as { body: unknown }).body };
  } catch (e) {
    if (!(e instanceof ProtocolError)) throw e;
    return { refused: `${e.code}: ${e.message}` };
  }
}

/** A roster of the next set: `replace` new seats, n and t as given. */
function roster(from: GuardianSet, replace: number[], n = from.n, t = from.t): GuardianSetBody {
  return nextRoster(from, { replace, n, t, basePort: 42_000 }, () => newIdentity().publicKey);
}

const expectStays = (node: GuardianNode, version: number) =>
  expect(node.health()).toMatchObject({ setVersion: version, rotatingTo: null });

let dir1: string;
let node1: GuardianNode;

beforeAll(async () => {
  const keys = identities(4);
  set1 = dealSet(1, 3, keys, coordinator);
  set2 = dealSet(2, 3, [keys[0]!, keys[1]!, keys[2]!, newIdentity()], coordinator, set1.set);
  dir1 = join(root, 'guardian-1');
  writeGuardianDir(dir1, 1, [set1]);
  node1 = await nodeAt(dir1, 1);
});

afterEach(() => rmSync(join(dir1, 'approvals'), { recursive: true, force: true }));

afterAll(async () => {
  await Promise.all(nodes.map((n) => n.store.close()));
  rmSync(root, { recursive: true, force: true });
});

describe('a guardian joins a rotation only with its own operator’s approval of exactly that roster', () => {
  it('refuses a roster nobody approved, and says what its operator runs', async () => {
    const answer = await ask(node1, set1.set, 'rotate/roster', { roster: roster(set1.set, [4]) });
    expect(answer.refused).toMatch(
      /^refused: not approved: this guardian’s operator has not approved the rotation to set 2 .*npm run guardian -- approve --dir/,
    );
    expectStays(node1, 1);
  });

  it('refuses a roster other than the one approved (another new member)', async () => {
    approveRoster(dir1, roster(set1.set, [4]), true);
    const answer = await ask(node1, set1.set, 'rotate/roster', { roster: roster(set1.set, [4]) });
    expect(answer.refused).toMatch(
      /^refused: not approved: no approval .* approves another roster \(its members differ\)/,
    );
    expectStays(node1, 1);
  });

  it('refuses coordinators the approved roster does not name', async () => {
    const approved = roster(set1.set, [4]);
    approveRoster(dir1, approved, true);
    const stranger = { name: 'coordinator', identityKey: newIdentity().publicKey };
    const offered = { ...approved, coordinators: [...approved.coordinators, stranger] };
    const answer = await ask(node1, set1.set, 'rotate/roster', { roster: offered });
    expect(answer.refused).toMatch(/approves another roster \(its coordinators differ\)/);
    expectStays(node1, 1);
  });

  it('refuses, even approved, a roster that lowers t', async () => {
    const lower = roster(set1.set, [4], 4, 2);
    expect(() => approveRoster(dir1, lower, false)).toThrow(/threshold would go down from 3 to 2/);
    // An approval file for it all the same (the command would not write one): the rule still holds.
    writeApproval(dir1, approvalRecord('rotation', 1, set1.set.members[0]!, lower));
    const answer = await ask(node1, set1.set, 'rotate/roster', { roster: lower });
    expect(answer.refused).toMatch(
      /^refused: this guardian refuses the roster of set 2: the threshold would go down from 3 to 2/,
    );
    expectStays(node1, 1);
  });

  it('refuses, even approved, as many new members as the next t (the attack: new seats added)', async () => {
    // 3-of-4 to 3-of-6: guardian 4 replaced and two seats added, three new keys, t = 3.
    const grown = roster(set1.set, [4], 6, 3);
    writeApproval(dir1, approvalRecord('rotation', 1, set1.set.members[0]!, grown));
    const answer = await ask(node1, set1.set, 'rotate/roster', { roster: grown });
    expect(answer.refused).toMatch(
      /3 of its members would be new, as many as its threshold 3, so new members alone could sign/,
    );
    expectStays(node1, 1);
  });

  it('refuses an approval for another set version', async () => {
    const next = roster(set1.set, [4]);
    const record: ApprovalRecord = approvalRecord('rotation', 1, set1.set.members[0]!, next);
    writeApproval(dir1, { ...record, setVersion: 2 });
    const answer = await ask(node1, set1.set, 'rotate/roster', { roster: next });
    expect(answer.refused).toMatch(/is for a rotation of set 2, and this guardian is on set 1/);
    expectStays(node1, 1);
  });

  it('joins the approved roster; signs no handover once the approval is withdrawn', async () => {
    const next = roster(set1.set, [4]);
    const path = approveRoster(dir1, next, true).path!;
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir1, 'approvals')).mode & 0o777).toBe(0o700);
    expect(await ask(node1, set1.set, 'rotate/roster', { roster: next })).toEqual({
      body: { joined: 2 },
    });
    expect(node1.health()).toMatchObject({ setVersion: 1, rotatingTo: 2 });
    rmSync(path);
    const answer = await ask(node1, set1.set, 'set/handover', set2.set);
    expect(answer.refused).toMatch(/^refused: not approved: this guardian’s operator has not/);
    expect(node1.health()).toMatchObject({ setVersion: 1, sets: [1] });
  });
});

describe('an approval is for one rotation: never replayed into a later one', () => {
  let dir: string;
  let node: GuardianNode;
  let old: string;

  beforeAll(async () => {
    // Guardian 1 after the rotation to set 2, with its approval of that rotation still on disk.
    dir = join(root, 'guardian-1-v2');
    writeGuardianDir(dir, 1, [set1, set2]);
    old = approveRoster(join(root, 'guardian-1'), roster(set1.set, [4]), true).path!;
    cpSync(join(root, 'guardian-1', 'approvals'), join(dir, 'approvals'), { recursive: true });
    node = await nodeAt(dir, 1);
  });

  it('refuses the next rotation with the old approval file, as it is or renamed for it', async () => {
    const next = roster(set2.set, [4]);
    const answer = await ask(node, set2.set, 'rotate/roster', { roster: next });
    expect(answer.refused).toMatch(/is for a rotation of set 1, and this guardian is on set 2/);
    // The same file under the name an approval of the set-3 roster would have.
    const renamed = approvalPath(dir, approvalRecord('rotation', 2, set2.set.members[0]!, next));
    cpSync(old, renamed);
    const again = await ask(node, set2.set, 'rotate/roster', { roster: next });
    expect(again.refused).toMatch(/is for a rotation of set 1, and this guardian is on set 2/);
    expectStays(node, 2);
  });
});

describe('the approve command', () => {
  it('prints exactly what changes and records nothing without --yes', () => {
    const next = roster(set1.set, [4]);
    const lines: string[] = [];
    const file = join(root, 'roster.json');
    writeFileSync(file, JSON.stringify(next));
    approve(['--dir', dir1, '--roster', file], (l) => lines.push(l));
    const text = lines.join('\n');
    const [m1, , , m4] = set1.set.members;
    expect(text).toContain('version: 1 -> 2');
    expect(text).toContain('threshold t: 3 -> 3');
    expect(text).toContain('size n: 4 -> 4');
    expect(text).toContain(
      `kept:    guardian 1 (guardian-1) identity key ${m1!.identityKey} at ${m1!.url}`,
    );
    expect(text).toContain(
      `added:   guardian 4 (guardian-4) identity key ${next.members[3]!.identityKey}`,
    );
    expect(text).toContain(`removed: guardian 4 (guardian-4) identity key ${m4!.identityKey}`);
    expect(text).toContain(
      `coordinators after:  coordinator identity key ${coordinator.publicKey} (unchanged)`,
    );
    expect(text).toMatch(/Nothing was recorded\. .* run the same command again with --yes\.$/);
    expect(readdirSafe(join(dir1, 'approvals'))).toEqual([]);
    lines.length = 0;
    approve(['--dir', dir1, '--roster', file, '--yes'], (l) => lines.push(l));
    expect(lines.at(-1)).toMatch(/^Approved: guardian 1 will join the rotation to set 2 /);
    expect(readdirSafe(join(dir1, 'approvals'))).toHaveLength(1);
  });

  it('refuses to approve a roster not made from this guardian’s set, or that drops its seat', () => {
    expect(() => approveRoster(dir1, roster(set2.set, [4]), false)).toThrow(
      /cannot be approved: the next set must be version 2, not 3/,
    );
    expect(() => approveRoster(dir1, roster(set1.set, [1]), false)).toThrow(
      /does not keep guardian 1 in its seat/,
    );
  });
});

const readdirSafe = (path: string) => (existsSync(path) ? readdirSync(path) : []);
