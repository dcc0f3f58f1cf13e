// The store's public surface: open, migrate, and one repository module per table family.
export * from './open';
export * from './migrations';
export type * from './schema';
export * from './settings';
export * from './prices';
export * from './vaults';
export * from './exits';
export * from './repossession-race';
export * from './guardian-requests';
export * from './price-quorums';
export * from './reservations';
export * from './liquidations';
export * from './telegram';
export * from './users';
export * from './keys';
export * from './settlements';
