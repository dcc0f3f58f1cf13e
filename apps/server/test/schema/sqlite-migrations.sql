create table if not exists "kysely_migration" ("name" varchar(255) not null primary key, "timestamp" varchar(255) not null);
create table if not exists "kysely_migration_lock" ("id" varchar(255) not null primary key, "is_locked" integer default 0 not null);
select "id" from "kysely_migration_lock" where "id" = ?;
insert into "kysely_migration_lock" ("id", "is_locked") values (?, ?);
select "name", "timestamp" from "kysely_migration";
create table "settings" ("key" text primary key, "value" text not null, "updated_at" bigint default 0 not null);
create table "price_points" ("timestamp" bigint primary key, "price_cents" bigint not null);
create table "vaults" ("vault_id" text primary key, "vault_tag" text not null, "vault_pubkey" text not null unique, "name" text not null, "creation_account" text not null, "runes_account" text not null, "btc_locked" bigint not null, "unit_borrowed" bigint not null, "vault_txid" text not null, "vault_vout" integer not null, "threshold_cents" bigint not null, "stamp" bigint not null, "status" text not null, "created_at" bigint not null, "updated_at" bigint not null);
create index "vaults_status_threshold" on "vaults" ("status", "threshold_cents");
create index "vaults_creation_account" on "vaults" ("creation_account");
create table "vault_history" ("id" integer not null primary key autoincrement, "vault_id" text not null, "timestamp" bigint not null, "action" text not null, "btc_amt" bigint not null, "unit_amt" bigint not null, "vault_amount" bigint not null, "amount_borrowed" bigint not null, "oracle_price" bigint not null, "transaction_id" text not null, "utxo" text not null, "utxo_script" text not null, "liquidation_hash" text, "liquidation_threshold" bigint, "confirmed" integer default 0 not null);
create index "vault_history_vault_time" on "vault_history" ("vault_id", "timestamp");
create index "vault_history_txid" on "vault_history" ("transaction_id");
create table "guardian_requests" ("nonce" text primary key, "method" text not null, "vault_id" text, "vault_pubkey" text not null, "state" text not null, "txid" text, "raw_hex" text, "error" text, "expires_at" bigint not null, "created_at" bigint not null, "updated_at" bigint not null);
create table "reservations" ("reservation_id" text primary key, "vault_pubkey" text not null, "vault_action" text not null, "unit_amount" bigint not null, "treasury_txid" text, "treasury_vout" integer, "status" text not null, "expires_at" bigint not null, "created_at" bigint not null);
create index "reservations_status_expiry" on "reservations" ("status", "expires_at");
create table "liquidations" ("vault_id" text primary key, "liquidated_at" bigint not null, "liquidation_hash" text not null, "threshold_cents" bigint not null, "price_cents" bigint not null, "btc_locked" bigint not null, "unit_borrowed" bigint not null, "status" text not null, "claimed_by" text, "claim_txid" text);
create table "telegram_subscriptions" ("address" text not null, "chat_id" text not null, "network" text not null, "created_at" bigint not null, constraint "telegram_subscriptions_pk" primary key ("address", "chat_id"));
create table "telegram_outbox" ("id" integer not null primary key autoincrement, "chat_id" text not null, "text" text not null, "status" text not null, "attempts" integer default 0 not null, "max_attempts" integer not null, "retry_delay_ms" bigint not null, "next_attempt_at" bigint not null, "last_error" text, "created_at" bigint not null);
create index "telegram_outbox_due" on "telegram_outbox" ("status", "next_attempt_at");
create table "users" ("address" text primary key, "discord_id" text, "twitter_id" text, "telegram_id" text, "referral_code" text not null unique, "referred_by" text, "created_at" bigint not null);
create index "users_referred_by" on "users" ("referred_by");
create table "mission_completions" ("address" text not null, "mission_id" text not null, "completed_at" bigint not null, constraint "mission_completions_pk" primary key ("address", "mission_id"));
insert into "kysely_migration" ("name", "timestamp") values (?, ?);
create index "vault_history_vault_time_id" on "vault_history" ("vault_id", "timestamp", "id");
drop index if exists "vault_history_vault_time";
create index "vault_history_unconfirmed" on "vault_history" ("transaction_id") where "confirmed" = 0;
insert into "kysely_migration" ("name", "timestamp") values (?, ?);
create table "price_closes" ("interval_seconds" integer not null, "bucket" bigint not null, "timestamp" bigint not null, "price_cents" bigint not null, constraint "price_closes_pk" primary key ("interval_seconds", "bucket"));

          insert into price_closes (interval_seconds, bucket, timestamp, price_cents)
          select 300, p.timestamp / 300 * 300,
                 p.timestamp, p.price_cents
          from price_points p
          join (select max(timestamp) as t from price_points
                group by timestamp / 300) last on last.t = p.timestamp
        ;

          insert into price_closes (interval_seconds, bucket, timestamp, price_cents)
          select 3600, p.timestamp / 3600 * 3600,
                 p.timestamp, p.price_cents
          from price_points p
          join (select max(timestamp) as t from price_points
                group by timestamp / 3600) last on last.t = p.timestamp
        ;

          insert into price_closes (interval_seconds, bucket, timestamp, price_cents)
          select 21600, p.timestamp / 21600 * 21600,
                 p.timestamp, p.price_cents
          from price_points p
          join (select max(timestamp) as t from price_points
                group by timestamp / 21600) last on last.t = p.timestamp
        ;

          insert into price_closes (interval_seconds, bucket, timestamp, price_cents)
          select 86400, p.timestamp / 86400 * 86400,
                 p.timestamp, p.price_cents
          from price_points p
          join (select max(timestamp) as t from price_points
                group by timestamp / 86400) last on last.t = p.timestamp
        ;
insert into "kysely_migration" ("name", "timestamp") values (?, ?);
create table "auth_challenges" ("nonce" text primary key, "address" text not null, "message" text not null, "expires_at" bigint not null, "used_at" bigint);
create index "auth_challenges_expiry" on "auth_challenges" ("expires_at");
create table "sessions" ("token_hash" text primary key, "address" text not null, "created_at" bigint not null, "expires_at" bigint not null);
create index "sessions_address" on "sessions" ("address");
create table "telegram_link_codes" ("code" text primary key, "address" text not null, "expires_at" bigint not null, "used_at" bigint);
create table "oauth_states" ("state" text primary key, "provider" text not null, "address" text not null, "code_verifier" text not null, "expires_at" bigint not null);
alter table "telegram_outbox" add column "dedupe_key" text;
create unique index "telegram_outbox_dedupe" on "telegram_outbox" ("dedupe_key");
alter table "telegram_subscriptions" add column "risk_alerts" integer default 1 not null;
create index "telegram_subscriptions_chat" on "telegram_subscriptions" ("chat_id");
create table "telegram_watch" ("history_id" integer primary key, "created_at" bigint not null);
create table "telegram_alert_bands" ("chat_id" text not null, "vault_id" text not null, "band" text not null, "updated_at" bigint not null, constraint "telegram_alert_bands_pk" primary key ("chat_id", "vault_id"));
insert into "kysely_migration" ("name", "timestamp") values (?, ?);

          update users set "discord_id" = null
          where "discord_id" is not null and exists (
            select 1 from users earlier
            where earlier."discord_id" = users."discord_id"
              and (earlier.created_at < users.created_at
                or (earlier.created_at = users.created_at and earlier.address < users.address)))
        ;
create unique index "users_discord_id_unique" on "users" ("discord_id");

          update users set "twitter_id" = null
          where "twitter_id" is not null and exists (
            select 1 from users earlier
            where earlier."twitter_id" = users."twitter_id"
              and (earlier.created_at < users.created_at
                or (earlier.created_at = users.created_at and earlier.address < users.address)))
        ;
create unique index "users_twitter_id_unique" on "users" ("twitter_id");
insert into "kysely_migration" ("name", "timestamp") values (?, ?);
delete from telegram_link_codes;
delete from oauth_states;
insert into "kysely_migration" ("name", "timestamp") values (?, ?);

        select type, name, sql from sqlite_master where tbl_name = ?;
create table "vaults_rebuilt" ("vault_id" text primary key, "vault_tag" text not null, "vault_pubkey" text not null, "name" text not null, "creation_account" text not null, "runes_account" text not null, "btc_locked" bigint not null, "unit_borrowed" bigint not null, "vault_txid" text not null, "vault_vout" integer not null, "threshold_cents" bigint not null, "stamp" bigint not null, "status" text not null, "created_at" bigint not null, "updated_at" bigint not null);
insert into "vaults_rebuilt" select * from "vaults";
drop table "vaults";
alter table "vaults_rebuilt" rename to "vaults";
CREATE INDEX "vaults_status_threshold" on "vaults" ("status", "threshold_cents");
CREATE INDEX "vaults_creation_account" on "vaults" ("creation_account");
create unique index vaults_live_pubkey on vaults (vault_pubkey) where status <> 'repossessed';
create index "vaults_pubkey_created" on "vaults" ("vault_pubkey", "created_at");
insert into "kysely_migration" ("name", "timestamp") values (?, ?);
create table "rate_limit_hits" ("bucket" text not null, "window_start" bigint not null, "hits" integer not null, constraint "rate_limit_hits_pk" primary key ("bucket", "window_start"));
create index "rate_limit_hits_window" on "rate_limit_hits" ("window_start");
insert into "kysely_migration" ("name", "timestamp") values (?, ?);
alter table "vaults" add column "settle_height" integer;
alter table "vaults" add column "exit_height" integer;
insert into "kysely_migration" ("name", "timestamp") values (?, ?);
create index "vaults_status_settle_height" on "vaults" ("status", "settle_height");
drop index if exists "vaults_live_pubkey";
create unique index vaults_open_pubkey on vaults (vault_pubkey) where status not in ('repossessed', 'settled');
insert into "kysely_migration" ("name", "timestamp") values (?, ?);
create index "vaults_status_exit_height" on "vaults" ("status", "exit_height");
drop index "vaults_open_pubkey";
create unique index vaults_open_pubkey on vaults (vault_pubkey) where status not in ('repossessed', 'settled', 'exited');
insert into "kysely_migration" ("name", "timestamp") values (?, ?);
create table "devnet_meta" ("key" text primary key, "value" text not null);
create table "devnet_blocks" ("height" bigint primary key, "hash" text not null unique, "prev_hash" text not null, "time" bigint not null, "tx_count" integer not null);
create table "devnet_txs" ("txid" text primary key, "hex" text not null, "seq" bigint not null unique, "block_height" bigint, "block_index" integer, "fee" bigint not null, "vsize" bigint not null, "weight" bigint not null, "first_seen" bigint not null);
create index "devnet_txs_block_height" on "devnet_txs" ("block_height");
create table "devnet_outputs" ("txid" text not null, "vout" integer not null, "value" bigint not null, "script_hex" text not null, "address" text, "unit_amount" bigint not null, "spent_txid" text, "spent_vin" integer, constraint "devnet_outputs_pk" primary key ("txid", "vout"));
create index "devnet_outputs_address" on "devnet_outputs" ("address");
create index "devnet_outputs_spent_txid" on "devnet_outputs" ("spent_txid");
insert into "kysely_migration" ("name", "timestamp") values (?, ?);
create table "devnet_replaced" ("txid" text primary key, "replaced_by" text not null, "time" bigint not null);
insert into "kysely_migration" ("name", "timestamp") values (?, ?);
alter table "guardian_requests" add column "effects" text;
insert into "kysely_migration" ("name", "timestamp") values (?, ?);
create table "guardian_locks" ("lock_key" text primary key, "owner" text not null, "expires_at" bigint not null);
create index "guardian_locks_owner" on "guardian_locks" ("owner");
insert into "kysely_migration" ("name", "timestamp") values (?, ?);
create table "guardian_replacements" ("txid" text not null, "replaced_txid" text not null, "replaced_hex" text not null, "nonce" text not null, "created_at" bigint not null, constraint "guardian_replacements_pk" primary key ("txid", "replaced_txid"));
create index "guardian_requests_txid_speedup" on "guardian_requests" ("txid");
create index "vaults_vault_txid_speedup" on "vaults" ("vault_txid");
create index "vault_history_utxo_speedup" on "vault_history" ("utxo");
create index "liquidations_claim_txid_speedup" on "liquidations" ("claim_txid");
insert into "kysely_migration" ("name", "timestamp") values (?, ?);
alter table "reservations" add column "connection_id" text;
alter table "reservations" add column "client_address" text;
create index "reservations_connection" on "reservations" ("connection_id", "status");
insert into "kysely_migration" ("name", "timestamp") values (?, ?);
alter table "guardian_requests" add column "instance_id" text;
insert into "kysely_migration" ("name", "timestamp") values (?, ?);
alter table "guardian_locks" add column "instance_id" text;
insert into "kysely_migration" ("name", "timestamp") values (?, ?);
create table "price_quorums" ("commitment" text primary key, "prices_json" text not null, "created_at" bigint not null);
insert into "kysely_migration" ("name", "timestamp") values (?, ?);
create table "guardian_unanswered_replacements" ("txid" text primary key, "raw_hex" text not null, "original_txid" text not null, "original_hex" text not null, "nonce" text not null, "vault_pubkey" text not null, "error" text not null, "created_at" bigint not null);
create index "guardian_unanswered_replacements_vault" on "guardian_unanswered_replacements" ("vault_pubkey");
insert into "kysely_migration" ("name", "timestamp") values (?, ?);
