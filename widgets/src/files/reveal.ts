// A grep hit opens its file at the line: the line is marked and scrolled into view. In code and
// text (one `pre`, one line per text line) the mark is placed by line number; in rendered Markdown
// (where source lines are gone) on the first block holding the hit's text, else the query.

export interface LineTarget {
  line: number;
  /** The hit's line as the file has it. */
  text?: string;
  /** What was searched for. */
  query?: string;
}

const MARK = "dnb-fv-line-mark";
const BLOCKS = "h1, h2, h3, h4, h5, h6, p, li, td, th, blockquote, pre, dt, dd";

/** Removes an earlier mark from `content`. */
export function clearMark(content: HTMLElement): void {
  content.querySelectorAll(`.${MARK}`).forEach((el) => el.remove());
  content.querySelectorAll(".dnb-fv-hit-block").forEach((el) => el.classList.remove("dnb-fv-hit-block"));
}

const plain = (text: string): string =>
  text.replace(/^\s*(#{1,6}\s+|[-*+]\s+(\[.\]\s+)?|\d+[.)]\s+|>\s*)/, "").replace(/[*_`~]/g, "").trim().toLowerCase();

function markCode(pre: HTMLElement, target: LineTarget): HTMLElement {
  const win = pre.ownerDocument.defaultView;
  const style = win ? win.getComputedStyle(pre) : null;
  const lineHeight = (style && parseFloat(style.lineHeight)) || 1.4 * ((style && parseFloat(style.fontSize)) || 12);
  const padding = (style && parseFloat(style.paddingTop)) || 0;
  const mark = document.createElement("div");
  mark.className = MARK;
  mark.setAttribute("data-line", String(target.line));
  mark.setAttribute("aria-hidden", "true");
  mark.style.top = `${padding + (target.line - 1) * lineHeight}px`;
  mark.style.height = `${lineHeight}px`;
  pre.classList.add("dnb-fv-marked");
  pre.prepend(mark);
  return mark;
}

function markBlock(content: HTMLElement, target: LineTarget): HTMLElement | null {
  const blocks = [...content.querySelectorAll<HTMLElement>(BLOCKS)]
    .filter((el) => !el.querySelector(BLOCKS)); // the innermost
  const line = plain(target.text || "");
  const query = (target.query || "").trim().toLowerCase();
  const found = (line && blocks.find((el) => (el.textContent || "").toLowerCase().includes(line))) ||
    (query && blocks.find((el) => (el.textContent || "").toLowerCase().includes(query))) || null;
  if (found) found.classList.add("dnb-fv-hit-block");
  return found;
}

/** Marks `target` in a file's rendered `content` and scrolls it into view; returns the element
 * marked (null when nothing matches). */
export function revealLine(content: HTMLElement, kind: string, target: LineTarget): HTMLElement | null {
  clearMark(content);
  if (!(target.line >= 1)) return null;
  const pre = content.querySelector<HTMLElement>(":scope > pre, :scope > .dnb-code, :scope > div > pre.dnb-code");
  const marked = kind !== "markdown" && pre ? markCode(pre, target) : markBlock(content, target);
  if (marked && marked.scrollIntoView) marked.scrollIntoView({ block: "center" });
  return marked;
}
