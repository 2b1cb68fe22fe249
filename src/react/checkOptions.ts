import { StitchError } from '../index';
import { messageOf } from './observer';

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

/**
 * The props of `StitchScope`: a misspelt `resetKey` would reset nothing, without a word. React 19
 * hands a `ref` as a prop (it has nothing to point at, as under React 18).
 */
export const STITCH_SCOPE = { resetKey: ANY, children: ANY, ref: ANY } satisfies Rules;

/**
 * The name of what `hook` was given as its stitch: anything else (`undefined`, a definition, a
 * plain object) is a `config` error naming `stitch`, not a TypeError.
 */
export function stitchName(hook: string, stitch: unknown): string {
  const name = (stitch as { definition?: { name?: unknown } } | null | undefined)?.definition?.name;
  if (typeof name === 'string') return name;
  throw new StitchError({
    kind: 'config',
    field: 'stitch',
    message: `${hook}: \`stitch\` must be a stitch (what stitch() returns)`,
  });
}

/** One option's rule, as checked: its name, whether `undefined` passes it, the rule itself. */
type Checked = readonly [field: string, absentOk: boolean, valid: Rule[0], problem: string];

/** Each set of rules as a list, with whether each accepts `undefined`, worked out once. */
const checkedRules = new WeakMap<Rules, readonly Checked[]>();

const checkedOf = (rules: Rules): readonly Checked[] => {
  let checked = checkedRules.get(rules);
  if (checked === undefined) {
    checked = Object.entries(rules).map(([field, [valid, problem]]) => [
      field,
      valid(undefined),
      valid,
      problem,
    ]);
    checkedRules.set(rules, checked);
  }
  return checked;
};

/**
 * Throws a `config` error naming the first of `hook`'s options (a provider's props) that breaks
 * `rules`: a controller where its signal belongs, a negative `staleTime`, a `pageInput` naming
 * nothing, a misspelt one. Checked as the hook is given them, a wrong option never turns into a
 * TypeError, a garbage request or a silent default later. `prefix` names where the options sit
 * (`defaults.`).
 */
export function checkOptions(
  hook: string,
  stitch: string | undefined,
  options: unknown,
  rules: Rules,
  prefix = '',
): void {
  let problem: ReturnType<typeof problemOf>;
  try {
    problem = problemOf(options, rules);
  } catch (cause) {
    // A getter or a proxy trap of the app's that throws is a config error too, not a crash.
    const field = prefix.replace(/\.$/, '') || 'options';
    const message = `${hook}: \`${field}\` could not be read: ${messageOf(cause)}`;
    throw new StitchError({ kind: 'config', field, stitch, message, cause });
  }
  if (problem === undefined) return;
  const field = `${prefix}${problem[0]}`;
  throw new StitchError({ kind: 'config', field, stitch, message: `${hook}: \`${field}\` ${problem[1]}` });
}

/**
 * The first option that breaks `rules`, and why: each read as the hook reads it (a getter, an
 * inherited one, a proxy's), then any own one that is not an option. It runs at every render of
 * every reader, so an absent option costs a read and no call.
 */
function problemOf(options: unknown, rules: Rules): readonly [field: string, problem: string] | undefined {
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    return ['options', 'must be an object'];
  const given = options as Record<string, unknown>;
  const checked = checkedOf(rules);
  // Index loops, no destructuring: this is most of what a reader's render costs here.
  for (let index = 0; index < checked.length; index++) {
    const rule = checked[index] as Checked;
    const value = given[rule[0]];
    if (value === undefined ? !rule[1] : !rule[2](value)) return [rule[0], rule[3]];
  }
  // A misspelt option (or another library's name for one) would otherwise do nothing, silently.
  for (const field in given) {
    if (Object.hasOwn(given, field) && !Object.hasOwn(rules, field))
      return [field, `is not an option (${Object.keys(rules).join(', ')})`];
  }
  return undefined;
}
