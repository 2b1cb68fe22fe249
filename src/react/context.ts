import { type Context, createContext } from 'react';
import type { Engine } from '../index';

/**
 * The context called `name`, one per process: every copy of this package (its ESM and CJS builds,
 * say, when a CommonJS component library sits under an ESM app) finds the same one, so a provider
 * of one copy reaches the hooks of another, as the default engine does.
 */
export function sharedContext<T>(name: string, initial: T): Context<T> {
  return perProcess(name, () => createContext(initial));
}

/** The value called `name` that every copy of this package in the process shares, made once. */
function perProcess<T>(name: string, make: () => T): T {
  const holder = globalThis as { [key: symbol]: T | undefined };
  const key = Symbol.for(`stitch-fetch.${name}`);
  holder[key] ??= make();
  return holder[key];
}

/** The engine hooks run on; `undefined` outside a provider (the default engine then). */
export const EngineContext = /* @__PURE__ */ sharedContext<Engine | undefined>('engineContext', undefined);

/** The signal of the nearest `StitchScope`; `undefined` outside any scope. */
export const ScopeContext = /* @__PURE__ */ sharedContext<AbortSignal | undefined>('scopeContext', undefined);

/**
 * The `WeakMap` called `name`, one per process, as {@link sharedContext}: what the hooks keep per
 * engine (suspended reads, infinite lists) is found by every copy of this package, so the readers
 * of one key share it whichever copy each imported. Its `@` version changes with the shape of
 * what it holds.
 */
export function sharedWeakMap<K extends WeakKey, V>(name: string): WeakMap<K, V> {
  return perProcess(name, () => new WeakMap<K, V>());
}
