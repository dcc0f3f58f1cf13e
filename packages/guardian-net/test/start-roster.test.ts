// `guardian start --roster <file>` joins that roster's DKG only when the guardian's own operator
// approved exactly it in the guardian's directory (`approve --kind dkg`), as a first roster sent by
// a coordinator must be: real `guardian init` directories and `guardian start` processes.
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { parseSetBody, type GuardianSetBody } from '../src/guardian-set';
import { newIdentity } from '../src/identity';
import {
  CLI,
  freePorts,
  kill9,
  run,
  waitHealthy,
  type Proc,
  plainLinksInThisFile,
} from './harness';

plainLinksInThisFile();

const dir = mkdtempSync(join(tmpdir(), 'guardian-start-roster-'));
const procs: Proc[] = [];

afterAll(async () => {
  await Promise.all(procs.map((p) => (p.child.exitCode === null ? kill9(p) : null)));
  rmSync(dir, { recursive: true, force: true });
});

const cli = async (args: string[], code: number) => {
  const p = run(CLI, args);
  expect(await p.exited, p.output()).toBe(code);
  return p.output();
};

/** A guardian made by `guardian init`, and a 2-of-2 roster naming it beside a stranger. */
async function guardian(name: string, port: number, version = 0) {
  const g = join(dir, name);
  await cli(['init', '--dir', g, '--url', `http://127.0.0.1:${port}`, '--name', name], 0);
  const own = JSON.parse(readFileSync(join(g, 'guardian.json'), 'utf8')) as Record<string, string>; // prettier-ignore
  const other = { id: 2, name: 'other', identityKey: newIdentity().publicKey, url: 'http://127.0.0.1:9' }; // prettier-ignore
  const previous = { version: version - 1, groupKey: newIdentity().publicKey, digest: randomBytes(32).toString('hex') }; // prettier-ignore
  const roster = parseSetBody({
    kind: 'unit/guardian-set',
    version,
    t: 2,
    n: 2,
    members: [{ id: 1, ...own }, other],
    coordinators: [{ name: 'coordinator', identityKey: newIdentity().publicKey }],
    ...(version > 0 ? { previous } : {}),
  });
  const file = (r: GuardianSetBody, f = `${name}-roster.json`) => {
    writeFileSync(join(dir, f), JSON.stringify(r));
    return join(dir, f);
  };
  const start = () => run(CLI, ['start', '--dir', g, '--roster', file(roster), '--port', String(port)]); // prettier-ignore
  return { g, roster, file, start };
}

describe('guardian start --roster', () => {
  it('joins a first roster only once its own operator approved exactly it', async () => {
    const port = await freePorts(1);
    const { g, roster, file, start } = await guardian('first', port);
    const refused = start();
    expect(await refused.exited).toBe(1);
    expect(refused.output()).toMatch(/This guardian does not join the roster of .*first-roster\.json: not approved: this guardian’s operator has not approved the first DKG of this roster \(roster digest [0-9a-f]{64}\); its operator approves it on the guardian’s own machine with `npm run guardian -- approve --kind dkg/); // prettier-ignore
    // An approval of another roster (the other member at another URL) does not cover it.
    const moved = { ...roster, members: roster.members.map((m) => (m.id === 2 ? { ...m, url: 'http://127.0.0.1:10' } : m)) }; // prettier-ignore
    await cli(['approve', '--kind', 'dkg', '--dir', g, '--roster', file(moved, 'other.json'), '--yes'], 0); // prettier-ignore
    const other = start();
    expect(await other.exited).toBe(1);
    expect(other.output()).toMatch(/approves another roster \(its members differ\)/);
    expect(existsSync(join(g, 'share.json')) || existsSync(join(g, 'guardian-set.json'))).toBe(false); // prettier-ignore

    await cli(['approve', '--kind', 'dkg', '--dir', g, '--roster', file(roster), '--yes'], 0);
    const joined = start();
    procs.push(joined);
    expect(await waitHealthy(`http://127.0.0.1:${port}`)).toMatchObject({ state: 'dkg', setVersion: 0 }); // prettier-ignore
  }, 60_000);

  it("a rotation's new member joins its DKG only with its operator's approval of that roster", async () => {
    const port = await freePorts(1);
    const { g, file, start } = await guardian('rotation', port, 3);
    const refused = start();
    expect(await refused.exited).toBe(1);
    expect(refused.output()).toMatch(/not approved: this guardian’s operator has not approved the DKG to set 3 of this roster/); // prettier-ignore
    const summary = await cli(['approve', '--kind', 'dkg', '--dir', g, '--roster', file(parseSetBody(JSON.parse(readFileSync(join(dir, 'rotation-roster.json'), 'utf8'))))], 0); // prettier-ignore
    expect(summary).toContain(
      'DKG of a rotation to set 3 (a new group key), joined as a new member',
    );
    await cli(['approve', '--kind', 'dkg', '--dir', g, '--roster', join(dir, 'rotation-roster.json'), '--yes'], 0); // prettier-ignore
    const joined = start();
    procs.push(joined);
    expect(await waitHealthy(`http://127.0.0.1:${port}`)).toMatchObject({ state: 'dkg', setVersion: 3 }); // prettier-ignore
  }, 60_000);
});
