// A guardian made by its own operator, on its own machine: `guardian init` writes its directory
// (0700) with its identity key (0600) and `guardian.json`, its public part (name, identity key,
// URL), and prints that public part for the network's coordinator. Nothing else of the network is
// there until a DKG it joins installs its share and the published set.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureIdentity } from './identity';
import { writeSecretFile } from './secret-file';

export const PUBLIC_FILE = 'guardian.json';

/** What a guardian's operator hands the coordinator: nothing secret. */
export interface PublicPart {
  name: string;
  identityKey: string;
  url: string;
}

/** Files whose presence means the directory already holds a guardian. */
const GUARDIAN_FILES =
  /^(identity\.json|guardian\.json|share(-v\d+)?\.json|guardian-set(-v\d+)?\.json|store\.sqlite)$/;

const NAME_RE = /^[\w .-]{1,40}$/;
const NAME_RULE = 'a name is 1 to 40 letters, digits, spaces, dots, dashes or underscores';

export function checkUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(
      `--url ${url} is not a URL; give the address the other parties reach this guardian at, such as https://guardian.example.org:7401`,
    );
  }
  if (!/^https?:$/.test(parsed.protocol) || parsed.pathname !== '/' || parsed.search || parsed.hash)
    throw new Error(
      `--url ${url} must be an http(s) origin with no path, such as https://guardian.example.org:7401`,
    );
  return url.replace(/\/$/, '');
}

function writePublicPart(dir: string, part: PublicPart): PublicPart {
  writeSecretFile(join(dir, PUBLIC_FILE), JSON.stringify(part, null, 2) + '\n');
  return part;
}

/** `guardian init`: a new guardian's directory, refused where one already is. */
export function initGuardian(dir: string, url: string, name?: string): PublicPart {
  const checked = checkUrl(url);
  if (name !== undefined && !NAME_RE.test(name)) throw new Error(`--name: ${NAME_RULE}`);
  const taken = existsSync(dir) ? readdirSync(dir).filter((f) => GUARDIAN_FILES.test(f)) : [];
  if (taken.length > 0)
    throw new Error(
      `${dir} already holds a guardian (${taken.join(', ')}); nothing was changed. Give init a new ` +
        'directory, or start the guardian that is there with `guardian start --dir`.',
    );
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const identity = ensureIdentity(join(dir, 'identity.json'));
  return writePublicPart(dir, {
    name: name ?? `guardian-${identity.publicKey.slice(0, 8)}`,
    identityKey: identity.publicKey,
    url: checked,
  });
}

/**
 * The embedded network's guardians go through the same files: a directory made by init, or one
 * made before `guardian.json` existed; its identity is kept and its public part (re)written, so a
 * DKG retried on other free ports names each guardian's current URL.
 */
export function ensureGuardianDir(dir: string, url: string, name: string): PublicPart {
  if (!existsSync(join(dir, 'identity.json'))) return initGuardian(dir, url, name);
  const identity = ensureIdentity(join(dir, 'identity.json'));
  return writePublicPart(dir, { name, identityKey: identity.publicKey, url: checkUrl(url) });
}

/** The directory's public part, or null when it has none (a guardian made before init). */
export function readPublicPart(dir: string): PublicPart | null {
  const file = join(dir, PUBLIC_FILE);
  if (!existsSync(file)) return null;
  return parsePublicPart(JSON.parse(readFileSync(file, 'utf8')), file);
}

export function parsePublicPart(raw: unknown, where: string): PublicPart {
  const r = (raw ?? {}) as Record<string, unknown>;
  if (typeof r.identityKey !== 'string' || !/^[0-9a-f]{64}$/.test(r.identityKey))
    throw new Error(`${where}: identityKey must be 32 bytes of hex (what guardian init printed)`);
  if (typeof r.url !== 'string') throw new Error(`${where}: url is missing`);
  if (typeof r.name !== 'string' || !NAME_RE.test(r.name))
    throw new Error(`${where}: ${NAME_RULE}`);
  return { name: r.name, identityKey: r.identityKey, url: checkUrl(r.url) };
}
