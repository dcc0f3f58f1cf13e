// A guardian's side of one-round signing: its preprocessed commitments handed out ahead of time
// (`sign/preprocess`), and a request decided and signed in one message (`sign/once`) over a list
// that carries one of them. The checks, cheapest first: the list's shape (t entries of distinct
// guardians of the set, its own among them); its own entry an unused commitment it issued to this
// coordinator; then its policy's decision (an approval already on record for the session stands:
// one validation per session, and the vault policy keeps one per request); then the nonce taken out
// of memory and recorded spent, before the share exists. A refusal burns the commitment.
import { bytesToHex, parseHex } from './canonical';
import { commitmentsToJson } from './frost';
import type { MessageBody } from './messages';
import { parseSession, signingList, type SigningRounds } from './signing-rounds';
import { signShare } from './sign-share';
import { ProtocolError } from './envelope';

/** `sign/preprocess`: a batch of fresh commitments for the coordinator `from`, and this run's epoch. */
export async function preprocess(
  rounds: SigningRounds,
  from: string,
  body: MessageBody<'sign/preprocess'>,
): Promise<unknown> {
  const ready = rounds.o.ready();
  const commitments = await rounds.pre.batch(ready, from, body.count);
  const { tamperCommitments } = rounds.o;
  return {
    epoch: rounds.pre.epoch,
    commitments: tamperCommitments ? commitments.map(tamperCommitments) : commitments,
  };
}

/** `sign/once`: decide the request and, approved, sign it over the list in the same answer. */
export async function signOnce(
  rounds: SigningRounds,
  from: string,
  body: MessageBody<'sign/once'>,
): Promise<unknown> {
  const { share, pub, set } = rounds.o.ready();
  const { sessionId } = parseSession(body);
  const message = parseHex(body.message, 32, 'message');
  const commitments = signingList(body.commitments, set, share.identifier);
  const mine = commitmentsToJson(commitments.find((c) => c.identifier === share.identifier)!);
  if (!rounds.pre.holds(from, mine))
    throw new ProtocolError(
      'nonce-unavailable',
      'the list does not carry an unused commitment this guardian preprocessed for this coordinator',
      409,
    );
  const answer = await rounds.decided(sessionId, message, body.context);
  if (!answer.approved) {
    await rounds.pre.burn(from, mine);
    return answer;
  }
  // Taken out of memory and recorded spent before the share exists: a crash from here on can only
  // lose the share. Throws when another request took it meanwhile.
  const nonces = await rounds.pre.spend(from, mine);
  const signed = signShare(rounds.keyOf(share, pub), nonces, commitments, message);
  const { tamperShare } = rounds.o;
  rounds.lastShareAt = Date.now();
  rounds.o.log({ event: 'share', sessionId, attempt: 'preprocessed' });
  return {
    approved: true,
    reason: null,
    share: bytesToHex(tamperShare ? tamperShare(signed.share) : signed.share),
    rx: bytesToHex(signed.rx),
  };
}
