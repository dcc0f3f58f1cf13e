// A guardian's approvals on disk: `<guardian dir>/approvals/<change>-v<next version>-<roster
// digest>.json`, each 0600 in a 0700 folder, written only by its operator's `approve` command
// (approve.ts). A file that others could read or write is refused like a secret file, so no other
// user of the machine can slip an approval in.
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ApprovalRecord, FoundApproval, MembershipChange } from './approval';
import { readSecretFile, writeSecretFile } from './secret-file';

export const APPROVALS_DIR = 'approvals';
/** Files read per change: the newest this many (an operator approves a handful in a lifetime). */
const MAX_FILES = 32;
const MAX_FILE_BYTES = 64 * 1024;

export function approvalPath(dir: string, record: ApprovalRecord): string {
  const name = `${record.change}-v${record.nextVersion}-${record.rosterDigest}.json`;
  return join(dir, APPROVALS_DIR, name);
}

/** Writes the record (0600) into the guardian's own `approvals/` (0700); returns its path. */
export function writeApproval(dir: string, record: ApprovalRecord): string {
  mkdirSync(join(dir, APPROVALS_DIR), { recursive: true, mode: 0o700 });
  const path = approvalPath(dir, record);
  writeSecretFile(path, JSON.stringify(record, null, 2) + '\n');
  return path;
}

/** Every approval file of `change` in the guardian's directory, parsed, or why it is not. */
export function readApprovals(dir: string, change: MembershipChange): FoundApproval[] {
  const folder = join(dir, APPROVALS_DIR);
  if (!existsSync(folder)) return [];
  const pattern = new RegExp(`^${change}-v[0-9]{1,10}-[0-9a-f]{64}\\.json$`);
  const names = readdirSync(folder)
    .filter((name) => pattern.test(name))
    .map((name) => ({ name, mtime: statSync(join(folder, name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime)
    .slice(0, MAX_FILES);
  return names.map(({ name }) => {
    const file = `${APPROVALS_DIR}/${name}`;
    try {
      if (statSync(join(folder, name)).size > MAX_FILE_BYTES) throw new Error('is too large');
      return { file, record: JSON.parse(readSecretFile(join(folder, name))) as unknown };
    } catch (e) {
      return { file, error: (e as Error).message };
    }
  });
}
