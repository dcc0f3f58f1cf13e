export * from './constants';
export type * from './api';
