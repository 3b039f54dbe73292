// The search's highlights: the words found in an element's text wrapped in <mark>, built from its
// text nodes (split where a match starts and ends), never from HTML; and taken out again, leaving
// the text as it was. Which match is current, and the next or previous one, wrapping around.

/** The class of a search highlight. */
export const HIT = "dnb-hit";
/** The class of the match the search is at. */
export const CURRENT = "dnb-hit-current";

// Text that is not searched: what streams (its text node grows in place), buttons, and the marks
// already there.
const SKIP = ".dnb-streaming, button, mark, script, style";

const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Wraps every case-insensitive occurrence of `query` in the text of `root` in a
 * `<mark class="dnb-hit">`; returns the marks in document order. */
export function markText(root: Element, query: string): HTMLElement[] {
  if (!query) return [];
  const pattern = new RegExp(escaped(query), "giu");
  const texts: Text[] = [];
  const walker = root.ownerDocument.createTreeWalker(root, 4 /* NodeFilter.SHOW_TEXT */);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (parent && !parent.closest(SKIP) && (node as Text).data) texts.push(node as Text);
  }
  const marks: HTMLElement[] = [];
  for (const text of texts) {
    const found = [...text.data.matchAll(pattern)].filter((m) => m[0].length > 0);
    let rest = text;
    let at = 0; // where `rest` starts in the original text
    for (const match of found) {
      const start = match.index! - at;
      const hit = start > 0 ? rest.splitText(start) : rest;
      rest = hit.splitText(match[0].length);
      at = match.index! + match[0].length;
      const mark = root.ownerDocument.createElement("mark");
      mark.className = HIT;
      hit.parentNode!.replaceChild(mark, hit);
      mark.appendChild(hit);
      marks.push(mark);
    }
  }
  return marks;
}

/** Takes the search's marks out of `root`, joining the text they split. */
export function unmark(root: Element): void {
  const marks = root.querySelectorAll(`mark.${HIT}`);
  const parents = new Set<Node>();
  for (const mark of marks) {
    const parent = mark.parentNode;
    if (!parent) continue;
    while (mark.firstChild) parent.insertBefore(mark.firstChild, mark);
    parent.removeChild(mark);
    parents.add(parent);
  }
  for (const parent of parents) parent.normalize();
}

/** The index after (or, `back`, before) `current` among `count` matches, wrapping around; 0 when
 * none is current yet (or the last one, going back). */
export function step(current: number, count: number, back = false): number {
  if (count <= 0) return -1;
  if (current < 0 || current >= count) return back ? count - 1 : 0;
  return (current + (back ? count - 1 : 1)) % count;
}

/** "match 2 of 7"; "no match". */
export function matchWords(current: number, count: number): string {
  if (count === 0) return "no match";
  return `match ${current < 0 ? 0 : current + 1} of ${count}`;
}
