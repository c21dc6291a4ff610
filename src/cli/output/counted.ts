/** `1 policy`, `2 policies`: a count and its noun, as the CLI's summary lines write them. */
export function counted(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}
