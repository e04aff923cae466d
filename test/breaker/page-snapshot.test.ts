import { describe, expect, it } from "vitest";
import { summarizeOutcome } from "../../breaker/outcome.js";
import { elementRefVariants } from "../../breaker/detectors/element-refs.js";
import { evaluateTrajectory } from "../../breaker/evaluator/evaluate.js";
import { isPageSnapshot, maskSnapshot } from "../../breaker/page-snapshot.js";
import { windowOf } from "./support/window.js";

// A text masked as the output reader masks it: a snapshot's moving parts, any other text as it is.
const maskPageSnapshot = (text: string) => (isPageSnapshot(text) ? maskSnapshot(text) : text);

// A BrowserGym accessibility tree as a WebArena agent reads it after clicking a media player's pause button
// that did not take: the playback clock and the seek slider tick on, a child image gets a fresh bid.
function playerTree(clock: string, seconds: number, imageBid: number, extra = ""): string {
  return [
    "url: https://music.example.test/",
    "RootWebArea 'Vite + React', focused",
    "\t[16] heading 'ACIDWAVE', visible",
    "\t[22] button 'SONGS', clickable, visible",
    "\t\tStaticText 'SONGS'",
    "\t[193] button 'Play SANTA ON A SEGWAY by SCOTT FIELDS', clickable, visible",
    "\t\tStaticText '13:08'",
    "\tStaticText 'THE GREAT RED SPOT'",
    "\t[260] button '', clickable, visible, focused",
    `\t\t[${imageBid}] image '', visible`,
    `\tStaticText '${clock}'`,
    `\t[268] slider '' value=${seconds}, clickable, visible, orientation='horizontal', valuemin=0, valuemax=626.33, valuetext=''`,
    extra,
  ].join("\n");
}

// A Playwright MCP snapshot whose refs are handed out afresh on every snapshot.
function formSnapshot(firstRef: number, heading = "Contact us", url = "https://site.test/contact"): string {
  return [
    `Clicked button "Submit". Page URL: ${url}`,
    `- heading "${heading}" [level=1]`,
    `- textbox "Name" [ref=E${firstRef}]: Jane Doe`,
    `- textbox "Email" [ref=E${firstRef + 1}]: jane@example.com`,
    `- textbox "Message" [ref=E${firstRef + 2}]: Hello`,
    `- button "Submit" [ref=E${firstRef + 3}]`,
  ].join("\n");
}

const fingerprint = (output: string) => summarizeOutcome({ output }).fingerprint;

describe("page snapshots: what moves on its own is masked", () => {
  it("reads a player whose clock, seek slider and child bids tick on as the same page", () => {
    expect(fingerprint(playerTree("0:03", 3, 285))).toBe(fingerprint(playerTree("0:05", 5, 287)));
    expect(fingerprint(playerTree("0:09", 9, 291))).toBe(fingerprint(playerTree("0:11", 12, 293)));
  });

  it("reads a snapshot whose element refs were renumbered as the same page", () => {
    expect(fingerprint(formSnapshot(39))).toBe(fingerprint(formSnapshot(55)));
  });

  it("reads the fragments either side of a cut as the cut, wherever it falls", () => {
    const cut = (tree: string, at: number) => `${tree.slice(0, at)}\n…[trimmed]…\n${tree.slice(-at)}`;
    const a = playerTree("0:09", 9, 291, "\tStaticText 'WATCH AND LEARN'");
    const b = playerTree("0:11", 12, 293, "\tStaticText 'WATCH AND LEARN'");
    expect(fingerprint(cut(a, 200))).toBe(fingerprint(cut(b, 201)));
  });

  it("keeps the lines beside a page's own text that says \"truncated\"", () => {
    const page = (title: string) => playerTree("0:03", 3, 285, `\tStaticText '${title}'\n\tStaticText 'Description truncated for display'\n\t[300] link 'More', clickable`);
    expect(fingerprint(page("Song A"))).not.toBe(fingerprint(page("Song B")));
    const cut = `${formSnapshot(39)}\n[... 120 characters truncated ...]\n- link "Privacy"`;
    expect(maskPageSnapshot(cut)).toContain("<fragment>");
  });

  it("does not hand the masked refs on as fresh ids (which would read as a new thing made)", () => {
    expect(summarizeOutcome({ output: formSnapshot(39) }).ids).toBeUndefined();
  });
});

describe("page snapshots: a page that really changed still reads as changed", () => {
  it("new text on the page", () => {
    expect(fingerprint(playerTree("0:03", 3, 285))).not.toBe(fingerprint(playerTree("0:03", 3, 285, "\tStaticText 'Now paused'")));
    expect(fingerprint(formSnapshot(39))).not.toBe(fingerprint(formSnapshot(55, "Thank you for your message")));
  });

  it("a new element", () => {
    expect(fingerprint(playerTree("0:03", 3, 285))).not.toBe(
      fingerprint(playerTree("0:03", 3, 285, "\t[301] dialog 'Song details', visible")),
    );
  });

  it("a different URL", () => {
    expect(fingerprint(formSnapshot(39))).not.toBe(fingerprint(formSnapshot(39, "Contact us", "https://site.test/contact/sent")));
  });

  it("a control whose state changed (a button that now says Play)", () => {
    const paused = playerTree("0:03", 3, 285).replace("[260] button ''", "[260] button 'Play'");
    expect(fingerprint(playerTree("0:03", 3, 285))).not.toBe(fingerprint(paused));
  });

  it("a field's value typed in", () => {
    expect(fingerprint(formSnapshot(39))).not.toBe(fingerprint(formSnapshot(39).replace(": Hello", ": Hello, I need help")));
  });
});

describe("isPageSnapshot", () => {
  it("reads element lines carrying references as a snapshot", () => {
    expect(isPageSnapshot(playerTree("0:03", 3, 285))).toBe(true);
    expect(isPageSnapshot(formSnapshot(39))).toBe(true);
    expect(isPageSnapshot("[3]<a href=\"/\">Home</a>\n[4]<input placeholder=\"Search\">\n[5]<button>Go</button>")).toBe(true);
  });

  it.each([
    "Meeting moved to 10:30.\nSee [1] and [2] for details.",
    "Results:\n[1] Paris trip, 9:45 departure\n[2] Lyon\n",
    "elapsed 3:05\n- item [ref=a]\n- item",
    "Top results:\n[1] Paris trip, 9:45 departure\n[2] Lyon by train\n[3] Nice 'old town' walk 10:15",
  ])("leaves text that is not a snapshot as it is: %j", (text) => {
    expect(maskPageSnapshot(text)).toBe(text);
  });

  it("keeps a numbered list's numbers and times outside snapshots", () => {
    const a = "Flights:\n[1] AF12 departs 9:45\n[2] AF14 departs 11:10";
    const b = "Flights:\n[1] AF12 departs 9:50\n[2] AF14 departs 11:10";
    expect(fingerprint(a)).not.toBe(fingerprint(b));
  });
});

describe("an action under renumbered element refs", () => {
  // Recorded shape (pilo): the Submit button clicked again and again, the page the same, its refs renumbered each snapshot.
  const clickSubmit = (firstRef: number, page = formSnapshot(firstRef)) => ({ name: "click", args: { ref: `E${firstRef + 3}` }, output: page });
  const run = (calls: object[]) => evaluateTrajectory({ id: "t", toolCalls: [{ role: "user", content: "Submit the contact form." }, ...calls] });

  it("stops the same page coming back whichever ref the click names", async () => {
    const result = await run([39, 55, 10, 24, 58, 32].map((ref) => clickSubmit(ref)));
    expect(result.passed).toBe(false);
  });

  it("spares clicks on other elements that each change the page (fields filled one after another)", async () => {
    const filled = (firstRef: number, upTo: number) =>
      formSnapshot(firstRef)
        .split("\n")
        .map((line, i) => (i >= 2 && i - 2 < upTo ? `${line} [active]` : line))
        .join("\n");
    const result = await run([0, 1, 2, 3, 4].map((n) => ({ name: "click", args: { ref: `E${40 + n}` }, output: filled(10 * n, n + 1) })));
    expect(result.passed).toBe(true);
  });

  it("spares clicks on other elements answered without a page (\"Clicked.\"): nothing shows they are one action", async () => {
    const result = await run([11, 12, 13, 14, 15].map((ref) => ({ name: "click", args: { ref: `e${ref}` }, output: "Clicked." })));
    expect(result.passed).toBe(true);
  });

  it("keeps calls apart that differ in more than the ref (another value typed)", async () => {
    const page = formSnapshot(39);
    const result = await run(["Jane", "Jane Doe", "J. Doe", "Doe", "Jane D."].map((text, i) => ({ name: "type", args: { ref: `E${50 + i}`, text }, output: page })));
    expect(result.passed).toBe(true);
  });
});

describe("elementRefVariants", () => {
  const [a, b, c, d, e, f] = windowOf([
    { tool: "click", args: { ref: "E42" } },
    { tool: "click", args: { ref: "E58" } },
    { tool: "click", args: { ref: "E58", button: "right" } },
    { tool: "click", args: { element: "Submit button", ref: "e12" } },
    { tool: "click", args: { element: "Submit button", ref: "e31" } },
    { tool: "get_order", args: { order: "E58" } },
  ]);

  it("reads calls differing only in an element reference as variants", () => {
    expect(elementRefVariants(a!, b!)).toBe(true);
    expect(elementRefVariants(d!, e!)).toBe(true);
  });

  it("keeps apart another shape, another key and identical calls", () => {
    expect(elementRefVariants(b!, c!)).toBe(false);
    expect(elementRefVariants(a!, f!)).toBe(false);
    expect(elementRefVariants(a!, a!)).toBe(false);
  });
});

describe("a result that says its action changed something", () => {
  // Recorded shape (a browser game-QA agent): coordinate clicks around one spot, the harness comparing screenshots.
  const click = (x: number, y: number, progressed: boolean, reasoning: string) => ({
    name: "click",
    args: { x, y, reasoning },
    output: JSON.stringify({ success: true, stateProgressed: progressed }),
  });
  const around = (progressed: boolean) =>
    [
      [600, 300, "Click the brick field."],
      [610, 300, "Slight horizontal adjustment to explore nearby areas."],
      [590, 300, "Slight horizontal adjustment on the other side."],
      [600, 310, "Slight vertical adjustment to explore nearby areas."],
      [600, 290, "Slight vertical adjustment on the other side."],
      [600, 300, "Central point of previous interactions."],
      [610, 300, "Slight horizontal adjustment to explore nearby areas."],
      [590, 300, "Slight horizontal adjustment on the other side."],
    ].map(([x, y, why]) => click(x as number, y as number, progressed, why as string));
  const run = (calls: object[]) => evaluateTrajectory({ id: "t", toolCalls: [{ role: "user", content: "Play the game." }, ...calls] });

  it("reads a flag set true (`stateProgressed`, `pageChanged`, `changed`) as a change, false or elsewhere as none", () => {
    expect(summarizeOutcome({ output: { success: true, stateProgressed: true } }).changed).toBe(true);
    expect(summarizeOutcome({ output: '{"ok": true, "page_changed": true}' }).changed).toBe(true);
    expect(summarizeOutcome({ output: { changed: true, path: "a.txt" } }).changed).toBe(true);
    expect(summarizeOutcome({ output: { success: true, stateProgressed: false } }).changed).toBeUndefined();
    expect(summarizeOutcome({ output: { changed: "yes" } }).changed).toBeUndefined();
    expect(summarizeOutcome({ output: { result: { changed: true } } }).changed).toBeUndefined();
    expect(summarizeOutcome({ output: { error: "locked", changed: true } }).changed).toBeUndefined();
  });

  it("spares clicks around one spot that each move the game on, and stops the same clicks that change nothing", async () => {
    expect((await run(around(true))).passed).toBe(true);
    expect((await run(around(false))).passed).toBe(false);
  });
});
