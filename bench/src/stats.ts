/** Small statistics helpers. */

/** The median (mean of the middle two for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** `a[i] / b[i]` for each round i. */
export function ratios(a: readonly number[], b: readonly number[]): number[] {
  return a.map((value, i) => value / b[i]);
}

/** The first and third quartiles (the medians of the lower and upper halves). */
export function quartiles(values: readonly number[]): [number, number] {
  const sorted = [...values].sort((a, b) => a - b);
  const half = sorted.length >> 1;
  return [median(sorted.slice(0, half)), median(sorted.slice(sorted.length - half))];
}

/** A new array of `items` in random order (Fisher–Yates). */
export function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}
