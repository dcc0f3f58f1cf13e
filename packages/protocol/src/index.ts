// @unit/protocol: every rule of SPEC.md once, pure TypeScript (no I/O, no React).
export * from './constants';
export * from './units';
export * from './ratio';
export * from './limits';
export * from './validation';
export * from './fees';
export * from './vault';
export * from './buttons';
export * from './history';
export * from './history-csv';
export * from './replacement';
export * from './pending';
export * from './chart';
export * from './table';
export * from './errors';
export * from './missions';
export * from './content';
export type * from './api';
