/** One value made on first request; `opened` is its promise once requested. */
export function lazily<T>(make: () => Promise<T>): {
  get(): Promise<T>;
  opened(): Promise<T> | undefined;
} {
  let made: Promise<T> | undefined;
  return {
    get: () => (made ??= make()),
    opened: () => made,
  };
}
