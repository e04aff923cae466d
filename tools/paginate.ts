/** One page cut from a list, and where the next page starts (null on the last page). */
export interface Page<T> {
  items: T[];
  next: number | null;
}

/** Cut items[offset, offset + limit); shared by the offset-based and page-based pagers. */
export function pageOf<T>(items: readonly T[], offset: number, limit: number): Page<T> {
  const end = offset + limit;
  return { items: items.slice(offset, end), next: end < items.length ? end : null };
}
