// @unit/guardian-net/price: the exchange feeds the server's oracle and every guardian read, a
// guardian's signed price, and the coordinator's price quorum. No store, no FROST: the server
// imports this without the rest of the network.
export * from './feeds';
export * from './signed-price';
export * from './quorum';
