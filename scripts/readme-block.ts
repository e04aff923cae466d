/** The README with the text between `start` and `end` (markers kept) replaced by `body`. */
export function withBlock(readme: string, start: string, end: string, body: string): string {
  const from = readme.indexOf(start);
  const to = readme.indexOf(end);
  if (from < 0 || to < from) throw new Error(`README.md lacks the ${start} ... ${end} block.`);
  return `${readme.slice(0, from + start.length)}\n${body}\n${readme.slice(to)}`;
}
