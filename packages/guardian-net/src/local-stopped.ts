// The guardians `guardian local` has stopped restarting (cli.ts, RestartPolicy), in the network's
// directory, so whoever shows the network (the app's GET /api/network) says "stopped" and why,
// rather than "offline" as if it were coming back. Cleared when `local` starts again.
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';

export const LOCAL_STOPPED_FILE = 'local-stopped.json';
/** n guardians' lines at most; a larger file is not read. */
const MAX_BYTES = 64 * 1024;

const stoppedSchema = z.array(
  z.object({
    guardian: z.number().int().positive(),
    reason: z.string().max(1_000),
    message: z.string().max(2_000),
    at: z.number().int().nonnegative(),
  }),
);
export type StoppedGuardian = z.infer<typeof stoppedSchema>[number];

/** The guardians stopped in `dir`'s network; none when the file is missing, too large or unreadable. */
export function readStopped(dir: string): StoppedGuardian[] {
  const file = join(dir, LOCAL_STOPPED_FILE);
  try {
    if (!existsSync(file) || statSync(file).size > MAX_BYTES) return [];
    const parsed = stoppedSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

/** Adds (or replaces) a guardian's entry, written whole through a temporary file. */
export function recordStopped(dir: string, entry: Omit<StoppedGuardian, 'at'>): void {
  const entries = readStopped(dir).filter((e) => e.guardian !== entry.guardian);
  entries.push({
    guardian: entry.guardian,
    reason: entry.reason.slice(0, 1_000),
    message: entry.message.slice(0, 2_000),
    at: Math.floor(Date.now() / 1000),
  });
  const file = join(dir, LOCAL_STOPPED_FILE);
  writeFileSync(`${file}.tmp`, JSON.stringify(entries, null, 2) + '\n', { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

/**
 * A guardian `guardian local` no longer restarts: recorded in the network's stopped file, and the
 * one error line to log, saying which guardian, why (its own last error line) and what to do.
 */
export function guardianStopped(
  dir: string,
  guardianDir: string,
  o: { guardian: number; failures: number; reason: string | null },
): Record<string, unknown> {
  const message =
    `guardian ${o.guardian} stopped: it failed ${o.failures} times in a row right after starting, and is not started again. ` +
    `Its last error: ${o.reason ?? 'none written'}. ` +
    `If its directory ${guardianDir} was lost, restore it from this guardian's backup ` +
    `(identity.json, oracle.json, share*.json, guardian-set*.json), then restart the network.`;
  recordStopped(dir, { guardian: o.guardian, reason: o.reason ?? 'no error line', message });
  return { event: 'guardian-stopped', level: 'error', ...o, message };
}
