// Writes the protocol test vectors of docs/vectors/ from the code (npm run vectors). Each package's
// vectors test checks its code against these files, so after a deliberate change of an encoding or
// a rule, run this, review the diff of docs/vectors/ and commit it with the change.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { ledgerDigestVectors, stateRecordVectors } from '../packages/bitcoin/test/vectors/records';
import { runestoneVectors } from '../packages/bitcoin/test/vectors/runestones';
import { vaultScriptVectors } from '../packages/bitcoin/test/vectors/vault-scripts';
import { guardianMessageVectors } from '../packages/guardian-net/test/vectors/messages';
import { specRuleVectors } from '../packages/protocol/test/vectors/spec-rules';

const FILES: Record<string, () => unknown | Promise<unknown>> = {
  'spec-rules.json': specRuleVectors,
  'vault-scripts.json': vaultScriptVectors,
  'state-records.json': stateRecordVectors,
  'ledger-digest.json': ledgerDigestVectors,
  'runestones.json': runestoneVectors,
  'guardian-messages.json': guardianMessageVectors,
};

const dir = fileURLToPath(new URL('../docs/vectors/', import.meta.url));
for (const [name, build] of Object.entries(FILES)) {
  const path = `${dir}${name}`;
  const options = (await resolveConfig(path)) ?? {};
  const text = await format(JSON.stringify(await build()), { ...options, parser: 'json' });
  await writeFile(path, text);
  console.log(`wrote docs/vectors/${name}`);
}
