/** The words of a name, split at case changes and separators: "messageId" -> message id, "edit_file" -> edit file. */
export function keyWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}
