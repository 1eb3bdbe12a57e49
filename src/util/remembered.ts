// A bounded memo: the value for a key, made once and kept while it is among the `capacity` most recently
// made. For derivations that are pure functions of their key (HMACs), so dropping one only costs a remake.

/** The value `map` holds for `key`, or `make()`'s, kept; past `capacity` the oldest made entry goes. */
export function remembered<V>(map: Map<string, V>, key: string, capacity: number, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    // A Map iterates in insertion order: its first key is the oldest.
    if (map.size >= capacity) map.delete(map.keys().next().value!);
    map.set(key, value);
  }
  return value;
}
