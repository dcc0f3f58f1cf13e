// `guardian`'s usage text and its usage error (cli.ts): `--help` prints the text and exits 0; a
// command line it does not take is said on stderr with exit code 2, as a shell expects.

export const USAGE = `usage:
  guardian init --dir <new guardian dir> --url <its public URL> [--name <name>]
                 (its identity key and directory only; prints its public part for the coordinator)
  guardian start --dir <guardian dir> [--id <n>: checked against its set]
                 [--port <p>, default: its URL's] [--host 127.0.0.1] [--roster <roster.json>]
                 [--coordinator <identity key>: before its first set, join a roster from this coordinator only]
                 [--policy vault|approve-all|refuse-all] [--chain <esplora URL> --app <app origin>: the vault policy's views]
                 [--oracle-key <hex> --rune-id <block:tx> --network <name>: pinned, else read from --app; the treasury is the group key's]
                 [--max-fee-rate <sat/vB>, 500: the most an operator's treasury split may pay]
                 [--feeds kind@url,..., default: <guardian dir>/feeds.txt] [--price-tick <ms>, 30000] [--feed-timeout <ms>, 5000]
                 [--max-spread <basis points>, 300: how far the fresh feeds may spread around their median]
                 [--database-url-file <file holding a postgres:// URL>, default: <guardian dir>/database-url if
                  present: its store in its own PostgreSQL database, else <guardian dir>/store.sqlite]
                 [--exit-with-parent: stop when the process that started it is gone]
                 [--insecure-plain-http: allow an http:// URL, plain connections, for local development only]
  guardian coordinator-key --dir <network dir>   (the coordinator's identity key, made if absent)
  guardian dkg --dir <network dir> --members <file of the members' public parts> [--t 2]
                 [--retries <n>, 0: runs again, with a fresh session, after a member crashed or timed out]
                 [--retry-wait <s>, 120: how long each retry waits for every member to wait for a roster again]
                 (the coordinator, holding only its identity, runs the first DKG among running guardians,
                  once each guardian's operator approved its roster with approve --kind dkg)
  guardian dkg --dir <network dir> [--n 3] [--t 2] [--base-port 7401, 0: free ports] [--exit-with-parent]
                 (the same on one machine: init each guardian-<i>, start them, run the DKG)
  guardian local --dir <network dir> [--n 3] [--t 2] [--base-port 7401] [--exit-with-parent] [any start flag, given to every guardian]
                 (dkg if needed, then run all n; on https://127.0.0.1 loopback URLs, each link TLS)
                 dkg, local and rotate take --insecure-plain-http: http:// URLs, for local development only
  guardian sign --dir <network dir> --message <32-byte hex> [--threshold-cents <n>: a liquidation]
  guardian price --dir <network dir>   (each guardian's signed price and the quorum)
  guardian rotate --dir <network dir> --next-dir <dir> [--replace <id>,...] [--n N] [--t T] [--base-port <first new member's port>]
                 [--approve-local: this operator runs every staying guardian from <network dir>/guardian-<id>]
                 (the next set by a new DKG, handed over by the running current set, once each staying guardian's operator approved it)
  guardian approve --dir <this guardian's dir> --roster <roster.json> [--kind dkg|rotation|reshare|refresh|repair] [--yes]
                 (run on the guardian's own machine: shows what the roster changes; --yes records the approval)
  guardian reshare --dir <network dir> --roster <roster.json> [--replace <id> --with <new guardian's public part file>] [--timeout <ms>]
                 (the same group key to a new roster: dealt by t running members that stay, once each staying guardian's operator approved it with --kind reshare)
  guardian refresh --dir <network dir> [--roster <file>] [--timeout <ms>]
                 (every share dealt again to the same members under the same group key; old shares combine with no new one;
                  once each guardian's operator approved the roster with --kind refresh)
  guardian repair --dir <network dir> --member <id> [--with <its new public part file>] [--roster <file>] [--helpers 1,2] [--timeout <ms>]
                 (the lost share of guardian <id>, started again with its identity key, rebuilt by t running members
                  that never see it, once each staying guardian's operator approved the roster with --kind repair;
                  the helpers are t members that answer unless --helpers names them)
  guardian reshare|refresh --dir <network dir> --install <id>
                 (the published set sent to a staying member that missed its install, with its own signed deals)
  guardian repair --dir <network dir> --install <id>
                 (the published repair set sent to a member that missed the repair; it keeps its own share)
  guardian recover --dir <guardian dir> --transcript <the DKG transcript file> [--set <the DKG's set file>]
                 (a guardian that lost its share after a DKG rebuilds it from its identity key and the public transcript)`;

export class UsageError extends Error {}
