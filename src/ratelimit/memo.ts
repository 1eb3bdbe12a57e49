// A bounded memo for per-request lookups whose inputs repeat (a Client ID, a keep-alive connection's
// address): computed once, then one Map read. When full it starts over, so a flood of distinct inputs
// costs what it would without the memo, and memory stays bounded.

export class BoundedMemo<K, V> {
  readonly #values = new Map<K, V>();

  constructor(private readonly max: number, private readonly compute: (key: K) => V) {
    if (!(Number.isInteger(max) && max >= 1)) throw new Error('BoundedMemo: max must be an integer >= 1');
  }

  get size(): number {
    return this.#values.size;
  }

  get(key: K): V {
    if (this.#values.has(key)) return this.#values.get(key) as V;
    const value = this.compute(key);
    if (this.#values.size >= this.max) this.#values.clear();
    this.#values.set(key, value);
    return value;
  }
}
