// The programs the tests start as processes (the guardian CLI, the malicious guardian fixture, the
// server's `npm start` entry, the flooder, the operator's CLI), each bundled into one plain ES
// module by the suites' global setup. Started through tsx, a process spends about a second of CPU
// loading its hundred modules through the loader's hooks; its bundle starts in a third of that,
// and the suites start hundreds of them. The code is the same: the workspace's sources bundled as written (each keeps
// its own `import.meta.url`), every package from node_modules loaded as under tsx.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * Each program's source, and the workspace its bundle goes below, so the packages only that
 * workspace installs (apps/server/node_modules) resolve from the bundle as from the source.
 */
const PROGRAMS = [
  { source: 'packages/guardian-net/src/cli.ts', home: 'packages/guardian-net' },
  { source: 'packages/guardian-net/test/fixtures/evil-guardian.ts', home: 'packages/guardian-net' },
  { source: 'apps/server/src/main.ts', home: 'apps/server' },
  { source: 'apps/server/test/guardian-network/flooder.ts', home: 'apps/server' },
  { source: 'apps/server/src/operator/cli.ts', home: 'apps/server' },
] as const;
type Program = (typeof PROGRAMS)[number];
const [GUARDIAN_CLI, , SERVER] = PROGRAMS;

const bundleOf = (p: Program) =>
  join(REPO, p.home, 'node_modules/.cache/unit-test-bin', `${p.source.replace(/[/.]/g, '-')}.mjs`);
/** Beside each bundle: the source files that went into it. */
const inputsOf = (p: Program) => `${bundleOf(p)}.inputs.json`;

/**
 * Whether `p`'s bundle exists and neither a source file that went into it nor this file (how it is
 * built) changed since it was made. The server's bundle runs the guardian CLI's (see below), so it
 * is fresh only while that one is.
 */
function fresh(p: Program): boolean {
  if (!existsSync(bundleOf(p)) || !existsSync(inputsOf(p))) return false;
  const made = statSync(bundleOf(p)).mtimeMs;
  if (statSync(fileURLToPath(import.meta.url)).mtimeMs > made) return false;
  if (p === SERVER && !fresh(GUARDIAN_CLI)) return false;
  const inputs = JSON.parse(readFileSync(inputsOf(p), 'utf8')) as string[];
  return inputs.every((file) => existsSync(join(REPO, file)) && statSync(join(REPO, file)).mtimeMs <= made); // prettier-ignore
}

/** The command line that runs `script`: its bundle when it is fresh, else the source through tsx. */
export function nodeArgs(script: string): string[] {
  const program = PROGRAMS.find((p) => join(REPO, p.source) === script);
  return program && fresh(program) ? [bundleOf(program)] : ['--import', 'tsx', script];
}

/**
 * Constants a bundle is built with: the server's starts its local guardian network from the CLI's
 * bundle, not its source through tsx (apps/server/src/network-client/local-network.ts).
 */
function defines(p: Program): Record<string, string> {
  return p === SERVER ? { GUARDIAN_CLI_BUILD: JSON.stringify(bundleOf(GUARDIAN_CLI)) } : {};
}

/** The packages bundled with the workspace's code (the rest stay imports from node_modules). */
const INTO_BUNDLE = /^(@peculiar\/|reflect-metadata$|tsyringe$|asn1js$|pvtsutils$|pvutils$|tslib$)/;

/** Bundles every program whose bundle is missing or stale (the suites' global setup). */
export async function buildTestBins(): Promise<void> {
  const { build } = await import('esbuild');
  const stale = PROGRAMS.filter((p) => !fresh(p));
  await Promise.all(
    stale.map(async (p) => {
      const entry = join(REPO, p.source);
      const out = bundleOf(p);
      mkdirSync(dirname(out), { recursive: true });
      // Two suites' setups may build at once: each writes its own file, then renames it in place.
      const tmp = `${out}.${randomBytes(6).toString('hex')}.tmp`;
      const result = await build({
        entryPoints: [entry],
        outfile: tmp,
        absWorkingDir: REPO,
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        logLevel: 'warning',
        metafile: true,
        define: defines(p),
        plugins: [
          {
            name: 'workspace-only',
            setup(b) {
              // Packages stay imports, resolved when the bundle runs: only the workspace's own
              // code (relative paths, @unit/*) goes into it, and the certificate library each
              // TLS party loads at its start (a hundred small modules, a third of its load time
              // saved in one file).
              b.onResolve({ filter: /^[^./]/ }, (a) =>
                a.path.startsWith('@unit/') || INTO_BUNDLE.test(a.path)
                  ? undefined
                  : { path: a.path, external: true },
              );
              // Each module keeps its source file's URL (the server finds the repository from
              // it), but the entry's is the bundle: the guardian CLI starts its guardians from it.
              b.onLoad({ filter: /\.ts$/ }, (a) => {
                const text = readFileSync(a.path, 'utf8');
                if (a.path === entry || !text.includes('import.meta.url')) return undefined;
                const url = JSON.stringify(pathToFileURL(a.path).href);
                return { contents: text.replaceAll('import.meta.url', url), loader: 'ts' };
              });
            },
          },
        ],
      });
      renameSync(tmp, out);
      writeFileSync(inputsOf(p), JSON.stringify(Object.keys(result.metafile.inputs).sort()));
    }),
  );
}
