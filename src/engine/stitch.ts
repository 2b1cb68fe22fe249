import { toStitch } from './callable';
import { normalizeCircuit } from './circuit';
import {
  define,
  isPolicyValue,
  type PolicyForms,
  type ResolvedInput,
  refuseOtherPolicy,
  type Stitch,
  type StitchConfig,
} from './definition';
import { checking } from './errors';
import { normalizeIdempotency } from './idempotency';
import { records } from './ledger';
import type { StitchInput } from './request';
import { retryPair } from './retry';
import { normalizeThrottle } from './throttle';

/**
 * The main entry's policy fields: options objects (`retry: { attempts: 3 }`) or values
 * (`retry: retry({ attempts: 3 })`), with the breaker on by default and every call under a key
 * its caller owns recorded. Every policy's code comes with it; `stitch-fetch/lite` takes values
 * only.
 */
const objectsOrValues: PolicyForms = {
  retry: (value, method, name) =>
    isPolicyValue(value, 'retry')
      ? value.resolve(name, method)
      : retryPair(options(value, 'retry', name), method, name),
  circuit: (value, method, name) =>
    isPolicyValue(value, 'circuit')
      ? value.resolve(name, method)
      : normalizeCircuit(options(value, 'circuit', name), name),
  throttle: (value, method, name) =>
    isPolicyValue(value, 'throttle')
      ? value.resolve(name, method)
      : normalizeThrottle(options(value, 'throttle', name), name),
  idempotency: (value, method, name) =>
    isPolicyValue(value, 'idempotency')
      ? value.resolve(name, method)
      : { policy: normalizeIdempotency(options(value, 'idempotency', name), name), records },
};

/** `value` as the options of the `field` policy, unless it is another policy's value. */
function options(value: unknown, field: string, name: string): never {
  refuseOtherPolicy(value, field, name);
  return value as never;
}

/**
 * Turns an endpoint into a typed, resilient call. The config is validated now: a bad option
 * throws a `StitchError` of kind `'config'` naming the field. Policies may be options objects or
 * values (`retry(…)`, `circuit(…)`, `throttle(…)`); the breaker is on unless `circuit: false`.
 *
 * Types: the data comes from `output` (or the first type argument); the input from `input` (or
 * the second type argument), else from the URL template: `url: '…/users/{id}'` makes
 * `params: { id: string | number }` required.
 *
 * @example
 * const getUser = stitch({ name: 'getUser', url: 'https://api.example.com/users/{id}', output: User });
 * const user = await getUser({ params: { id: 7 } }, { signal });
 */
export function stitch<
  TData = unknown,
  TInput extends StitchInput = never,
  const TUrl extends string = string,
  const TBase extends string = string,
>(
  config: StitchConfig<TData, ResolvedInput<TInput, TUrl, TBase>> & {
    url: TUrl;
    baseUrl?: TBase | undefined;
  },
): Stitch<TData, ResolvedInput<TInput, TUrl, TBase>> {
  const checked = config as StitchConfig<TData, ResolvedInput<TInput, TUrl, TBase>>;
  return toStitch(checking(undefined, 'config', () => define(checked, objectsOrValues)));
}
