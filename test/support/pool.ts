/** Runs `task(i)` for i in [0, total) with at most `concurrency` in flight; the results in order. Benches and the side-by-side runner share it. */
export async function pool<T>(total: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array<T>(total);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < total; i = next++) out[i] = await task(i);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, total)) }, worker));
  return out;
}
