import type { Engine, Stitch, StitchInput } from '../index';

/**
 * A copy of `value` as far as a cache key reads it: the own enumerable fields of an object (those
 * holding `undefined` left out, as the key leaves them out), an array's items, anything else as is.
 * A null-prototype record, so a field named `__proto__` stays a field.
 */
function copyOf(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return Array.from(value, copyOf);
  const out: Record<string, unknown> = Object.create(null);
  for (const name of Object.keys(value)) {
    const field = (value as Record<string, unknown>)[name];
    if (field !== undefined) out[name] = copyOf(field);
  }
  return out;
}

/** Whether `value` reads as `copy` does (see {@link copyOf}): then it has the same cache key. */
function matches(value: unknown, copy: unknown): boolean {
  if (value === null || typeof value !== 'object' || copy === null || typeof copy !== 'object')
    return Object.is(value, copy);
  if (Array.isArray(value)) {
    if (!Array.isArray(copy) || value.length !== copy.length) return false;
    for (let i = 0; i < value.length; i++) if (!matches(value[i], copy[i])) return false;
    return true;
  }
  // Only plain records are compared: another object (a Date, say) may enter a key through its
  // `toJSON`, which the copy does not see.
  const prototype = Object.getPrototypeOf(value);
  if (Array.isArray(copy) || (prototype !== Object.prototype && prototype !== null)) return false;
  const fields = copy as Record<string, unknown>;
  let count = 0;
  for (const name of Object.keys(value)) {
    const field = (value as Record<string, unknown>)[name];
    if (field === undefined) continue;
    if (!(name in fields) || !matches(field, fields[name])) return false;
    count += 1;
  }
  return count === Object.keys(fields).length;
}

interface Remembered {
  readonly stitch: unknown;
  readonly copy: unknown;
  readonly key: string | undefined;
}

/** The last key computed on each engine for each stitch, shared by the hooks reading it. */
const lastKeys = new WeakMap<Engine, WeakMap<object, Remembered>>();

/**
 * `engine.keyOf` for one hook, computed again only when the stitch or the input's content changes:
 * an input written inline is a new object at every render, and its canonical key costs more than
 * comparing it with the last one. The hooks of one engine and stitch also share the last key
 * computed, so a thousand components mounting on one input compute its key once. An input is
 * compared with a copy taken when its key was computed, so one mutated in place still gets its
 * new key. A stitch with a `cache.scope` function is asked every time (the scope may read more
 * than the input).
 */
export function createKeyMemo(engine: Engine) {
  let shared = lastKeys.get(engine);
  if (!shared) {
    shared = new WeakMap();
    lastKeys.set(engine, shared);
  }
  const byStitch = shared;
  let last: Remembered | undefined;
  return <TData, TInput extends StitchInput>(stitch: Stitch<TData, TInput>, input: TInput | undefined) => {
    if (stitch.definition.cache?.scope !== undefined) return engine.keyOf(stitch, input);
    if (last?.stitch === stitch && matches(input, last.copy)) return last.key;
    const known = byStitch.get(stitch);
    if (known && matches(input, known.copy)) last = known;
    else {
      last = { stitch, copy: copyOf(input), key: engine.keyOf(stitch, input) };
      byStitch.set(stitch, last);
    }
    return last.key;
  };
}
