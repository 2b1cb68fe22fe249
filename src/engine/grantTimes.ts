/**
 * The times of a throttle key's grants still inside its rate window, oldest first. Times arrive in
 * order (the engine's clock is monotonic) and leave from the old end, so the window keeps an index
 * of its oldest live time and compacts only once most of the array is dead: O(1) amortised per
 * grant however many the window holds (a splice from the front would move them all each time).
 */
export class GrantTimes {
  readonly #times: number[] = [];
  /** The index of the oldest time still in the window. */
  #first = 0;

  /** How many grants the window holds. */
  get size(): number {
    return this.#times.length - this.#first;
  }

  /** Records a grant at `time` (no earlier than the last one). */
  push(time: number): void {
    this.#times.push(time);
  }

  /** Forgets the grants at or before `horizon`. */
  dropUntil(horizon: number): void {
    const times = this.#times;
    while (this.#first < times.length && (times[this.#first] as number) <= horizon) this.#first++;
    if (this.#first === times.length) {
      times.length = 0;
      this.#first = 0;
    } else if (this.#first >= 1_024 && this.#first * 2 >= times.length) {
      times.splice(0, this.#first);
      this.#first = 0;
    }
  }

  /** The time of the `n`th latest grant (1: the latest); `undefined` when the window holds fewer. */
  fromEnd(n: number): number | undefined {
    return n > this.size ? undefined : this.#times[this.#times.length - n];
  }

  /** Forgets the latest grant made at `time` (one handed back unused). */
  remove(time: number): void {
    const index = this.#times.lastIndexOf(time);
    if (index >= this.#first) this.#times.splice(index, 1);
  }
}
