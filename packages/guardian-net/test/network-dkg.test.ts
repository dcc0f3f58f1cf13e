// A network made as separate organisations would make it: each guardian by `guardian init` in its
// own directory, started from it, and the first DKG run by a coordinator that holds only its own
// identity key. Real processes on loopback; the files of every directory are scanned afterwards.
import { afterAll, describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CERTIFIED, rosterOf } from '../src/cli-dkg';
import { runFirstDkg } from '../src/dkg-coordinator';
import { ensureIdentity, newIdentity } from '../src/identity';
import { MAX_MESSAGE_BYTES, sealMessage } from '../src/envelope';
import { approveFirstRoster } from '../src/approve-first';
import {
  allOutput,
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

const root = mkdtempSync(join(tmpdir(), 'guardian-orgs-'));
const running: Proc[] = [];

afterAll(async () => {
  await Promise.all(running.map((p) => kill9(p)));
  rmSync(root, { recursive: true, force: true });
});

interface Org {
  dir: string;
  url: string;
  part: { name: string; identityKey: string; url: string };
}

async function init(name: string, port: number): Promise<Org> {
  const dir = join(root, name);
  const url = `https://127.0.0.1:${port}`;
  const p = run(CLI, ['init', '--dir', dir, '--url', url, '--name', name]);
  expect(await p.exited, p.output()).toBe(0);
  const part = JSON.parse(p.output().trim().split('\n').at(-1)!) as Org['part'];
  return { dir, url, part };
}

async function start(org: Org, evilMode?: string, flags: string[] = []): Promise<Proc> {
  const p = evilMode
    ? run(EVIL, ['--dir', org.dir, '--mode', evilMode])
    : run(CLI, ['start', '--dir', org.dir, '--policy', 'approve-all', ...flags]);
  running.push(p);
  // Generous: the machine these run on is shared; a process that exits fails at once with its output.
  const exited = p.exited.then((code) => {
    throw new Error(`guardian exited (${code}) before it came up: ${p.output()}`);
  });
  const health = await Promise.race([waitHealthy(org.part, 90_000), exited]);
  exited.catch(() => {});
  expect(health).toMatchObject({ state: 'waiting', identityKey: org.part.identityKey });
  return p;
}

/** The roster `guardian dkg --members` makes for `orgs` from the coordinator directory `net`. */
function rosterFor(net: string, orgs: Org[], t: number) {
  mkdirSync(join(root, net, 'coordinator'), { recursive: true, mode: 0o700 });
  const coordinator = ensureIdentity(join(root, net, 'coordinator', 'identity.json'));
  return rosterOf(orgs.map((o) => o.part), t, coordinator.publicKey); // prettier-ignore
}

/** Each of `orgs`' operators approves the roster of `net` (the command's own check and record). */
function approveAll(net: string, orgs: Org[], t = 2): void {
  const roster = rosterFor(net, orgs, t);
  for (const org of orgs) approveFirstRoster(org.dir, roster, true);
}

/**
 * `guardian dkg --members` from a coordinator directory of its own, once every operator approved
 * the roster (unless `approved` is false); its process, exited.
 */
async function coordinate(net: string, orgs: Org[], t = 2, approved = true): Promise<Proc> {
  if (approved) approveAll(net, orgs, t);
  const file = join(root, `${net}-members.txt`);
  writeFileSync(file, orgs.map((o) => JSON.stringify(o.part)).join('\n') + '\n');
  const p = run(CLI, ['dkg', '--dir', join(root, net), '--members', file, '--t', String(t)]);
  await p.exited;
  return p;
}

const health = async (org: Org) =>
  (await readGuardian(org.part, '/v1/health')).body as Record<string, unknown>;

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Files under `dirs` that hold `share` (32 bytes) in hex or raw. */
function holders(dirs: string[], share: string): string[] {
  const raw = Buffer.from(share, 'hex');
  return dirs.flatMap(filesUnder).filter((f) => {
    const bytes = readFileSync(f);
    return bytes.includes(raw) || bytes.toString('latin1').toLowerCase().includes(share);
  });
}

const shareFiles = (dirs: string[]) =>
  dirs.flatMap(filesUnder).filter((f) => /(^|\/)(share(-v\d+)?\.json|guardian-set(-v\d+)?\.json)$/.test(f)); // prettier-ignore

describe('guardians of three organisations', () => {
  it('form a 2-of-3 network; each directory holds its own share only, and the set signs', async () => {
    const base = await freePorts(3);
    const orgs = [await init('org-a', base), await init('org-b', base + 1), await init('org-c', base + 2)]; // prettier-ignore
    for (const org of orgs) {
      expect(statSync(org.dir).mode & 0o777).toBe(0o700);
      for (const f of readdirSync(org.dir)) expect(statSync(join(org.dir, f)).mode & 0o777).toBe(0o600); // prettier-ignore
      expect(readdirSync(org.dir).sort()).toEqual(['guardian.json', 'identity.json']);
    }
    // Organisation A pins the coordinator's key, as its operator would after hearing it from them.
    const key = run(CLI, ['coordinator-key', '--dir', join(root, 'net-1')]);
    expect(await key.exited, key.output()).toBe(0);
    await start(orgs[0]!, undefined, ['--coordinator', key.output().trim()]);
    for (const org of orgs.slice(1)) await start(org);
    const dkg = await coordinate('net-1', orgs);
    expect(dkg.child.exitCode, dkg.output()).toBe(0);
    const net = join(root, 'net-1');
    const set = JSON.parse(readFileSync(join(net, 'guardian-set.json'), 'utf8')) as {
      groupKey: string;
      signatures: Record<string, string>;
    };
    expect(Object.keys(set.signatures).sort()).toEqual(['1', '2', '3']);
    for (const org of orgs)
      expect(await health(org)).toMatchObject({ state: 'ready', groupKey: set.groupKey });

    const dirs = [net, ...orgs.map((o) => o.dir)];
    const shares = orgs.map((o) => {
      const file = JSON.parse(readFileSync(join(o.dir, 'share.json'), 'utf8')) as { signingShare: string }; // prettier-ignore
      return file.signingShare;
    });
    expect(new Set(shares).size).toBe(3);
    orgs.forEach((org, i) => {
      expect(holders(dirs, shares[i]!)).toEqual([join(org.dir, 'share.json')]);
      expect(allOutput.some((line) => line.includes(shares[i]!))).toBe(false);
    });
    expect(
      filesUnder(net)
        .map((f) => f.slice(net.length + 1))
        .sort(),
    ).toEqual([
      'coordinator/identity.json',
      'dkg-transcript.json',
      'guardian-set.json',
      'roster.json',
    ]);

    const message = randomBytes(32).toString('hex');
    const sign = run(CLI, ['sign', '--dir', net, '--message', message]);
    expect(await sign.exited, sign.output()).toBe(0);
    const signed = sign.output().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>).find((e) => e.event === 'signed'); // prettier-ignore
    const hex = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));
    const sig = hex(String(signed!.signature));
    expect(schnorr.verify(sig, hex(message), hex(set.groupKey))).toBe(true);
    expect(schnorr.verify(sig, new Uint8Array(randomBytes(32)), hex(set.groupKey))).toBe(false);

    // init refuses a directory that already holds a guardian, and changes nothing there.
    const before = readFileSync(join(orgs[0]!.dir, 'identity.json'));
    const again = run(CLI, ['init', '--dir', orgs[0]!.dir, '--url', orgs[0]!.url]);
    expect(await again.exited).not.toBe(0);
    expect(again.output()).toMatch(/already holds a guardian/);
    expect(readFileSync(join(orgs[0]!.dir, 'identity.json'))).toEqual(before);
  }, 180_000);

  it('a DKG runs only for the roster every operator approved: one missing approval fails it for all', async () => {
    const base = await freePorts(3);
    const orgs = [await init('ok-a', base), await init('ok-b', base + 1), await init('ok-c', base + 2)]; // prettier-ignore
    for (const org of orgs) await start(org);
    const netDir = join(root, 'net-ok');
    const rosterPath = join(netDir, 'roster.json');
    const approve = async (org: Org, path: string, yes = true) => {
      const p = run(CLI, ['approve', '--kind', 'dkg', '--dir', org.dir, '--roster', path, ...(yes ? ['--yes'] : [])]); // prettier-ignore
      await p.exited;
      return p;
    };
    const noSet = async () => {
      expect(existsSync(join(netDir, 'guardian-set.json'))).toBe(false);
      expect(shareFiles([netDir, ...orgs.map((o) => o.dir)])).toEqual([]);
      for (const org of orgs) expect(await health(org)).toMatchObject({ state: 'waiting' });
    };
    // No operator approved: the command names each one and what it runs; nobody took part.
    const first = await coordinate('net-ok', orgs, 2, false);
    expect(first.child.exitCode).toBe(1);
    expect(first.output()).toMatch(/The DKG did not start: guardian 1, guardian 2, guardian 3 have not approved this roster/); // prettier-ignore
    expect(first.output()).toContain(`npm run guardian -- approve --kind dkg --dir <guardian 3's own directory> --roster ${rosterPath}`); // prettier-ignore
    await noSet();
    // Operators 1 and 2 read the summary, then approve; operator 3 approves another roster (t 3).
    const look = await approve(orgs[0]!, rosterPath, false);
    expect(look.child.exitCode, look.output()).toBe(0);
    expect(look.output()).toContain('First DKG (a new group key) of a 2-of-3 network');
    expect(look.output()).toContain('Nothing was recorded.');
    expect(existsSync(join(orgs[0]!.dir, 'approvals'))).toBe(false);
    for (const org of orgs.slice(0, 2)) expect((await approve(org, rosterPath)).child.exitCode).toBe(0); // prettier-ignore
    const other = join(root, 'roster-t3.json');
    writeFileSync(other, JSON.stringify(rosterFor('net-ok', orgs, 3)));
    expect((await approve(orgs[2]!, other)).child.exitCode).toBe(0);
    const second = await coordinate('net-ok', orgs, 2, false);
    expect(second.child.exitCode).toBe(1);
    expect(second.output()).toMatch(
      /The DKG did not start: guardian 3 has not approved this roster/,
    );
    expect(second.output()).toMatch(/guardian 3 \(ok-c\): not approved: no approval by this guardian’s operator covers the first DKG of this roster .*approves another roster \(its threshold t differ\)/); // prettier-ignore
    expect(second.output()).toContain('dkg/roster');
    await noSet();
    // Hostile first rosters to guardian 1, whose operator approved this one: each refused.
    const roster = rosterFor('net-ok', orgs, 2);
    const coordinator = ensureIdentity(join(netDir, 'coordinator', 'identity.json'));
    const to = orgs[0]!.part.identityKey;
    const session = randomBytes(16).toString('hex');
    const wire = (from: string, signer: Uint8Array, body: unknown, setVersion = 0) =>
      JSON.stringify(sealMessage({ type: 'dkg/roster', from, to, setVersion, body: body as never }, signer)); // prettier-ignore
    const stranger = newIdentity();
    // Over TLS with the certificate of the party the message names (the coordinator's unless a
    // stranger's), so each refusal below is the envelope's or the roster's check, not the link's.
    const post = async (body: string) => {
      const named = body.includes(stranger.publicKey) ? stranger : coordinator;
      const res = await postRaw(orgs[0]!.part, body, named);
      const error = (res.body as { error?: { code?: string; message?: string } }).error;
      return `${res.status} ${error?.code}: ${error?.message}`;
    };
    const key = coordinator.publicKey;
    expect(await post(JSON.stringify({ payload: 'x'.repeat(MAX_MESSAGE_BYTES + 1), sig: '' }))).toMatch(/^413 too-large/); // prettier-ignore
    expect(await post('{"payload": 5}')).toMatch(/^400 malformed/);
    expect(await post(wire(key, stranger.secretKey, { roster, session }))).toMatch(/^401 bad-signature/); // prettier-ignore
    expect(await post(wire(stranger.publicKey, stranger.secretKey, { roster, session }))).toMatch(/^403 sender-not-in-set/); // prettier-ignore
    expect(await post(wire(key, coordinator.secretKey, { roster, session }, 3))).toMatch(/^409 refused: a first roster names guardian set version 0/); // prettier-ignore
    // A roster that does not parse names no coordinator, so its sender is nobody the guardian knows.
    expect(await post(wire(key, coordinator.secretKey, { roster: { ...roster, t: 'two' }, session }))).toMatch(/^403 sender-not-in-set/); // prettier-ignore
    const moved = { ...roster, members: roster.members.map((m) => (m.id === 1 ? { ...m, url: 'http://127.0.0.1:9' } : m)) }; // prettier-ignore
    expect(await post(wire(key, coordinator.secretKey, { roster: moved, session }))).toMatch(/^400 refused: the roster gives this guardian the URL http:\/\/127.0.0.1:9/); // prettier-ignore
    const elsewhere = { ...roster, members: roster.members.map((m) => (m.id === 2 ? { ...m, url: 'http://127.0.0.1:9' } : m)) }; // prettier-ignore
    expect(await post(wire(key, coordinator.secretKey, { roster: elsewhere, session }))).toMatch(/^400 refused: not approved: .*approves another roster \(its members differ\)/); // prettier-ignore
    const once = wire(key, coordinator.secretKey, { roster, session: 'zz' });
    expect(await post(once)).toMatch(/^400 malformed: a DKG session is 16 bytes of hex/);
    expect(await post(once)).toMatch(/^409 replayed/);
    await noSet();
    // With the third approval the same command makes the set.
    expect((await approve(orgs[2]!, rosterPath)).child.exitCode).toBe(0);
    const third = await coordinate('net-ok', orgs, 2, false);
    expect(third.child.exitCode, third.output()).toBe(0);
    const set = JSON.parse(readFileSync(join(netDir, 'guardian-set.json'), 'utf8')) as { groupKey: string }; // prettier-ignore
    for (const org of orgs)
      expect(await health(org)).toMatchObject({ state: 'ready', groupKey: set.groupKey });
    // A guardian that holds a set approves no first roster.
    const late = await approve(orgs[0]!, rosterPath);
    expect(late.child.exitCode).not.toBe(0);
    expect(late.output()).toMatch(/already holds guardian set 1; a first DKG is for a guardian with no set/); // prettier-ignore
  }, 180_000);

  it('a guardian that sends a bad share is named, nobody installs a set, and a rerun without it succeeds', async () => {
    const base = await freePorts(3);
    const orgs = [await init('bad-a', base), await init('bad-b', base + 1), await init('bad-c', base + 2)]; // prettier-ignore
    await start(orgs[0]!);
    await start(orgs[1]!);
    await start(orgs[2]!, 'bad-dkg-share');
    const dkg = await coordinate('net-bad', orgs);
    expect(dkg.child.exitCode).toBe(1);
    expect(dkg.output()).toMatch(/blame: 3 \(guardian 3 sent a share that fails/);
    const dirs = [join(root, 'net-bad'), ...orgs.map((o) => o.dir)];
    expect(shareFiles(dirs)).toEqual([]);
    for (const org of orgs) expect(await health(org)).toMatchObject({ state: 'waiting' });

    // The same running guardians, without the one named: a 2-of-2 network.
    const rerun = await coordinate('net-bad-rerun', orgs.slice(0, 2));
    expect(rerun.child.exitCode, rerun.output()).toBe(0);
    for (const org of orgs.slice(0, 2)) expect(await health(org)).toMatchObject({ state: 'ready' });
    expect(await health(orgs[2]!)).toMatchObject({ state: 'waiting' });
  }, 180_000);

  it('a guardian killed mid-DKG fails it cleanly for all; after its restart the DKG succeeds', async () => {
    const base = await freePorts(3);
    const orgs = [await init('kill-a', base), await init('kill-b', base + 1), await init('kill-c', base + 2)]; // prettier-ignore
    await start(orgs[0]!);
    await start(orgs[1]!);
    const dying = await start(orgs[2]!, 'crash-in-dkg');
    const dkg = await coordinate('net-kill', orgs);
    expect(dkg.child.exitCode).toBe(1);
    expect(dkg.output()).toMatch(/the DKG failed at dkg\/round2: .*guardian 3/);
    await dying.exited;
    const dirs = [join(root, 'net-kill'), ...orgs.map((o) => o.dir)];
    expect(shareFiles(dirs)).toEqual([]);
    for (const org of orgs.slice(0, 2))
      expect(await health(org)).toMatchObject({ state: 'waiting' });

    await start(orgs[2]!);
    const rerun = await coordinate('net-kill', orgs);
    expect(rerun.child.exitCode, rerun.output()).toBe(0);
    const set = JSON.parse(readFileSync(join(root, 'net-kill', 'guardian-set.json'), 'utf8')) as { groupKey: string }; // prettier-ignore
    for (const org of orgs)
      expect(await health(org)).toMatchObject({ state: 'ready', groupKey: set.groupKey });
  }, 180_000);

  it('a coordinator stopped after every member signed: the next run sends the install again', async () => {
    const base = await freePorts(2);
    const orgs = [await init('halt-a', base), await init('halt-b', base + 1)];
    for (const org of orgs) await start(org);
    const net = join(root, 'net-halt');
    mkdirSync(join(net, 'coordinator'), { recursive: true, mode: 0o700 });
    const coordinator = ensureIdentity(join(net, 'coordinator', 'identity.json'));
    const roster = rosterOf(
      orgs.map((o) => o.part),
      2,
      coordinator.publicKey,
    );
    for (const org of orgs) approveFirstRoster(org.dir, roster, true);
    // The coordinator's own step, as the command runs it, stopped right after the certificate.
    const halted = runFirstDkg(roster, coordinator, {
      onCertified: (set) => {
        writeFileSync(join(net, CERTIFIED), JSON.stringify(set));
        throw new Error('coordinator stopped');
      },
    });
    await expect(halted).rejects.toThrow('coordinator stopped');
    for (const org of orgs) expect(await health(org)).toMatchObject({ state: 'dkg' });
    expect(shareFiles(orgs.map((o) => o.dir))).toEqual([]);

    const resumed = await coordinate('net-halt', orgs);
    expect(resumed.child.exitCode, resumed.output()).toBe(0);
    expect(resumed.output()).toMatch(/dkg-resume-install/);
    const set = JSON.parse(readFileSync(join(net, 'guardian-set.json'), 'utf8')) as { groupKey: string }; // prettier-ignore
    for (const org of orgs)
      expect(await health(org)).toMatchObject({ state: 'ready', groupKey: set.groupKey });
    expect(existsSync(join(net, CERTIFIED))).toBe(false);
  }, 180_000);
});
