import { BoundedCache } from "./bounded-cache.js";

// Tool outputs and model-written arguments repeat a small vocabulary of keys, read by several readers on every
// result (masking, progress, emptiness, the detectors): each name is split once. Bounded: names are untrusted.
const split = new BoundedCache<string, readonly string[]>(4_096);

/**
 * The words of a name, split at case changes and separators: "messageId" -> message id, "edit_file" -> edit file.
 * The same array for the same name, so read-only.
 */
export function keyWords(name: string): readonly string[] {
  let words = split.get(name);
  if (words === undefined) {
    words = name
      .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean);
    split.set(name, words);
  }
  return words;
}
