// `npm run guardian -- repair --dir <network dir> --member <id> [--with <public part file>]
// [--roster <file>] [--helpers 1,2]`: the coordinator's repair of the guardian at seat <id>, which
// lost its share (repair-run.ts). Its operator starts it again with the identity key restored from
// its backup, or with a new one made by `guardian init` (then --with names its public part). The
// command writes the repair roster (the set's next version: the same members and key, that seat's
// identity new only with --with); each staying guardian's operator approves it on its own machine
// (`approve --kind repair`), and the command stops before any piece is sent until they have. On
// success the network directory's `guardian-set.json` is the new set and the one it replaces is
// kept as `guardian-set-v<n>.json`.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { rosterDigest } from './approval';
import { parseSetBody, verifySet, type GuardianSet, type GuardianSetBody } from './guardian-set';
import { loadIdentity } from './identity';
import { keepSetFile } from './set-files';
import { MembershipFailure, PartyRun } from './party-run';
import { repairRoster, repairRosterProblem } from './repair-roster';
import { runRepair } from './repair-run';

/** The roster at `path`: written from the options when absent, else the same one they make. */
function rosterAt(current: GuardianSet, path: string, lost: number, withPart?: string) {
  const made = repairRoster(current, lost, withPart);
  if (!existsSync(path)) {
    writeFileSync(path, JSON.stringify(made, null, 2) + '\n');
    return made;
  }
  const onDisk = parseSetBody(JSON.parse(readFileSync(path, 'utf8')));
  const problem = repairRosterProblem(current, onDisk, lost);
  if (problem) throw new Error(`${path} is no repair roster of guardian ${lost}: ${problem}.`);
  if (rosterDigest(onDisk) !== rosterDigest(made))
    throw new Error(
      `${path} holds another roster than these options make (a new identity at seat ${lost} needs --with); remove it, or write the roster elsewhere with --roster.`,
    );
  return onDisk;
}

const approveCommand = (id: number, path: string) =>
  `npm run guardian -- approve --kind repair --dir <guardian ${id}'s own directory> --roster ${path}`;

function parse(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      dir: { type: 'string' },
      member: { type: 'string' },
      with: { type: 'string' },
      roster: { type: 'string' },
      helpers: { type: 'string' },
      timeout: { type: 'string' },
      install: { type: 'string' },
    },
  });
  const lost = Number(values.member);
  if (!values.dir || !Number.isSafeInteger(lost) || lost < 1)
    throw new Error('repair needs --dir <network dir> and --member <the id of the guardian to repair>.'); // prettier-ignore
  const helpers = values.helpers?.split(',').map(Number);
  if (helpers?.some((h) => !Number.isSafeInteger(h)))
    throw new Error('--helpers lists guardian ids, separated by commas (e.g. 1,2).');
  const timeoutMs = values.timeout === undefined ? 15_000 : Number(values.timeout);
  return { ...values, dir: resolve(values.dir), lost, helpers, timeoutMs };
}

/**
 * `repair --dir <network dir> --install <id>`: the published repair set sent to a member of the
 * set it replaced that took no part (it did not answer during the repair); it keeps its own share.
 */
async function sendInstall(dir: string, id: number, log: (e: Record<string, unknown>) => void) {
  const set = verifySet(JSON.parse(readFileSync(join(dir, 'guardian-set.json'), 'utf8')));
  const before = join(dir, `guardian-set-v${set.version - 1}.json`);
  const previous = verifySet(JSON.parse(readFileSync(before, 'utf8')));
  verifySet(set, { previous });
  const member = previous.members.find((m) => m.id === id);
  if (!member) throw new Error(`--install takes an id of set ${previous.version}, not ${id}.`);
  const coordinator = loadIdentity(join(dir, 'coordinator', 'identity.json'));
  await new PartyRun('repair', previous, coordinator, 15_000).call(member, 'repair/install', { set: set as never }); // prettier-ignore
  log({ event: 'repair-install-sent', guardian: id, version: set.version });
}

export async function repairCommand(
  args: string[],
  log: (event: Record<string, unknown>) => void,
): Promise<void> {
  const install = parseArgs({ args, options: { dir: { type: 'string' }, install: { type: 'string' } }, strict: false }).values; // prettier-ignore
  if (typeof install.install === 'string' && typeof install.dir === 'string')
    return sendInstall(resolve(install.dir), Number(install.install), log);
  const o = parse(args);
  const setPath = join(o.dir, 'guardian-set.json');
  const current = verifySet(JSON.parse(readFileSync(setPath, 'utf8')));
  const rosterPath = resolve(o.roster ?? join(o.dir, `repair-v${current.version + 1}-guardian-${o.lost}.json`)); // prettier-ignore
  const roster: GuardianSetBody = rosterAt(current, rosterPath, o.lost, o.with);
  for (const m of current.members.filter((x) => x.id !== o.lost))
    log({ event: 'operator-approval', guardian: m.id, command: approveCommand(m.id, rosterPath) });
  const coordinator = loadIdentity(join(o.dir, 'coordinator', 'identity.json'));
  let next: GuardianSet | undefined;
  try {
    next = await runRepair(current, roster, o.lost, coordinator, {
      timeoutMs: o.timeoutMs,
      log,
      ...(o.helpers ? { helpers: o.helpers } : {}),
    });
  } catch (e) {
    if (!(e instanceof MembershipFailure) || e.notApproved.length === 0) throw e;
    const commands = e.notApproved.map((id) => `guardian ${id}: ${approveCommand(id, rosterPath)}`);
    throw new Error(
      `The repair did not start: ${e.notApproved.map((id) => `guardian ${id}`).join(', ')} ${e.notApproved.length === 1 ? 'has' : 'have'} not approved this roster as a repair. Each one's operator reads and approves it on that guardian's own machine (${commands.join('; ')}; add --yes once the summary is right), then run this repair command again (${e.message}).`,
    );
  }
  const kept = join(o.dir, `guardian-set-v${current.version}.json`);
  keepSetFile(setPath, kept);
  writeFileSync(setPath, JSON.stringify(next, null, 2) + '\n');
  log({
    event: 'repair-complete',
    version: next!.version,
    repaired: o.lost,
    groupKey: next!.groupKey,
    signedBy: Object.keys(next!.signatures).map(Number),
    handoverBy: Object.keys(next!.handover ?? {}).map(Number),
    set: setPath,
  });
}
