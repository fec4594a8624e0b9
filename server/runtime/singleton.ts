/**
 * One instance per process. The custom server (run by tsx) and the Next.js bundle
 * load their own copies of server modules in the same process; keeping shared
 * state on globalThis makes both see the same database client and event bus.
 */
export function singleton<T>(key: string, create: () => T): T {
  const store = globalThis as unknown as Record<symbol, T | undefined>;
  const symbol = Symbol.for(`sprout-workbench.${key}`);
  const existing = store[symbol];
  if (existing !== undefined) return existing;
  const value = create();
  store[symbol] = value;
  return value;
}
