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
import { CHANGE_OPTIONS, runKeptKeyChange, sendCatchUp } from './cli-reshare';

/** The roster that deals every share of `current` again: its next version, nothing else changed. */
export function refreshRoster(current: GuardianSet) {
  const { frost: _f, groupKey: _g, signatures: _s, handover: _h, ...body } = current;
  return parseSetBody({ ...body, version: current.version + 1, previous: previousOf(current) });
}

export async function refreshCommand(
  args: string[],
  log: (event: Record<string, unknown>) => void,
): Promise<void> {
  const { values } = parseArgs({ args, options: CHANGE_OPTIONS });
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
  const approvers = current.members;
  const { timeout } = values;
  const change = { kind: 'refresh', noun: 'refresh', dir, current, roster, rosterPath, approvers, timeout } as const; // prettier-ignore
  await runKeptKeyChange(change, log);
}
