// Small helpers over Maps.

/** The value of `key` in `map`, made and stored first when there is none. */
export function entry<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let v = map.get(key);
  if (v === undefined) {
    v = make();
    map.set(key, v);
  }
  return v;
}
