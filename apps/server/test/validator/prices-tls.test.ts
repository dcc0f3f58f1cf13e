// The open validator reads an https:// guardian's kept prices only over a link pinned to the
// identity key its published set names (readPublic, as every party of the set reads another): the
// guardian's own machine answers; another machine at its URL, whose certificate another identity
// made, is never believed; and an https:// guardian no set names is not read at all.
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { newIdentity, type Identity } from '@unit/guardian-net';
import { makeTlsCredentials } from '../../../../packages/guardian-net/src/tls-identity';
import { serverTlsOptions } from '../../../../packages/guardian-net/src/tls-link';
import { readKeptPrices } from '../../src/validator/prices';

const COMMITMENT = 'ab'.repeat(32);
const KEPT = { commitment: COMMITMENT, prices: [{ guardian: 1 }] };
const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

/** A TLS server with `identity`'s certificate, serving the kept prices at their path. */
async function guardianServer(identity: Identity): Promise<string> {
  const tls = await makeTlsCredentials(identity);
  const server = createServer(serverTlsOptions(tls), (req, res) => {
    res.statusCode = req.url?.endsWith(COMMITMENT) ? 200 : 404;
    res.end(JSON.stringify(KEPT));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  closers.push(() => server.close());
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("the validator's read of an https:// guardian's kept prices", () => {
  it('reads the guardian its set names, refuses another machine, and skips an unnamed one', async () => {
    const [guardian, impostor] = [newIdentity(), newIdentity()];
    const real = await guardianServer(guardian);
    const fake = await guardianServer(impostor);
    expect(await readKeptPrices(real, COMMITMENT, 2_000, guardian.publicKey)).toEqual({
      json: KEPT,
    });
    expect(await readKeptPrices(real, 'cd'.repeat(32), 2_000, guardian.publicKey)).toEqual({
      none: 'keeps none',
    });
    // Its certificate is bound to another key than the set names: nothing it says is read.
    expect(await readKeptPrices(fake, COMMITMENT, 2_000, guardian.publicKey)).toEqual({
      none: 'is unreachable',
    });
    expect(await readKeptPrices(real, COMMITMENT, 2_000)).toEqual({
      none: expect.stringMatching(
        /^was not read: it is https:\/\/ and no guardian set given names/,
      ),
    });
  });
});
