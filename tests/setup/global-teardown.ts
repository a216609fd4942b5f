/** Jest global teardown: stops the product, the Temporal dev server and embedded PostgreSQL. */
export default async function globalTeardown(): Promise<void> {
  const fn = (globalThis as Record<string, unknown>).__PP_TEARDOWN__ as (() => Promise<void>) | undefined;
  if (fn) await fn();
}
