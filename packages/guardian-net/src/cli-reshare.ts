// `npm run guardian -- reshare --dir <network dir> --roster <roster.json> [--replace <id> --with
// <public part file>]`: the coordinator's resharing to a new roster with the same group key
// (reshare-run.ts). With --replace and --with it first writes the roster that gives seat <id> to
// the guardian whose public part (`guardian init`'s output) is in the file. Each staying guardian's
// operator approves that roster on its own machine (`approve --kind reshare`); the command prints
// what each runs, and stops before any deal when one has not. On success the network directory's
// `guardian-set.json` is the new set and the one it replaces is kept as `guardian-set-v<n>.json`.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { rosterDigest } from './approval';
import { parsePublicPart } from './guardian-init';
import {
  parseSetBody,
  previousOf,
  verifySet,
  type GuardianSet,
  type GuardianSetBody,
} from './guardian-set';
import { loadIdentity } from './identity';
import { keepSetFile } from './set-files';
import { PartyRun } from './party-run';
import {
  checkReshareRoster,
  ReshareFailure,
  runReshare,
  stayingSeats,
  type ReshareDeals,
} from './reshare-run';

/** The roster that gives seat `id` of `current` to the guardian of `partFile`, version + 1. */
export function replaceRoster(current: GuardianSet, id: number, partFile: string): GuardianSetBody {
  if (!current.members.some((m) => m.id === id))
    throw new Error(
      `--replace takes an id of set ${current.version} (1..${current.n}), not ${id}.`,
    );
  const part = parsePublicPart(JSON.parse(readFileSync(partFile, 'utf8')), partFile);
  const { frost: _f, groupKey: _g, signatures: _s, handover: _h, ...body } = current;
  return parseSetBody({
    ...body,
    version: current.version + 1,
    members: current.members.map((m) => (m.id === id ? { id, ...part } : m)),
    previous: previousOf(current),
  });
}

function rosterFrom(current: GuardianSet, path: string, replace?: string, withPart?: string) {
  if (replace === undefined && withPart === undefined) {
    if (!existsSync(path))
      throw new Error(
        `${path} does not exist; write it, or give --replace <id> --with <public part file>.`,
      );
    return checkReshareRoster(current, JSON.parse(readFileSync(path, 'utf8')));
  }
  if (replace === undefined || withPart === undefined)
    throw new Error(
      '--replace and --with go together: the seat, and the public part of the guardian that takes it.',
    );
  const roster = checkReshareRoster(current, replaceRoster(current, Number(replace), withPart));
  if (!existsSync(path)) writeFileSync(path, JSON.stringify(roster, null, 2) + '\n');
  else if (
    rosterDigest(checkReshareRoster(current, JSON.parse(readFileSync(path, 'utf8')))) !==
    rosterDigest(roster)
  )
    throw new Error(
      `${path} holds another roster than these options make; give it without --replace, or write the roster elsewhere.`,
    );
  return roster;
}

/** The options `reshare` and `refresh` both take. */
export const CHANGE_OPTIONS = {
  dir: { type: 'string' },
  roster: { type: 'string' },
  timeout: { type: 'string' },
  install: { type: 'string' },
} as const;

/** A resharing with the same key as the operators approve it: a `reshare`, or a `refresh`. */
export interface KeptKeyChange {
  kind: 'reshare' | 'refresh';
  /** how its messages name it */
  noun: string;
  dir: string;
  current: GuardianSet;
  roster: GuardianSetBody;
  rosterPath: string;
  /** the members whose operators approve the roster on their own machines */
  approvers: readonly { id: number }[];
  timeout: string | undefined;
}

const approveCommand = (kind: string, id: number, path: string) =>
  `npm run guardian -- approve --kind ${kind} --dir <guardian ${id}'s own directory> --roster ${path}`;

/**
 * Prints what each approver's operator runs, deals `roster` from `current`, and publishes the new
 * set; it stops before any deal, saying who has not approved and what they run, until all have.
 */
export async function runKeptKeyChange(
  change: KeptKeyChange,
  log: (event: Record<string, unknown>) => void,
): Promise<void> {
  const { kind, noun, dir, current, roster, rosterPath } = change;
  for (const m of change.approvers)
    log({ event: 'operator-approval', guardian: m.id, command: approveCommand(kind, m.id, rosterPath) }); // prettier-ignore
  const coordinator = loadIdentity(join(dir, 'coordinator', 'identity.json'));
  const timeoutMs = change.timeout === undefined ? 15_000 : Number(change.timeout);
  if (!(timeoutMs > 0)) throw new Error('--timeout is a number of milliseconds.');
  let next: GuardianSet | undefined;
  try {
    next = await runReshare(current, roster, coordinator, { timeoutMs, log, onCertified: keepDeals(dir) }); // prettier-ignore
  } catch (e) {
    if (!(e instanceof ReshareFailure) || e.notApproved.length === 0) throw e;
    const ids = e.notApproved;
    const commands = ids.map((id) => `guardian ${id}: ${approveCommand(kind, id, rosterPath)}`);
    throw new Error(
      `The ${noun} did not start: ${ids.map((id) => `guardian ${id}`).join(', ')} ${ids.length === 1 ? 'has' : 'have'} not approved this roster as a ${kind}. Each one's operator reads and approves it on that guardian's own machine (${commands.join('; ')}; add --yes once the summary is right), then run this ${kind} command again (${e.message}).`,
    );
  }
  publishSet(dir, current, next!, log, `${kind}-complete`);
}

export async function reshareCommand(
  args: string[],
  log: (event: Record<string, unknown>) => void,
): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { ...CHANGE_OPTIONS, replace: { type: 'string' }, with: { type: 'string' } },
  });
  if (values.dir && values.install) return sendCatchUp(resolve(values.dir), Number(values.install), log); // prettier-ignore
  if (!values.dir || !values.roster)
    throw new Error('reshare needs --dir <network dir> and --roster <roster.json>.');
  const dir = resolve(values.dir);
  const rosterPath = resolve(values.roster);
  const setPath = join(dir, 'guardian-set.json');
  const current = verifySet(JSON.parse(readFileSync(setPath, 'utf8')));
  const roster = rosterFrom(current, rosterPath, values.replace, values.with);
  // Every member of the roster approves it on its own machine: a new one as it joins, too.
  const approvers = roster.members;
  const { timeout } = values;
  const change = { kind: 'reshare', noun: 'resharing', dir, current, roster, rosterPath, approvers, timeout } as const; // prettier-ignore
  await runKeptKeyChange(change, log);
}

/** The network directory's `guardian-set.json` becomes `next`; the one it replaces is kept. */
export function publishSet(
  dir: string,
  current: GuardianSet,
  next: GuardianSet,
  log: (event: Record<string, unknown>) => void,
  event = 'reshare-complete',
): void {
  const setPath = join(dir, 'guardian-set.json');
  const kept = join(dir, `guardian-set-v${current.version}.json`);
  keepSetFile(setPath, kept);
  writeFileSync(setPath, JSON.stringify(next, null, 2) + '\n');
  log({
    event,
    version: next.version,
    groupKey: next.groupKey,
    handoverBy: Object.keys(next.handover ?? {}).map(Number),
    signedBy: Object.keys(next.signatures).map(Number),
    set: setPath,
  });
}

/** Where `keepDeals` writes a resharing's signed deals (sealed to their members) in `dir`. */
const dealsFile = (dir: string, version: number) => join(dir, `reshare-deals-v${version}.json`);

/** Writes the certified set's deals, before any install, for a member that misses it. */
export function keepDeals(dir: string): (set: GuardianSet, deals: ReshareDeals) => void {
  return (set, deals) => writeFileSync(dealsFile(dir, set.version), JSON.stringify(deals) + '\n');
}

/**
 * `reshare|refresh --dir <network dir> --install <id>`: the published set sent to a member that
 * missed its install, with its own signed deals; it rebuilds its new share from them. A new member
 * (no set yet) is also sent the set it was dealt from, which names this coordinator.
 */
export async function sendCatchUp(
  dir: string,
  id: number,
  log: (e: Record<string, unknown>) => void,
): Promise<void> {
  const set = verifySet(JSON.parse(readFileSync(join(dir, 'guardian-set.json'), 'utf8')));
  const before = join(dir, `guardian-set-v${set.version - 1}.json`);
  const previous = verifySet(JSON.parse(readFileSync(before, 'utf8')));
  verifySet(set, { previous });
  const member = set.members.find((m) => m.id === id);
  const staying = stayingSeats(previous, set).some((m) => m.id === id);
  const isNew = !previous.members.some((m) => m.identityKey === member?.identityKey);
  if (!member || (!staying && !isNew))
    throw new Error(`--install takes the id of a member of set ${set.version} that kept its seat of set ${previous.version} or is new in it, not ${id}.`); // prettier-ignore
  const record = JSON.parse(readFileSync(dealsFile(dir, set.version), 'utf8')) as ReshareDeals;
  if (record.kind !== 'unit/reshare-deals' || record.version !== set.version)
    throw new Error(`${dealsFile(dir, set.version)} holds no deals of set ${set.version}.`);
  const deals = record.deals[String(id)] ?? [];
  const body = { session: record.session, set, ...(isNew ? { current: previous } : {}), dealers: record.dealers, deals }; // prettier-ignore
  const coordinator = loadIdentity(join(dir, 'coordinator', 'identity.json'));
  await new PartyRun('resharing', previous, coordinator, 15_000).call(member, 'reshare/catch-up', body as never); // prettier-ignore
  log({ event: 'reshare-install-sent', guardian: id, version: set.version });
}
