/**
 * Idempotency as a value: the key policy with the records it needs. Apart from the keys
 * themselves (idempotency.ts), so what only needs a key (`mintKey`) never pulls in the records.
 */
import type { HttpMethod, IdempotencyValue } from './definition';
import { type IdempotencyOptions, normalizeIdempotency } from './idempotency';
import { records } from './ledger';
import type { StitchInput } from './request';

/**
 * Idempotency keys as a value: `idempotency: idempotency({ keyOf })`. It brings the records a
 * call under a key its caller owns is kept in (see `ttl`), which a stitch of `stitch-fetch/lite`
 * needs for the call option `idempotencyKey` too. Validated when the stitch is defined. Without
 * `keyOf`, the key is minted per logical call, and the value fits a stitch of any input.
 * @default `true`: a key minted per logical call
 */
export function idempotency(
  options?: true | { header?: string | undefined; ttl?: number | undefined; keyOf?: undefined },
): IdempotencyValue;
/**
 * Idempotency keys as a value, derived from the input by `keyOf`: its input type
 * (`idempotency<Input>({ keyOf })`) is the stitch's. Untyped, `keyOf` takes any input, and the
 * stitch's input type comes from its URL template as without the value. Without `keyOf`, a key
 * minted per logical call, which fits a stitch of any input.
 */
export function idempotency<TInput = StitchInput>(
  options: Exclude<IdempotencyOptions<TInput>, boolean>,
): IdempotencyValue<TInput>;
/** Idempotency keys as a value, from options typed as either form (`true`, or `{ keyOf, … }`). */
export function idempotency<TInput = StitchInput>(
  options?: Exclude<IdempotencyOptions<TInput>, false>,
): IdempotencyValue<TInput>;
export function idempotency<TInput>(
  options: Exclude<IdempotencyOptions<TInput>, false> = true,
): IdempotencyValue<TInput> {
  return {
    policy: 'idempotency',
    resolve: (name: string, _method: HttpMethod) => ({
      policy: normalizeIdempotency(options, name),
      records,
    }),
  };
}
