// @unit/protocol/wire: the wire contract's zod schemas, the one JSON-RPC client and the one request
// envelope. A subpath of its own so the web app's first chunk (which imports only types, api.ts)
// carries no zod: the guardian client that uses these is loaded lazily.
export * from './fields';
export * from './http';
export * from './network';
export * from './network-history';
export * from './validators';
export * from './accounts';
export * from './chain';
export * from './guardian';
export * from './codes';
export * from './rpc-client';
export * from './checked';
export * from './envelope';
export * from './route-paths';
export * from './route-schema';
export * from './routes';
export { DEVNET_MAX_MINE_BLOCKS } from './routes-ops';
export * from './openapi';
