// unit.reserve reservations: the treasury UNIT UTXO named for one open/borrow/repay until it
// expires (cosign/reserve.ts: not exclusive, 300 s).
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, ReservationsTable } from './schema';
import { rowWhere } from './rows';

export type ReservationRow = Selectable<ReservationsTable>;
export type NewReservation = Omit<Insertable<ReservationsTable>, 'status'>;

export async function insertReservation(
  db: Kysely<Database>,
  reservation: NewReservation,
): Promise<void> {
  await db
    .insertInto('reservations')
    .values({ ...reservation, status: 'active' })
    .execute();
}

export async function getReservation(
  db: Kysely<Database>,
  reservationId: string,
): Promise<ReservationRow | null> {
  return rowWhere(db, 'reservations', 'reservation_id', reservationId);
}

/** Active, unexpired reservations holding a treasury outpoint. */
export async function activeReservations(
  db: Kysely<Database>,
  now = Math.floor(Date.now() / 1000),
): Promise<ReservationRow[]> {
  return db
    .selectFrom('reservations')
    .selectAll()
    .where('status', '=', 'active')
    .where('expires_at', '>', now)
    .execute();
}

/** Marks an active reservation used; false if it was not active (already used or released). */
export async function consumeReservation(
  db: Kysely<Database>,
  reservationId: string,
): Promise<boolean> {
  const result = await db
    .updateTable('reservations')
    .set({ status: 'used' })
    .where('reservation_id', '=', reservationId)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function releaseExpiredReservations(
  db: Kysely<Database>,
  now = Math.floor(Date.now() / 1000),
): Promise<number> {
  const result = await db
    .updateTable('reservations')
    .set({ status: 'released' })
    .where('status', '=', 'active')
    .where('expires_at', '<=', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
