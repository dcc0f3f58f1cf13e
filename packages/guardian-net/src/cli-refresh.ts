// `npm run guardian -- refresh --dir <network dir> [--roster <file>] [--timeout <ms>]`: every share
// dealt again to the same members, t and coordinators, under the same group key (a resharing to the
// installed set's own roster, reshare-run.ts). Afterwards an old share combines with no new one,
// so a share that may have leaked is worth nothing against the new set. The roster is the installed
// set's next version with nothing else changed, written to `<network dir>/refresh-v<next>.json`
// (or --roster); each member's operator approves exactly it on its own machine with `approve
// --kind refresh`, and the command stops before any deal, printing what each runs, until they have.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { rosterDigest } from './approval';
import { parseSetBody, previousOf, verifySet, type GuardianSet } from './guardian-set';
import { loadIdentity } from './identity';
import { keepDeals, publishSet, sendCatchUp } from './cli-reshare';
import { ReshareFailure, runReshare } from './reshare-run';

/** The roster that deals every share of `current` again: its next version, nothing else changed. */
export function refreshRoster(current: GuardianSet) {
  const { frost: _f, groupKey: _g, signatures: _s, handover: _h, ...body } = current;
  return parseSetBody({ ...body, version: current.version + 1, previous: previousOf(current) });
}

const approveCommand = (id: number, path: string) =>
  `npm run guardian -- approve --kind refresh --dir <guardian ${id}'s own directory> --roster ${path}`;

export async function refreshCommand(
  args: string[],
  log: (event: Record<string, unknown>) => void,
): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      dir: { type: 'string' },
      roster: { type: 'string' },
      timeout: { type: 'string' },
      install: { type: 'string' },
    },
  });
  if (!values.dir) throw new Error('refresh needs --dir <network dir>.');
  if (values.install) return sendCatchUp(resolve(values.dir), Number(values.install), log);
  const dir = resolve(values.dir);
  const current = verifySet(JSON.parse(readFileSync(join(dir, 'guardian-set.json'), 'utf8')));
  const roster = refreshRoster(current);
  const rosterPath = resolve(values.roster ?? join(dir, `refresh-v${roster.version}.json`));
  if (!existsSync(rosterPath)) writeFileSync(rosterPath, JSON.stringify(roster, null, 2) + '\n');
  else if (
    rosterDigest(parseSetBody(JSON.parse(readFileSync(rosterPath, 'utf8')))) !==
    rosterDigest(roster)
  )
    // prettier-ignore
    throw new Error(
      `${rosterPath} holds another roster than the refresh of set ${current.version}; remove it, or give --roster another file.`,
    );
  for (const m of current.members)
    log({ event: 'operator-approval', guardian: m.id, command: approveCommand(m.id, rosterPath) });
  const coordinator = loadIdentity(join(dir, 'coordinator', 'identity.json'));
  const timeoutMs = values.timeout === undefined ? 15_000 : Number(values.timeout);
  if (!(timeoutMs > 0)) throw new Error('--timeout is a number of milliseconds.');
  let next: GuardianSet | undefined;
  try {
    next = await runReshare(current, roster, coordinator, { timeoutMs, log, onCertified: keepDeals(dir) }); // prettier-ignore
  } catch (e) {
    if (!(e instanceof ReshareFailure) || e.notApproved.length === 0) throw e;
    const ids = e.notApproved;
    const commands = ids.map((id) => `guardian ${id}: ${approveCommand(id, rosterPath)}`);
    throw new Error(
      `The refresh did not start: ${ids.map((id) => `guardian ${id}`).join(', ')} ${ids.length === 1 ? 'has' : 'have'} not approved this roster as a refresh. Each one's operator reads and approves it on that guardian's own machine (${commands.join('; ')}; add --yes once the summary is right), then run this refresh command again (${e.message}).`,
    );
  }
  publishSet(dir, current, next!, log, 'refresh-complete');
}
