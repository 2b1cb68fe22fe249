import { StitchError } from '../index';

/** What an option must be, and how that reads in the error when it is not. */
type Rule = readonly [valid: (value: unknown) => boolean, problem: string];
/** The rules of a hook's options, by name. */
type Rules = Record<string, Rule>;

const orAbsent =
  (valid: (value: unknown) => boolean) =>
  (value: unknown): boolean =>
    value === undefined || valid(value);
const isFunction = (value: unknown) => typeof value === 'function';
const isMs = (value: unknown) => typeof value === 'number' && value >= 0;
/**
 * Whether `value` has each of `names` as a method (the engine's own check is not public, and
 * `stitch-fetch/react` imports only what an adapter could).
 */
const methods = (value: unknown, ...names: string[]) =>
  typeof value === 'object' &&
  value !== null &&
  names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function');

const SIGNAL: Rule = [
  orAbsent((value) => typeof (value as AbortSignal | null)?.addEventListener === 'function'),
  'must be an AbortSignal (a controller’s `.signal`)',
];
const MS: Rule = [orAbsent(isMs), 'must be a number of milliseconds ≥ 0'];
const FLAG: Rule = [orAbsent((value) => typeof value === 'boolean'), 'must be a boolean'];
const FUNCTION: Rule = [orAbsent(isFunction), 'must be a function'];
/** An option any value of which is good (`initialData`, say): checked only for being one. */
const ANY: Rule = [() => true, ''];

/** The refetch triggers, a hook's own or a provider's `defaults`. */
export const TRIGGERS = {
  refetchOnFocus: FLAG,
  refetchOnReconnect: FLAG,
  refetchInterval: [
    orAbsent((value) => value === false || isMs(value)),
    'must be a number of ms ≥ 0, or false',
  ],
} satisfies Rules;

/** What `useStitch` checks. */
export const USE_STITCH = {
  signal: SIGNAL,
  debounce: MS,
  staleTime: MS,
  enabled: FLAG,
  keepPrevious: FLAG,
  select: FUNCTION,
  initialData: ANY,
  placeholderData: ANY,
  suspense: [
    orAbsent((value) => value === false),
    'is its own hook, so an app that never suspends does not bundle it: useSuspenseStitch(stitch, input)',
  ],
  ...TRIGGERS,
} satisfies Rules;

/** What `useStitchInfinite` checks. */
export const USE_STITCH_INFINITE = {
  signal: SIGNAL,
  enabled: FLAG,
  getNextPageParam: [isFunction, 'must be a function of the last page'],
  initialPageParam: ANY,
  getPreviousPageParam: FUNCTION,
  pageInput: [
    (value) => (typeof value === 'string' && value !== '') || isFunction(value),
    'must name a query field, or be a function of the input and the page param',
  ],
  maxPages: [
    orAbsent(
      (value) => value === Number.POSITIVE_INFINITY || (Number.isInteger(value) && (value as number) >= 1),
    ),
    'must be a whole number of pages ≥ 1',
  ],
  ...TRIGGERS,
} satisfies Rules;

/** What `useSuspenseStitch` checks. */
export const USE_SUSPENSE_STITCH = { signal: SIGNAL, abandonAfter: MS } satisfies Rules;

/** What `StitchProvider` checks of its props; its `defaults` are {@link TRIGGERS}, as a hook's own. */
export const STITCH_PROVIDER = {
  engine: [
    orAbsent((value) => methods(value, 'getSnapshot', 'subscribe', 'keyOf')),
    'must be an engine (createEngine())',
  ],
  focusSource: [
    orAbsent((value) => methods(value, 'subscribe', 'isVisible')),
    'must be { subscribe, isVisible }',
  ],
  onlineSource: [
    orAbsent((value) => methods(value, 'subscribe', 'isOnline')),
    'must be { subscribe, isOnline }',
  ],
  defaults: [
    orAbsent((value) => typeof value === 'object' && value !== null),
    'must be { refetchOnFocus, refetchOnReconnect, refetchInterval }',
  ],
  // Checked as it is taken in (`hydrate`), and any children.
  state: ANY,
  children: ANY,
} satisfies Rules;

/** Per set of rules, the options they require (whose rule refuses `undefined`), found once. */
const required = new WeakMap<Rules, readonly string[]>();

/**
 * Throws a `config` error naming an option of `hook`'s (a provider's prop) that breaks `rules`: a
 * controller where its signal belongs, a negative `staleTime`, a `pageInput` naming nothing, a
 * misspelt one. Checked as the hook is given them, a wrong option never turns into a TypeError, a
 * garbage request or a silent default later. `prefix` names where the options sit (`defaults.`).
 */
export function checkOptions(
  hook: string,
  stitch: string | undefined,
  options: unknown,
  rules: Rules,
  prefix = '',
): void {
  const problem = problemOf(options, rules);
  if (problem === undefined) return;
  const field = `${prefix}${problem[0]}`;
  throw new StitchError({ kind: 'config', field, stitch, message: `${hook}: \`${field}\` ${problem[1]}` });
}

/**
 * The first of the options given, then of those `rules` require, that breaks them, and why. It
 * runs at every render of every reader, so it looks only at those: most readers give an option or
 * two of a dozen.
 */
function problemOf(options: unknown, rules: Rules): readonly [field: string, problem: string] | undefined {
  if (typeof options !== 'object' || options === null) return ['options', 'must be an object'];
  const given = options as Record<string, unknown>;
  // Inherited options too, as the hook reads them.
  for (const field in given) {
    const rule = Object.hasOwn(rules, field) ? rules[field] : undefined;
    if (rule !== undefined) {
      if (!rule[0](given[field])) return [field, rule[1]];
    } else if (Object.hasOwn(given, field)) {
      // A misspelt option (or another library's name for one) would otherwise do nothing, silently.
      return [field, `is not an option (${Object.keys(rules).join(', ')})`];
    }
  }
  let needed = required.get(rules);
  if (needed === undefined) {
    needed = Object.keys(rules).filter((field) => !(rules[field] as Rule)[0](undefined));
    required.set(rules, needed);
  }
  for (const field of needed) if (!(field in given)) return [field, (rules[field] as Rule)[1]];
  return undefined;
}
