/**
 * Resolves as soon as the clock reads later than `after` (now, by default): a row written from then on gets a later
 * millisecond than anything written before the call, which is what a test of "newest first" needs. A wait on that
 * condition rather than a fixed sleep: usually under a millisecond.
 */
export async function clockPast(after: number = Date.now()): Promise<void> {
  while (Date.now() <= after) await new Promise((resolve) => setImmediate(resolve));
}
