// deepnb's experiment report: the matrix, its filters and the sample view, drawn from the page's
// JSON (deepnb/many/report_data.py). Every text is set as text; only the input, the reference and
// the answer are HTML, rendered safe by deepnb's Markdown renderer before they were written here.
(() => {
  "use strict";
  const D = JSON.parse(document.getElementById("dnb-data").textContent);
  const app = document.getElementById("dnb-app");
  const PAGE = 200;
  const ENDED_BADLY = new Set(["error", "cancelled", "interrupted", "unsaved"]);
  const V = D.variants;
  const S = D.scorers;
  const T = D.threshold;

  const rowOf = new Map(D.rows.map((row) => [row.i, row]));
  const cells = new Map(); // "row|variant" -> runs by epoch
  for (const run of D.runs) {
    const key = `${run.r}|${run.v}`;
    if (!cells.has(key)) cells.set(key, []);
    cells.get(key)[run.e] = run;
  }
  const state = { failures: false, scorer: -1, variant: -1, status: "", q: "", shown: PAGE, sort: null, dir: 1 };

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name === "class") node.className = value;
      else if (name === "text") node.textContent = value;
      else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  function safeHtml(html) {
    // deepnb's renderer made this HTML from the text (raw HTML off, every text escaped)
    const box = el("div", { class: "dnb-md" });
    box.innerHTML = html;
    return box;
  }

  const num = (value, digits = 2) => (value === null || value === undefined ? "–" : value.toFixed(digits));
  const plainText = (html) =>
    (html || "")
      .replace(/<[^>]*>/g, " ")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&quot;/g, '"')
      .replace(/&#x27;/g, "'")
      .replace(/&amp;/g, "&");
  const clip = (text, limit) => {
    const words = text.split(/\s+/).filter(Boolean).join(" ");
    return words.length <= limit ? words : `${words.slice(0, limit - 1)}…`;
  };

  const visibleScorers = () => (state.scorer < 0 ? S.map((_, n) => n) : [state.scorer]);
  const visibleVariants = () => (state.variant < 0 ? V.map((_, n) => n) : [state.variant]);
  const scoreOf = (run, scorer) => (run && run.sc ? run.sc.find((s) => s[0] === scorer) : undefined);

  function verdict(run, scorers) {
    // "pass", "fail", "error" (the run or a scorer failed), or "" (not ended, not scored)
    if (!run) return "";
    if (ENDED_BADLY.has(run.s)) return "error";
    if (run.s !== "done") return "";
    let scored = false;
    for (const scorer of scorers) {
      const given = scoreOf(run, scorer);
      if (!given) continue;
      if (given[3] && given[1] === null) return "error";
      if (given[1] === null) continue;
      scored = true;
      if (given[1] < T) return "fail";
    }
    return scored ? "pass" : "";
  }

  const fails = (run, scorers) => ["fail", "error"].includes(verdict(run, scorers));
  const MARK = { pass: "✓", fail: "✗", error: "!", "": "·" };

  function cellMean(runs, scorer) {
    const values = runs.map((run) => scoreOf(run, scorer)).filter((s) => s && s[1] !== null).map((s) => s[1]);
    return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
  }

  function colour(value) {
    // a scale from red (0) to green (1); the score is always written beside it
    const share = Math.max(0, Math.min(1, value));
    return `hsl(${Math.round(share * 120)} 70% 50% / 0.22)`;
  }

  const searchText = new Map();
  function rowText(row) {
    if (!searchText.has(row.i)) {
      const parts = [row.t, plainText(row.in), plainText(row.ref)];
      for (let v = 0; v < V.length; v += 1) {
        for (const run of cells.get(`${row.i}|${v}`) || []) if (run) parts.push(plainText(run.a), run.x || "");
      }
      searchText.set(row.i, parts.join("\n").toLowerCase());
    }
    return searchText.get(row.i);
  }

  function matchingRows() {
    const scorers = visibleScorers();
    const variants = visibleVariants();
    const query = state.q.trim().toLowerCase();
    const rows = D.rows.filter((row) => {
      const runs = variants.flatMap((v) => cells.get(`${row.i}|${v}`) || []).filter(Boolean);
      if (state.failures && !runs.some((run) => fails(run, scorers))) return false;
      if (state.status && !runs.some((run) => run.s === state.status)) return false;
      if (query && !rowText(row).includes(query)) return false;
      return true;
    });
    if (state.sort !== null) {
      const scorer = scorers[0];
      const key = (row) => cellMean(cells.get(`${row.i}|${state.sort}`) || [], scorer);
      rows.sort((a, b) => {
        const x = key(a);
        const y = key(b);
        if (x === y) return a.i - b.i;
        if (x === null) return 1;
        if (y === null) return -1;
        return (x - y) * state.dir;
      });
    }
    return rows;
  }

  // -- the controls ---------------------------------------------------------------------------

  function options(label, all, names, value) {
    return el(
      "select",
      { "aria-label": label },
      el("option", { value: "-1", text: all }),
      names.map((name, n) => el("option", { value: String(n), text: name, selected: n === value })),
    );
  }

  const statuses = [...new Set(D.runs.map((run) => run.s))].sort();
  const failures = el("input", { type: "checkbox", id: "dnb-failures" });
  const scorerSelect = options("Scorer", "every scorer", S, -1);
  const variantSelect = options("Variant", "every variant", V, -1);
  const statusSelect = el(
    "select",
    { "aria-label": "Status" },
    el("option", { value: "", text: "any status" }),
    statuses.map((s) => el("option", { value: s, text: s })),
  );
  const search = el("input", { type: "search", placeholder: "Search inputs and answers", "aria-label": "Search" });
  const count = el("p", { class: "dnb-note", role: "status", "aria-live": "polite" });
  const table = el("table", { class: "dnb-matrix", "aria-label": "Matrix: rows × variants" });
  const more = el("button", { type: "button", class: "dnb-more" });

  const changed = () => {
    state.shown = PAGE;
    draw();
  };
  failures.addEventListener("change", () => {
    state.failures = failures.checked;
    changed();
  });
  scorerSelect.addEventListener("change", () => {
    state.scorer = Number(scorerSelect.value);
    changed();
  });
  variantSelect.addEventListener("change", () => {
    state.variant = Number(variantSelect.value);
    if (state.sort !== null && state.variant >= 0 && state.sort !== state.variant) state.sort = null;
    changed();
  });
  statusSelect.addEventListener("change", () => {
    state.status = statusSelect.value;
    changed();
  });
  search.addEventListener("input", () => {
    state.q = search.value;
    changed();
  });
  more.addEventListener("click", () => {
    state.shown += PAGE;
    draw();
  });

  app.replaceChildren(
    el(
      "div",
      { class: "dnb-filters", role: "group", "aria-label": "Filters" },
      el("label", { for: "dnb-failures" }, failures, " failures only"),
      el("label", {}, "scorer ", scorerSelect),
      el("label", {}, "variant ", variantSelect),
      el("label", {}, "status ", statusSelect),
      search,
    ),
    count,
    el("div", { class: "dnb-scroll" }, table),
    more,
  );

  // -- the matrix -----------------------------------------------------------------------------

  function sortButton(label, sort) {
    const on = state.sort === sort;
    const arrow = on ? (state.dir > 0 ? " ▲" : " ▼") : "";
    return el("button", {
      type: "button",
      class: "dnb-sort",
      text: label + arrow,
      "aria-label": sort === null ? "Sort by row" : `Sort by ${label}'s score`,
      onclick: () => {
        if (state.sort === sort && sort !== null) state.dir = -state.dir;
        else [state.sort, state.dir] = [sort, 1];
        draw();
      },
    });
  }

  function scoreBadge(runs, scorer) {
    const mean = cellMean(runs, scorer);
    const failed = runs.some((run) => {
      const given = scoreOf(run, scorer);
      return given && given[3] && given[1] === null;
    });
    const human = runs.some((run) => {
      const given = scoreOf(run, scorer);
      return given && given[4];
    });
    const mark = mean === null ? (failed ? "!" : "–") : mean >= T ? "✓" : "✗";
    const badge = el("span", {
      class: `dnb-score ${mean === null ? (failed ? "dnb-error" : "") : mean >= T ? "dnb-pass" : "dnb-fail"}`,
      text: `${mark} ${S[scorer]} ${mean === null ? (failed ? "error" : "–") : num(mean)}${human ? " (human)" : ""}`,
    });
    if (mean !== null) badge.style.backgroundColor = colour(mean);
    return badge;
  }

  function cell(row, v, scorers) {
    const runs = (cells.get(`${row.i}|${v}`) || []).filter(Boolean);
    const td = el("td", {});
    td.append(el("div", { class: "dnb-scores" }, scorers.map((s) => scoreBadge(runs, s))));
    const strip = el("div", { class: "dnb-epochs", role: "group", "aria-label": "epochs" });
    for (const run of runs) {
      const said = verdict(run, scorers);
      strip.append(
        el("button", {
          type: "button",
          class: `dnb-epoch dnb-${said || "none"}`,
          text: `${MARK[said]} e${run.e}`,
          "aria-label": `Open row ${row.i}, ${V[v]}, epoch ${run.e}: ${run.s}${said ? `, ${said}` : ""}`,
          onclick: () => openSample(run),
        }),
      );
    }
    td.append(strip);
    const answer = runs.find((run) => run.a || run.x);
    if (answer) td.append(el("div", { class: "dnb-preview", text: clip(plainText(answer.a) || answer.x || "", 90) }));
    return td;
  }

  let order = []; // the runs in the matrix's order, for the sample view's previous / next
  function draw() {
    const rows = matchingRows();
    const scorers = visibleScorers();
    const variants = visibleVariants();
    const head = el("tr", {}, el("th", { scope: "col" }, sortButton("row", null)));
    for (const v of variants) head.append(el("th", { scope: "col" }, sortButton(V[v], v)));
    const body = el("tbody", {});
    for (const row of rows.slice(0, state.shown)) {
      const tr = el("tr", {}, el("th", { scope: "row" }, el("b", { text: String(row.i) }), " ", clip(row.t, 120)));
      for (const v of variants) tr.append(cell(row, v, scorers));
      body.append(tr);
    }
    table.replaceChildren(el("thead", {}, head), body);
    order = rows.flatMap((row) => variants.flatMap((v) => (cells.get(`${row.i}|${v}`) || []).filter(Boolean)));
    const runs = order.length;
    count.textContent =
      `Showing ${Math.min(rows.length, state.shown)} of ${rows.length} matching rows ` +
      `(${D.rows.length} in all; ${runs} runs match).`;
    more.hidden = rows.length <= state.shown;
    more.textContent = `Show ${Math.min(PAGE, rows.length - state.shown)} more rows`;
  }

  // -- the sample view ------------------------------------------------------------------------

  const dialog = el("dialog", { class: "dnb-sample", "aria-labelledby": "dnb-sample-title" });
  document.body.append(dialog);
  let current = null;

  function measure(label, value) {
    return [el("dt", { text: label }), el("dd", { text: value })];
  }

  function money(value) {
    return value === null || value === undefined ? "unknown" : `$${value.toFixed(4)}`;
  }

  function scoresTable(run) {
    if (!run.sc || !run.sc.length) return el("p", { class: "dnb-note", text: "No score." });
    const rows = run.sc.map(([scorer, score, comment, error, human]) => {
      const said = score === null ? (error ? "error" : "no score") : score >= T ? "pass" : "fail";
      return el(
        "tr",
        { class: `dnb-${said === "pass" || said === "fail" ? said : "error"}` },
        el("th", { scope: "row", text: S[scorer] }),
        el("td", { text: num(score) }),
        el("td", { text: `${MARK[said === "pass" || said === "fail" ? said : "error"]} ${said}` }),
        el("td", { text: human ? "human" : "scorer" }),
        el("td", { class: "dnb-comment" }, comment || "", error ? el("div", { class: "dnb-error", text: error }) : null),
      );
    });
    return el(
      "table",
      { "aria-label": "Scores" },
      el(
        "thead",
        {},
        el("tr", {}, ["scorer", "score", "verdict", "by", "comment"].map((c) => el("th", { scope: "col", text: c }))),
      ),
      el("tbody", {}, rows),
    );
  }

  function part(title, html) {
    return el("section", {}, el("h3", { text: title }), html ? safeHtml(html) : el("p", { class: "dnb-note", text: "(none)" }));
  }

  function nav(run) {
    const at = order.indexOf(run);
    const others = (cells.get(`${run.r}|${run.v}`) || []).filter(Boolean);
    const bar = el("nav", { "aria-label": "Other samples" });
    bar.append(
      el("button", { type: "button", text: "← previous", disabled: at <= 0, onclick: () => openSample(order[at - 1]) }),
      el("button", {
        type: "button",
        text: "next →",
        disabled: at < 0 || at >= order.length - 1,
        onclick: () => openSample(order[at + 1]),
      }),
    );
    if (others.length > 1) {
      bar.append(el("span", { class: "dnb-note", text: " epochs:" }));
      for (const other of others) {
        bar.append(
          el("button", {
            type: "button",
            text: String(other.e),
            "aria-current": other === run ? "true" : null,
            onclick: () => openSample(other),
          }),
        );
      }
    }
    if (V.length > 1) {
      bar.append(el("span", { class: "dnb-note", text: " variants:" }));
      V.forEach((name, v) => {
        const same = (cells.get(`${run.r}|${v}`) || [])[run.e];
        bar.append(
          el("button", {
            type: "button",
            text: name,
            disabled: !same,
            "aria-current": v === run.v ? "true" : null,
            onclick: () => same && openSample(same),
          }),
        );
      });
    }
    return bar;
  }

  function openSample(run) {
    if (!run) return;
    current = run;
    const row = rowOf.get(run.r) || { in: "", ref: "" };
    const close = el("button", { type: "button", class: "dnb-close", text: "Close", onclick: () => dialog.close() });
    const tokens =
      run.ti === undefined
        ? "–"
        : `${run.ti.toLocaleString()} in / ${run.to.toLocaleString()} out` +
          (run.tu ? ` (at least: ${run.tu} model calls reported none)` : "");
    const content = el(
      "div",
      { class: "dnb-sample-body" },
      el("p", { class: `dnb-status dnb-${run.s}`, text: `status: ${run.s}` }),
      run.x ? el("pre", { class: "dnb-error", text: run.x }) : null,
      part("Input", row.in),
      part("Reference", row.ref),
      part("Answer", run.a),
      run.o ? el("section", {}, el("h3", { text: "Structured output" }), el("pre", { text: run.o })) : null,
      el("section", {}, el("h3", { text: "Scores" }), scoresTable(run)),
      el(
        "section",
        {},
        el("h3", { text: "Measures" }),
        el(
          "dl",
          { class: "dnb-measures" },
          measure("tokens", tokens),
          measure("cost", money(run.c)),
          measure("judge cost", money(run.sj)),
          measure("time", run.t === undefined ? "–" : `${num(run.t)} s`),
          measure(
            "cache hit",
            run.ch ? `yes: ${run.ch} model call${run.ch === 1 ? "" : "s"} answered from the cache` : "no",
          ),
          measure("attempts", run.at === undefined ? "–" : String(run.at)),
        ),
      ),
      run.m && run.m.length
        ? el(
            "details",
            {},
            el("summary", { text: `Transcript (${run.m.length} messages)` }),
            run.m.map(([role, text]) => el("div", { class: "dnb-message" }, el("b", { text: role }), el("pre", { text }))),
          )
        : null,
    );
    dialog.replaceChildren(
      el(
        "header",
        {},
        el("h2", { id: "dnb-sample-title", text: `Row ${run.r} · ${V[run.v]} · epoch ${run.e}` }),
        close,
        nav(run),
      ),
      content,
    );
    if (!dialog.open) dialog.showModal();
    dialog.scrollTop = 0;
    content.scrollTop = 0;
    close.focus();
  }

  dialog.addEventListener("keydown", (event) => {
    if (!current || event.target.closest("input, select, textarea")) return;
    const at = order.indexOf(current);
    if (event.key === "ArrowRight" && at >= 0 && at < order.length - 1) openSample(order[at + 1]);
    if (event.key === "ArrowLeft" && at > 0) openSample(order[at - 1]);
  });
  dialog.addEventListener("close", () => {
    current = null;
  });

  // the comparison's rows open their runs
  document.addEventListener("click", (event) => {
    const button = event.target.closest("[data-open-row]");
    if (!button) return;
    const v = V.indexOf(button.getAttribute("data-open-variant"));
    const runs = (cells.get(`${button.getAttribute("data-open-row")}|${v}`) || []).filter(Boolean);
    openSample(runs.find((run) => run.s === "done") || runs[0]);
  });

  draw();
})();
