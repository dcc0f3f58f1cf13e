// `npm run exit -- --chain <esplora URL> --vault <vault id or address> [--to <address>
//   --key-file <file> | --pubkey <hex>] [--fee-rate <sat/vB>] [--broadcast]`
// The owner's exit from the chain alone: without --to it shows the vault's leaves and when its exit
// opens; with --to and --key-file it signs the exit (and sends it with --broadcast); with --pubkey
// it prints the unsigned PSBT for another wallet to sign.
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ExitError, EsploraError } from '@unit/bitcoin';
import { runExit } from './run';

const USAGE =
  'Usage: npm run exit -- --chain <esplora URL> --vault <vault id or address> [--to <address> (--key-file <file> | --pubkey <hex>)] [--fee-rate <sat/vB>] [--broadcast]';

export async function main(
  argv: string[],
  out = console.log,
  err = console.error,
): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        chain: { type: 'string' },
        vault: { type: 'string' },
        to: { type: 'string' },
        'key-file': { type: 'string' },
        pubkey: { type: 'string' },
        'fee-rate': { type: 'string' },
        broadcast: { type: 'boolean' },
      },
    }));
  } catch (error) {
    err(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (!values.chain || !values.vault) {
    err(`Give the chain's esplora URL and the vault.\n${USAGE}`);
    return 2;
  }
  const feeRate = values['fee-rate'] === undefined ? undefined : Number(values['fee-rate']);
  try {
    const result = await runExit({
      chain: values.chain,
      vault: values.vault,
      ...(values.to ? { to: values.to } : {}),
      ...(values['key-file'] ? { keyFile: values['key-file'] } : {}),
      ...(values.pubkey ? { pubkey: values.pubkey } : {}),
      ...(feeRate === undefined ? {} : { feeRate }),
      broadcast: values.broadcast === true,
    });
    for (const line of result.lines) out(line);
    if (result.psbtBase64) out(`psbt           ${result.psbtBase64}`);
    else if (result.txHex && !result.txid) out(`signed         ${result.txHex}`);
    return 0;
  } catch (error) {
    if (error instanceof ExitError || error instanceof EsploraError) {
      err(error.message);
      return 1;
    }
    throw error;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  process.exitCode = await main(process.argv.slice(2));
