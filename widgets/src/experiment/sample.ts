// The sample view: the drill-in from a matrix cell, drawn above that run's full view. Its title
// says the row, variant and epoch; then the input, the reference and the answer (Markdown the
// kernel rendered and escaped: deepnb/views/experiment/sample.py), every score with its comment
// (a person's grade marked human), tokens, cost, time and cache hits; buttons to the previous and
// next sample of the matrix, to the row's other epochs and variants, and Close (Escape too); and
// a form that sets a person's grade of any scorer, or of `human`, which the kernel saves to the
// log at once (Experiment.grade) and sends back in the sample.
//
// Security: the input, reference and answer are the only HTML set, each rendered and escaped in
// Python; every other string goes into the DOM as text (lib/dom.ts).

import { h, ownKeys, setText, smallButton } from "../lib/dom";
import { isObj, list, num, str } from "../lib/text";
import { MARK, scoreColour, type Verdict } from "./filters";

/** A sample: its dataset row, variant and epoch. */
export interface SampleKey { row: number; variant: string; epoch: number }

/** What the sample view sends up: a person's grade of the shown sample. */
export interface Grade extends SampleKey { scorer: string; score: number; comment: string }

export interface SampleActions {
  open(key: SampleKey): void;
  close(): void;
  grade(grade: Grade): void;
  /** The samples before and after `key` in the matrix as it is shown (null at either end). */
  around(key: SampleKey): { prev: SampleKey | null; next: SampleKey | null };
}

export interface SampleView {
  el: HTMLElement;
  /** Draws `sample` (the `sample` trait; hidden when it is empty). */
  show(sample: unknown): void;
  /** The kernel refused something: said in the grade form too, while a grade is on its way. */
  refused(notice: string): void;
  /** The shown sample, if any. */
  key(): SampleKey | null;
}

let views = 0;

/** The sample's key, when `sample` is one. */
export function keyOfSample(sample: unknown): SampleKey | null {
  if (!isObj(sample) || !Number.isInteger(sample.row) || typeof sample.variant !== "string") return null;
  return { row: num(sample.row), variant: str(sample.variant), epoch: num(sample.epoch) };
}

const sameKey = (a: SampleKey | null, b: SampleKey | null): boolean =>
  Boolean(a && b && a.row === b.row && a.variant === b.variant && a.epoch === b.epoch);

/** A labelled part holding Markdown the kernel rendered (or a note that there is none). */
function rendered(cls: string, label: string, html: unknown): HTMLElement {
  const part = h("section", `dnb-sample-part ${cls}`);
  part.append(h("h4", "dnb-sample-label", label));
  const body = h("div", "dnb-md dnb-sample-md");
  const given = str(html);
  if (given) body.innerHTML = given; // rendered and escaped in Python (deepnb/views/experiment/sample.py)
  else body.append(h("span", "dnb-sample-none", "(none)"));
  part.append(body);
  return part;
}

/** A button that opens another sample. */
function openButton(label: string, key: SampleKey, title: string, current = false): HTMLButtonElement {
  const button = smallButton("dnb-sample-open", label, title);
  button.setAttribute("data-open-row", String(key.row));
  button.setAttribute("data-open-variant", key.variant);
  button.setAttribute("data-open-epoch", String(key.epoch));
  if (current) button.setAttribute("aria-current", "true");
  return button;
}

/** The score table: a row per scorer with its mark, score, who set it and its comment. */
function scoresTable(scores: unknown[]): HTMLTableElement {
  const table = h("table", "dnb-sample-scores");
  table.setAttribute("aria-label", "Scores");
  const head = h("tr");
  for (const name of ["Scorer", "Score", "Comment"]) {
    const th = h("th", undefined, name);
    th.setAttribute("scope", "col");
    head.append(th);
  }
  table.append(h("thead"), h("tbody"));
  table.tHead!.append(head);
  for (const given of scores.filter(isObj)) {
    const verdict = str(given.verdict) as Verdict;
    const tr = h("tr");
    setAttrs(tr, { "data-scorer": str(given.scorer), "data-verdict": verdict || "none" });
    const score = h("td", "dnb-sample-score");
    score.append(h("span", "dnb-experiment-score", `${MARK[verdict] ?? "·"} ${str(given.text)}${verdict ? ` ${verdict}` : ""}`));
    const colour = scoreColour(given.score);
    if (colour) (score.firstChild as HTMLElement).style.backgroundColor = colour;
    if (given.human) score.append(" ", h("span", "dnb-sample-human", "human"));
    const comment = h("td", "dnb-sample-comment", str(given.comment) || (given.error ? "" : "–"));
    if (given.error) comment.append(h("div", "dnb-sample-error", `error: ${str(given.error)}`));
    tr.append(h("td", undefined, str(given.scorer)), score, comment);
    table.tBodies[0].append(tr);
  }
  return table;
}

function setAttrs(node: Element, attrs: Record<string, string>): void {
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
}

/** Tokens, cost, time, cache hits and status, as a list of terms. */
function measures(sample: Record<string, any>): HTMLElement {
  const dl = h("dl", "dnb-sample-measures");
  const cached = num(sample.cached);
  for (const [term, value] of [
    ["Status", str(sample.status)], ["Tokens in / out", str(sample.tokens)], ["Cost", str(sample.cost)],
    ["Time", str(sample.time)], ["Cache hits", cached ? `⟲ ${cached} model call${cached === 1 ? "" : "s"}` : "none"],
  ]) dl.append(h("dt", undefined, term), h("dd", undefined, value));
  return dl;
}

interface GradeForm {
  el: HTMLElement;
  /** Resets the form for a new sample (its scorers). */
  reset(scorers: string[], gradable: boolean): void;
  /** The kernel answered: the sample as it now is, or a refusal. */
  answered(sample: Record<string, any> | null, notice: string): void;
}

/** The grade form: a scorer (any of the sample's, or `human`), a score, a comment and Save. */
function gradeForm(id: number, key: () => SampleKey | null, send: (grade: Grade) => void): GradeForm {
  const el = h("fieldset", "dnb-sample-grade");
  el.append(h("legend", undefined, "Your grade (saved to the log as human)"));
  const scorer = ownKeys(h("select", "dnb-sample-grade-scorer"));
  scorer.id = `dnb-sample-${id}-scorer`;
  const score = ownKeys(h("input", "dnb-sample-grade-score"));
  score.type = "number";
  score.step = "any";
  score.id = `dnb-sample-${id}-score`;
  score.placeholder = "1 = pass, 0 = fail";
  const comment = ownKeys(h("textarea", "dnb-sample-grade-comment"));
  comment.id = `dnb-sample-${id}-comment`;
  comment.rows = 2;
  comment.placeholder = "Why (optional)";
  const pass = smallButton("dnb-sample-grade-pass", "✓ Pass (1)", "Set the score to 1");
  const fail = smallButton("dnb-sample-grade-fail", "✗ Fail (0)", "Set the score to 0");
  const save = smallButton("dnb-sample-grade-save", "Save grade", "Save this grade to the experiment's log");
  const status = h("div", "dnb-sample-grade-status");
  status.setAttribute("role", "status");
  const label = (text: string, control: HTMLElement): HTMLLabelElement => {
    const node = h("label", undefined, text);
    node.htmlFor = control.id;
    return node;
  };
  const row = h("div", "dnb-sample-grade-row");
  row.append(label("Scorer", scorer), scorer, label("Score", score), score, pass, fail);
  el.append(row, label("Comment", comment), comment, save, status);
  let pending: Grade | null = null;
  pass.addEventListener("click", () => { score.value = "1"; });
  fail.addEventListener("click", () => { score.value = "0"; });
  save.addEventListener("click", () => {
    const shown = key();
    const value = Number(score.value);
    if (!shown) return;
    if (score.value.trim() === "" || !Number.isFinite(value)) {
      setText(status, "A grade's score is a number: 1 for pass, 0 for fail, or any value between.");
      score.focus();
      return;
    }
    pending = { ...shown, scorer: scorer.value, score: value, comment: comment.value };
    setText(status, `Saving ${scorer.value} = ${value}…`);
    send(pending);
  });
  return {
    el,
    reset(scorers, gradable) {
      const names = [...new Set([...scorers, "human"])];
      scorer.replaceChildren(...names.map((name) => {
        const node = h("option", undefined, name);
        node.value = name;
        return node;
      }));
      scorer.value = "human";
      score.value = "";
      comment.value = "";
      pending = null;
      save.disabled = !gradable;
      setText(status, gradable ? "" : "This run has not ended: grade it once it is done.");
    },
    answered(sample, notice) {
      if (sample && !pending) {
        save.disabled = !sample.gradable;
        setText(status, sample.gradable ? status.textContent : "This run has not ended: grade it once it is done.");
      }
      if (!pending) return;
      if (notice) {
        setText(status, `Not saved: ${notice}`);
        pending = null;
        return;
      }
      const given = list(sample?.scores).filter(isObj).find((s) => str(s.scorer) === pending!.scorer);
      if (given && given.human && num(given.score) === pending.score) {
        setText(status, `Saved: ${pending.scorer} = ${str(given.text)} (human).`);
        pending = null;
      }
    },
  };
}

export function sampleView(actions: SampleActions): SampleView {
  const id = ++views;
  const el = ownKeys(h("section", "dnb-experiment-sample"));
  el.setAttribute("role", "region");
  el.setAttribute("aria-labelledby", `dnb-sample-${id}-title`);
  el.hidden = true;
  const title = h("h3", "dnb-sample-title");
  title.id = `dnb-sample-${id}-title`;
  title.tabIndex = -1;
  const close = smallButton("dnb-sample-close", "✕ Close", "Close the sample (Escape)");
  close.setAttribute("aria-label", "Close the sample");
  const prev = smallButton("dnb-sample-prev", "← Previous", "The previous sample in the matrix");
  const next = smallButton("dnb-sample-next", "Next →", "The next sample in the matrix");
  const head = h("div", "dnb-sample-head");
  const buttons = h("div", "dnb-sample-nav");
  buttons.append(prev, next, close);
  head.append(title, buttons);
  const links = h("div", "dnb-sample-links");
  const body = h("div", "dnb-sample-body");
  let shown: SampleKey | null = null;
  const form = gradeForm(id, () => shown, (grade) => actions.grade(grade));
  el.append(head, links, body, form.el);
  let around: { prev: SampleKey | null; next: SampleKey | null } = { prev: null, next: null };

  close.addEventListener("click", () => actions.close());
  prev.addEventListener("click", () => { if (around.prev) actions.open(around.prev); });
  next.addEventListener("click", () => { if (around.next) actions.open(around.next); });
  links.addEventListener("click", (event) => {
    const button = (event.target as Element | null)?.closest?.("[data-open-row]");
    if (!button || !links.contains(button)) return;
    actions.open({
      row: num(button.getAttribute("data-open-row")), variant: str(button.getAttribute("data-open-variant")),
      epoch: num(button.getAttribute("data-open-epoch")),
    });
  });

  function drawLinks(sample: Record<string, any>, key: SampleKey): void {
    const others = isObj(sample.others) ? sample.others : {};
    const epochs = list(others.epochs);
    const parts: HTMLElement[] = [];
    if (epochs.length > 1) {
      const group = h("div", "dnb-sample-epochs");
      group.setAttribute("role", "group");
      group.setAttribute("aria-label", "This row and variant's epochs");
      group.append(h("span", "dnb-sample-label", "Epochs"));
      epochs.forEach((status, epoch) => group.append(openButton(`epoch ${epoch}`, { ...key, epoch },
        `Open epoch ${epoch} (${str(status)})`, epoch === key.epoch)));
      parts.push(group);
    }
    const variants = list(others.variants).filter((pair) => Array.isArray(pair));
    if (variants.length > 1) {
      const group = h("div", "dnb-sample-variants");
      group.setAttribute("role", "group");
      group.setAttribute("aria-label", "This row's other variants");
      group.append(h("span", "dnb-sample-label", "Variants"));
      for (const [variant, status] of variants) {
        const name = str(variant);
        group.append(openButton(name, { ...key, variant: name }, `Open ${name}'s epoch ${key.epoch} (${str(status)})`,
          name === key.variant));
      }
      parts.push(group);
    }
    links.replaceChildren(...parts);
  }

  function draw(sample: Record<string, any>, key: SampleKey): void {
    setText(title, str(sample.title));
    drawLinks(sample, key);
    around = actions.around(key);
    prev.disabled = !around.prev;
    next.disabled = !around.next;
    const texts = h("div", "dnb-sample-given");
    texts.append(rendered("dnb-sample-input", "Input", sample.input),
      rendered("dnb-sample-reference", "Reference", sample.reference));
    const parts: HTMLElement[] = [texts, rendered("dnb-sample-answer", "Answer", sample.answer)];
    if (str(sample.output)) {
      const output = h("section", "dnb-sample-part");
      output.append(h("h4", "dnb-sample-label", "Structured output"), h("pre", "dnb-sample-output", str(sample.output)));
      parts.push(output);
    }
    if (str(sample.error)) parts.push(h("div", "dnb-sample-error", `Error: ${str(sample.error)}`));
    const scores = h("section", "dnb-sample-part");
    scores.append(h("h4", "dnb-sample-label", "Scores"), scoresTable(list(sample.scores)));
    parts.push(scores, measures(sample));
    body.replaceChildren(...parts);
  }

  return {
    el,
    key: () => shown,
    show(sample) {
      const key = keyOfSample(sample);
      if (!key || !isObj(sample)) {
        shown = null;
        el.hidden = true;
        body.replaceChildren();
        links.replaceChildren();
        return;
      }
      const fresh = !sameKey(key, shown);
      shown = key;
      el.hidden = false;
      draw(sample, key);
      if (fresh) {
        form.reset(list(sample.scores).filter(isObj).map((s) => str(s.scorer)), Boolean(sample.gradable));
        el.scrollTop = 0;
        title.focus({ preventScroll: true });
        if (typeof title.scrollIntoView === "function") title.scrollIntoView({ block: "start" });
      } else {
        form.answered(sample, "");
      }
    },
    refused(notice) {
      if (notice) form.answered(null, notice);
    },
  };
}
