/**
 * A browser agent's page snapshot (an accessibility tree or DOM outline, as
 * BrowserGym writes it: `[260] button 'Pause', clickable`, or as Playwright
 * MCP does: `- button "Submit" [ref=e42]`) carries values that move whether
 * or not the agent's action did anything: element reference numbers handed
 * out afresh on every snapshot, a media player's position ticking on, its
 * seek slider following it. Masked, a click that changed nothing reads as the
 * same page; new text, new elements or another URL still read as a change.
 */

// A node line with its reference: `\t[260] button 'Pause'` (BrowserGym's bid before a role and its quoted name),
// `[12]<button>` (browser-use's index before a tag) or `... [ref=e42]` (Playwright MCP's). A numbered list
// (`[1] Paris trip`) has no role word followed by a quoted name, nor a tag.
const BID_NODE = /^([ \t]*(?:- )?)\[[A-Za-z]{0,2}\d+\](?= ?<[A-Za-z]| [A-Za-z]+ ['"])/gm;
const REF_ATTRIBUTE = /\[ref=[A-Za-z]{0,3}\d+\]/g;
// A snapshot lists several elements: fewer such lines are prose that happens to quote one.
const MIN_NODES = 3;

// A position on a clock without hours, in a snapshot's text (`StaticText '0:03'`, `0:03 / 10:26`): a media time.
const CLOCK_POSITION = /(?<![\d:])\d{1,3}:[0-5]\d(?![\d:])/g;
// A slider's current value (a seek bar, moved by playback): its line keeps its role, name and range.
const SLIDER_LINE = /^.*\bslider\b.*$/gm;
const SLIDER_VALUE = /\b(value|valuenow|aria-valuenow)(=|: ?)(['"]?)-?\d+(\.\d+)?\3/g;

// A snapshot cut in the middle to fit (`…[trimmed]…`, `[... 120 characters truncated ...]`): the lines either
// side of the cut are fragments whose extent moves with the length of everything before them.
// Only a line that is the marker alone: a page's own text saying "truncated" is content.
const CUT_MARKER = /^[\s.…]*\[[^\]\n]{0,60}\b(trimmed|truncated)\b[^\]\n]{0,60}\][\s.…]*$/i;

// Cheap tests first: a snapshot has line breaks and brackets.
const MAY_BE_SNAPSHOT = /\n[^\n]*\[/;

function countNodes(text: string): number {
  let count = 0;
  for (const pattern of [BID_NODE, REF_ATTRIBUTE]) {
    pattern.lastIndex = 0;
    while (pattern.exec(text) && ++count < MIN_NODES);
    pattern.lastIndex = 0;
    if (count >= MIN_NODES) return count;
  }
  return count;
}

function withoutCutFragments(text: string): string {
  const lines = text.split("\n");
  if (!lines.some((line) => CUT_MARKER.test(line))) return text;
  return lines
    .map((line, i) => {
      if (CUT_MARKER.test(line)) return line;
      const beside = CUT_MARKER.test(lines[i - 1] ?? "") || CUT_MARKER.test(lines[i + 1] ?? "");
      return beside ? "<fragment>" : line;
    })
    .join("\n");
}

/** True when a text reads as a page snapshot: several element lines carrying a reference. */
export function isPageSnapshot(text: string): boolean {
  // A one-line text (most values in a result) cannot hold a node line below another: no scan.
  return text.includes("\n") && MAY_BE_SNAPSHOT.test(text) && countNodes(text) >= MIN_NODES;
}

/**
 * A text already known to be a page snapshot (`isPageSnapshot`, asked once by
 * the caller, which keeps the answer) with its element references, media
 * clock positions and slider values masked.
 */
export function maskSnapshot(text: string): string {
  return withoutCutFragments(text)
    .replace(BID_NODE, "$1[<ref>]")
    .replace(REF_ATTRIBUTE, "[ref=<ref>]")
    .replace(SLIDER_LINE, (line) => line.replace(SLIDER_VALUE, "$1$2$3<value>$3"))
    .replace(CLOCK_POSITION, "<clock>");
}
