/**
 * `stitch()` of `stitch-fetch/lite`: policies are values the app imports, so a bundle carries only
 * the policies its stitches name. No breaker unless `circuit: circuit(…)`, one attempt unless
 * `retry: retry(…)`, no idempotency key or record unless `idempotency: idempotency(…)`.
 */
import { toStitch } from './callable';
import type {
  CircuitValue,
  IdempotencyValue,
  PolicyForms,
  ResolvedInput,
  RetryValue,
  Stitch,
  StitchConfig,
  ThrottleValue,
} from './definition';
import { define, isPolicyValue, refuseOtherPolicy } from './definition';
import { checking, configError } from './errors';
import { isRecord } from './record';
import type { StitchInput } from './request';
import { SINGLE_ATTEMPT } from './retry';

/** What `stitch()` of `stitch-fetch/lite` accepts: a {@link StitchConfig} whose policies are values. */
export type LiteStitchConfig<TData = unknown, TInput extends StitchInput = StitchInput> = Omit<
  StitchConfig<TData, TInput>,
  'retry' | 'circuit' | 'throttle' | 'idempotency'
> & {
  /** `retry(…)`. @default one attempt */
  retry?: RetryValue | false | undefined;
  /** `circuit(…)`. @default no breaker */
  circuit?: CircuitValue | false | undefined;
  /** `throttle(…)`. @default no throttle */
  throttle?: ThrottleValue | false | undefined;
  /**
   * `idempotency(…)`: keys, and the records a call under a key its caller owns is kept in (the
   * call option `idempotencyKey` needs it). @default no key
   */
  idempotency?: IdempotencyValue<TInput> | false | undefined;
};

/** `undefined` and `false` leave the policy out; anything else must be its value. */
function asValue<TKind extends 'retry' | 'circuit' | 'throttle' | 'idempotency'>(
  value: unknown,
  kind: TKind,
  name: string,
) {
  if (value === undefined || value === false) return undefined;
  if (isPolicyValue(value, kind)) return value;
  refuseOtherPolicy(value, kind, name);
  // An options object is what the main entry takes: say where to find it.
  const hint = isRecord(value)
    ? ": stitch-fetch/lite takes policies as values (options objects need 'stitch-fetch')"
    : '';
  throw configError(name, kind, `must be ${kind}(…) or false${hint}`);
}

const valuesOnly: PolicyForms = {
  retry: (value, method, name) => asValue(value, 'retry', name)?.resolve(name, method) ?? SINGLE_ATTEMPT,
  circuit: (value, method, name) => asValue(value, 'circuit', name)?.resolve(name, method),
  throttle: (value, method, name) => asValue(value, 'throttle', name)?.resolve(name, method),
  idempotency: (value, method, name) =>
    asValue(value, 'idempotency', name)?.resolve(name, method) ?? { policy: undefined, records: undefined },
};

/**
 * Turns an endpoint into a typed, cancellable call, with only the policies given as values: a
 * bad option throws a `StitchError` of kind `'config'` naming the field.
 *
 * @example
 * import { retry, stitch } from 'stitch-fetch/lite';
 * const search = stitch({ name: 'search', url: 'https://api.example.com/search', retry: retry(3), timeout: 5_000 });
 */
export function stitch<
  TData = unknown,
  TInput extends StitchInput = never,
  const TUrl extends string = string,
  const TBase extends string = string,
>(
  config: LiteStitchConfig<TData, ResolvedInput<TInput, TUrl, TBase>> & {
    url: TUrl;
    baseUrl?: TBase | undefined;
  },
): Stitch<TData, ResolvedInput<TInput, TUrl, TBase>> {
  const checked = config as StitchConfig<TData, ResolvedInput<TInput, TUrl, TBase>>;
  return toStitch(checking(undefined, 'config', () => define(checked, valuesOnly)));
}
