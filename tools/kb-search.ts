import { z } from "zod";
import { defineTool } from "./define-tool.js";
import { KB_ARTICLES, type KbArticle } from "./fixtures/kb-articles.js";
import { pageOf } from "./paginate.js";

const schema = z.object({
  query: z.string().trim().min(1).describe("Keywords to look for; every keyword must appear in an article."),
  offset: z.number().int().min(0).default(0).describe("Index of the first result to return; use next_offset from the previous page."),
  limit: z.number().int().min(1).max(20).default(5).describe("Most results to return on this page."),
});

// Words too common to narrow a search; dropping them keeps "how do I ..." queries answerable.
const STOPWORDS = new Set(["a", "an", "and", "the", "to", "of", "in", "on", "for", "how", "do", "i", "my", "is", "what", "with"]);

function keywords(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => !STOPWORDS.has(w));
}

const INDEXED = KB_ARTICLES.map((article) => ({
  article,
  words: new Set(keywords(`${article.title} ${article.tags.join(" ")} ${article.body}`)),
}));

function matching(query: string): KbArticle[] {
  const wanted = keywords(query);
  if (wanted.length === 0) return [];
  return INDEXED.filter(({ words }) => wanted.every((w) => words.has(w))).map(({ article }) => article);
}

/**
 * Keyword search over the knowledge base, paged by offset. A query without
 * hits answers the same empty page at every offset: paging through it is the stutter scenario.
 */
export const kbSearch = defineTool(
  {
    name: "kb_search",
    description:
      "Search knowledge-base articles by keywords (all must match, whole words, case-insensitive). Results are paged: pass next_offset as offset to get the next page; next_offset is null on the last page.",
    schema,
    nature: "pagination",
    timeoutMs: 5_000,
    examples: [{ query: "billing" }, { query: "billing", offset: 5, limit: 5 }],
  },
  ({ query, offset, limit }) => {
    const hits = matching(query);
    const page = pageOf(hits, offset, limit);
    return {
      results: page.items.map(({ id, title, tags, body }) => ({ id, title, tags: [...tags], snippet: body })),
      total: hits.length,
      next_offset: page.next,
    };
  },
);
