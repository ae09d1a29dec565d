/**
 * Every stored setting: its schema (./schema.ts), default (./defaults.ts) and storage
 * (./store.ts). Importing this folder brings zod and storage in; pages that only need the
 * defaults or the site-pattern grammar import those files directly.
 */
export * from './schema';
export * from './defaults';
export * from './site-pattern';
export * from './store';
export * from './managed';
export * from './team-gateway';
export * from './gateway-session';
