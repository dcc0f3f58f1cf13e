// The co-signed step of a request (pipeline.ts): the request row moves to 'cosigned' with its
// transaction, and in network mode the quote's signed guardian prices are kept under the
// commitment the transaction's state record ends with (store/price-quorums.ts), in one
// transaction: a co-signed record whose quorum an auditor could not look up never exists.
import type { Kysely } from 'kysely';
import type { GuardianPriceDto } from '@unit/protocol/wire';
import type { Database } from '../store';
import { recordPriceQuorum } from '../store/price-quorums';
import { advanceOwnedRequest } from './ownership';

/** False when the request is no longer this instance's (ownership.ts); nothing is written then. */
export async function markCosigned(
  db: Kysely<Database>,
  request: { nonce: string; quorum?: readonly GuardianPriceDto[] | undefined },
  instanceId: string,
  signed: { txid: string; hex: string },
  now: number,
): Promise<boolean> {
  const { nonce, quorum } = request;
  return db.transaction().execute(async (trx) => {
    const details = { txid: signed.txid, raw_hex: signed.hex };
    const owned = await advanceOwnedRequest(
      trx,
      nonce,
      instanceId,
      'validated',
      'cosigned',
      details,
      now,
    );
    if (owned && quorum && quorum.length > 0) await recordPriceQuorum(trx, quorum, now);
    return owned;
  });
}
