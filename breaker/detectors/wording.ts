/** "once", "twice", "3 times": finding sentences read well at every count. */
export function times(n: number): string {
  return n === 1 ? "once" : n === 2 ? "twice" : `${n} times`;
}

/** "1 call", "2 calls". */
export function calls(n: number): string {
  return n === 1 ? "1 call" : `${n} calls`;
}
