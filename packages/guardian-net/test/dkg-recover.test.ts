// A first DKG that survives a crash and a lost disk, among guardians made by `guardian init` in
// their own directories (real processes on loopback). A member killed in round 2 and started again
// while `guardian dkg --retries` waits: the same command starts the DKG again cleanly and every
// member ends on one key. A member that lost its disk after the DKG rebuilds its share with
// `guardian recover` from its identity key and the coordinator's public transcript (which holds no
// share in clear), and signs again; a stranger's key, a tampered transcript and a directory that
// holds a share are refused.
import { afterAll, describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'; // prettier-ignore
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureIdentity } from '../src/identity';
import { approveFirstRoster } from '../src/approve-first';
import { readMembers, rosterOf } from '../src/cli-dkg';
import { allOutput, CLI, EVIL, freePorts, kill9, run, waitHealthy, type Proc } from './harness';

const root = mkdtempSync(join(tmpdir(), 'guardian-dkg-recover-'));
const net = join(root, 'net');
const running = new Map<string, Proc>();

afterAll(async () => {
  await Promise.all(
    [...running.values()].map((p) => (p.child.exitCode === null ? kill9(p) : null)),
  );
  rmSync(root, { recursive: true, force: true });
});

interface Org {
  name: string;
  dir: string;
  url: string;
  part: string;
}
const orgs: Org[] = [];

async function start(org: Org, state: string, evilMode?: string): Promise<Proc> {
  const p = evilMode
    ? run(EVIL, ['--dir', org.dir, '--mode', evilMode])
    : run(CLI, ['start', '--dir', org.dir, '--policy', 'approve-all']);
  running.set(org.name, p);
  expect(await waitHealthy(org.url, 90_000)).toMatchObject({ state });
  return p;
}

const cli = async (args: string[], code: number) => {
  const p = run(CLI, args);
  expect(await p.exited, p.output()).toBe(code);
  return p.output();
};

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Files under `dirs` that hold `share` (32 bytes) in hex or raw. */
const holders = (dirs: string[], share: string) =>
  dirs.flatMap(filesUnder).filter((f) => {
    const bytes = readFileSync(f);
    return bytes.includes(Buffer.from(share, 'hex')) || bytes.toString('latin1').includes(share);
  });

const shareOf = (org: Org) =>
  (JSON.parse(readFileSync(join(org.dir, 'share.json'), 'utf8')) as { signingShare: string })
    .signingShare;
const setOf = () =>
  JSON.parse(readFileSync(join(net, 'guardian-set.json'), 'utf8')) as {
    groupKey: string;
    signatures: Record<string, string>;
  };

describe('a first DKG that a crash and a lost disk do not break', () => {
  it('a member killed in round 2 and started again: the same dkg command starts over cleanly, one key for all', async () => {
    const base = await freePorts(3);
    for (const [i, name] of ['org-a', 'org-b', 'org-c'].entries()) {
      const dir = join(root, name);
      const url = `https://127.0.0.1:${base + i}`;
      const part = (await cli(['init', '--dir', dir, '--url', url, '--name', name], 0)).trim().split('\n').at(-1)!; // prettier-ignore
      orgs.push({ name, dir, url, part });
    }
    await start(orgs[0]!, 'waiting');
    await start(orgs[1]!, 'waiting');
    const dying = await start(orgs[2]!, 'waiting', 'crash-in-dkg');
    const members = join(root, 'members.txt');
    writeFileSync(members, orgs.map((o) => o.part).join('\n') + '\n');
    // Each operator approves the roster the coordinator makes, on its own guardian's directory.
    mkdirSync(join(net, 'coordinator'), { recursive: true, mode: 0o700 });
    const coordinator = ensureIdentity(join(net, 'coordinator', 'identity.json'));
    const roster = rosterOf(readMembers(members), 2, coordinator.publicKey);
    for (const org of orgs) approveFirstRoster(org.dir, roster, true);
    const dkg = run(CLI, ['dkg', '--dir', net, '--members', members, '--t', '2', '--retries', '2', '--retry-wait', '90']); // prettier-ignore
    await dying.exited;
    // Its operator starts it again while the coordinator waits.
    await start(orgs[2]!, 'waiting');
    expect(await dkg.exited, dkg.output()).toBe(0);
    // The first attempt failed at round 2 for every member (none could reach guardian 3), and was
    // aborted on all; the retry ran with a new session once guardian 3 waited again.
    expect(dkg.output()).toMatch(/"event":"dkg-retry","attempt":1,.*guardian 3 \(org-c\): unreachable/); // prettier-ignore
    expect(dkg.output().match(/"event":"dkg-session"/g)).toHaveLength(2);
    const set = setOf();
    expect(Object.keys(set.signatures).sort()).toEqual(['1', '2', '3']);
    for (const org of orgs)
      expect(await waitHealthy(org.url)).toMatchObject({ state: 'ready', groupKey: set.groupKey });
    // The transcript is kept; it, like every other file, holds no member's share but its own.
    expect(existsSync(join(net, 'dkg-transcript.json'))).toBe(true);
    const dirs = [net, ...orgs.map((o) => o.dir)];
    for (const org of orgs) expect(holders(dirs, shareOf(org))).toEqual([join(org.dir, 'share.json')]); // prettier-ignore
  }, 240_000);

  it('a member that lost its disk recovers its share from its identity key and the transcript, then signs', async () => {
    const c = orgs[2]!;
    const lost = shareOf(c);
    await kill9(running.get(c.name)!);
    // Its backup: its identity key, its oracle secret and its public part; the rest is gone.
    const backup = join(root, 'backup-c');
    const kept = ['identity.json', 'oracle.json', 'guardian.json'];
    mkdirSync(backup);
    for (const f of kept) copyFileSync(join(c.dir, f), join(backup, f));
    rmSync(c.dir, { recursive: true });
    mkdirSync(c.dir, { mode: 0o700 });
    for (const f of kept) copyFileSync(join(backup, f), join(c.dir, f));
    const transcript = join(net, 'dkg-transcript.json');

    // A stranger's identity key, a transcript whose shares were altered, a directory with a share.
    const stranger = join(root, 'stranger');
    mkdirSync(stranger, { mode: 0o700 });
    ensureIdentity(join(stranger, 'identity.json'));
    expect(await cli(['recover', '--dir', stranger, '--transcript', transcript], 1)).toMatch(/this identity key is no member of the set/); // prettier-ignore
    const tampered = join(root, 'tampered.json');
    const t = JSON.parse(readFileSync(transcript, 'utf8')) as { shares: Record<string, { payload: string }[]> }; // prettier-ignore
    t.shares['3']![0]!.payload = t.shares['3']![0]!.payload.replace(/"ct":"(.)/, (_, x: string) => `"ct":"${x === '0' ? '1' : '0'}`); // prettier-ignore
    writeFileSync(tampered, JSON.stringify(t));
    const bad = await cli(['recover', '--dir', c.dir, '--transcript', tampered, '--set', join(net, 'guardian-set.json')], 1); // prettier-ignore
    expect(bad).toMatch(/The share cannot be recovered: the transcript holds no share that guardian \d signed for this guardian/); // prettier-ignore
    expect(readdirSync(c.dir).sort()).toEqual([...kept].sort());
    expect(await cli(['recover', '--dir', orgs[0]!.dir, '--transcript', transcript], 1)).toMatch(/already holds guardian-set.json, share.json; nothing was changed/); // prettier-ignore

    const out = await cli(['recover', '--dir', c.dir, '--transcript', transcript], 0);
    expect(out).toContain('"event":"share-recovered","guardian":3');
    expect(shareOf(c)).toBe(lost);
    expect(allOutput.some((line) => line.includes(lost))).toBe(false);
    await start(c, 'ready');
    // Guardian 1 stops: guardians 2 and 3 sign under the group key.
    await kill9(running.get(orgs[0]!.name)!);
    const message = randomBytes(32).toString('hex');
    const sign = await cli(['sign', '--dir', net, '--message', message], 0);
    const signed = sign.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>).find((e) => e.event === 'signed')!; // prettier-ignore
    expect(signed.signers).toEqual([2, 3]);
    const hex = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));
    expect(schnorr.verify(hex(String(signed.signature)), hex(message), hex(setOf().groupKey))).toBe(true); // prettier-ignore
  }, 180_000);
});
