// The Graph tab: the agent's graph, laid out in the kernel (deepnb/views/graph_layout.py) and sent
// as a scene of shapes (deepnb/views/graph_view.graph_scene), drawn here as SVG with DOM calls
// (every name through textContent); the run's path (the `graph_path` trait) marked on it: the
// nodes it went through and the edges it took outlined, the nodes running now lit, the tools
// running now said under the drawing. Nothing is fetched but the scene, once, from the kernel.

import { h, setText } from "../lib/dom";
import { isObj, list, str } from "../lib/text";
import type { GraphMessage, GraphPathData, GraphScene, GraphShape } from "../types";
import type { RunModel } from "./live_model";
import type { PanelMemory } from "./memory";

const SVG = "http://www.w3.org/2000/svg";
const PATH = "#d97706";
const ACTIVE = "#fde68a";
const FAILED = "#b91c1c";

export interface GraphTab {
  el: HTMLElement;
  /** The tab was shown: the first time, the scene is asked for. */
  opened(): void;
  /** The path changed: the marks are set again (the drawing stays). */
  render(): void;
  receive(msg: unknown): boolean;
}

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, unknown>): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, str(value));
  return node;
}

function titled(node: SVGElement, title: unknown): void {
  const t = svg("title", {});
  t.textContent = str(title);
  node.append(t);
}

interface Drawn { g: SVGGElement; rect: SVGRectElement; fill: string }

export function graphTab(model: RunModel, mem: PanelMemory): GraphTab {
  const el = h("div", "dnb-graph-tab");
  const said = h("div", "dnb-graph-said dnb-muted", "Drawing the agent's graph…");
  said.setAttribute("role", "status");
  const holder = h("div", "dnb-graph-drawing");
  const running = h("div", "dnb-graph-running");
  running.setAttribute("aria-live", "polite");
  el.append(said, holder, running);
  let asked = false;
  const nodes = new Map<string, Drawn>();
  const edges = new Map<string, SVGPathElement[]>(); // "source\u0000target" → its paths

  function draw(scene: GraphScene): void {
    nodes.clear();
    edges.clear();
    const root = svg("svg", { class: "deepnb-graph", width: scene.width, height: scene.height,
      viewBox: `0 0 ${str(scene.width)} ${str(scene.height)}`, "font-family": "sans-serif", "font-size": "11" });
    root.setAttribute("role", "img");
    root.setAttribute("aria-label", str(scene.title));
    const defs = svg("defs", {});
    const marker = svg("marker", { id: "dnb-live-arrow", viewBox: "0 0 8 8", refX: 8, refY: 4, markerWidth: 7,
      markerHeight: 7, orient: "auto-start-reverse" });
    marker.append(svg("path", { d: "M0,0 L8,4 L0,8 z", fill: "#666" }));
    defs.append(marker);
    root.append(defs, svg("rect", { x: 0, y: 0, width: scene.width, height: scene.height, rx: 6, fill: "#ffffff", stroke: "#d0d0d0" }));
    const title = svg("text", { x: 14, y: 20, "font-weight": "bold" });
    title.textContent = str(scene.title);
    root.append(title);
    if (scene.note) {
      const note = svg("text", { x: 14, y: 36, fill: "#9a3412" });
      note.textContent = str(scene.note);
      root.append(note);
    }
    for (const shape of list(scene.shapes).filter(isObj) as GraphShape[]) root.append(drawShape(shape));
    holder.replaceChildren(root);
  }

  function drawShape(s: GraphShape): SVGElement {
    if (s.t === "node") {
      const g = svg("g", { class: `dnb-node dnb-${str(s.kind)}`, "data-node": s.id });
      titled(g, s.id);
      const rect = svg("rect", { x: s.x, y: s.y, width: s.w, height: s.h, rx: s.rx, fill: s.fill, stroke: "#555" });
      const text = svg("text", { x: s.tx, y: s.ty, "text-anchor": "middle", fill: "#1a1a1a" });
      text.textContent = str(s.label);
      g.append(rect, text);
      nodes.set(str(s.id), { g, rect, fill: str(s.fill) });
      return g;
    }
    if (s.t === "edge") {
      const path = svg("path", { class: "dnb-edge", d: s.d, fill: "none", stroke: "#666", "marker-end": "url(#dnb-live-arrow)" });
      if (s.dash) path.setAttribute("stroke-dasharray", "5 4");
      if (s.label) titled(path, s.label);
      const key = `${str(s.s)}\u0000${str(s.e)}`;
      edges.set(key, [...(edges.get(key) || []), path]);
      return path;
    }
    const box = s.t === "cluster";
    const g = svg("g", { class: box ? "dnb-cluster" : "dnb-subgraph" });
    g.append(svg("rect", box
      ? { x: s.x, y: s.y, width: s.w, height: s.h, rx: 8, fill: "#fafafa", stroke: "#8a8a8a" }
      : { x: s.x, y: s.y, width: s.w, height: s.h, rx: 6, fill: "none", stroke: "#b6b6b6", "stroke-dasharray": "2 2" }));
    const text = svg("text", box ? { x: s.tx, y: s.ty, "font-weight": "bold" } : { x: s.tx, y: s.ty, fill: "#666" });
    text.textContent = str(s.label);
    g.append(text);
    return g;
  }

  function render(): void {
    const path = (isObj(model.get("graph_path")) ? model.get("graph_path") : {}) as GraphPathData;
    const visits = isObj(path.visits) ? path.visits : {};
    const active = new Set(list(path.active).map(str));
    const failed = str(path.failed);
    for (const [id, node] of nodes) {
      const visited = id in visits;
      node.g.classList.toggle("dnb-visited", visited);
      node.g.classList.toggle("dnb-active", active.has(id));
      node.g.classList.toggle("dnb-failed", id === failed);
      node.g.setAttribute("aria-current", active.has(id) ? "step" : "false");
      node.rect.setAttribute("stroke", id === failed ? FAILED : visited ? PATH : "#555");
      node.rect.setAttribute("stroke-width", visited ? "2" : "1");
      node.rect.setAttribute("fill", active.has(id) ? ACTIVE : node.fill);
    }
    const taken = new Set(list(path.edges).filter(Array.isArray).map((e) => `${str(e[0])}\u0000${str(e[1])}`));
    for (const [key, paths] of edges) {
      for (const p of paths) {
        p.classList.toggle("dnb-taken", taken.has(key));
        p.setAttribute("stroke", taken.has(key) ? PATH : "#666");
        p.setAttribute("stroke-width", taken.has(key) ? "2" : "1");
      }
    }
    const tools = isObj(path.tools) ? path.tools : {};
    const now = [...active].map((id) => (list(tools[id]).length ? `${id} (${list(tools[id]).map(str).join(", ")})` : id));
    setText(running, now.length ? `Running now: ${now.join(", ")}` : nodes.size && Object.keys(visits).length ? "Nothing runs now." : "");
  }

  function opened(): void {
    if (asked) return;
    if (!model.get("live_controls") && model.get("status") === "running") { // the cell holds the kernel
      setText(said, "The graph is drawn once the cell ends: the kernel answers the view then (--bg draws it during the run).");
    }
    if (mem.scene) { // drawn before this render: the kernel is not asked again
      asked = true;
      shown(mem.scene);
      return;
    }
    asked = true;
    model.send({ type: "graph" });
  }

  function receive(msg: unknown): boolean {
    if (!isObj(msg) || msg.type !== "graph") return false;
    const m = msg as unknown as GraphMessage;
    if (m.error || !isObj(m.scene)) {
      setText(said, m.error || "The kernel sent no graph.");
      said.classList.add("dnb-error");
      asked = false; // opening the tab again asks again
      return true;
    }
    mem.scene = m.scene as GraphScene;
    shown(mem.scene);
    return true;
  }

  function shown(scene: GraphScene): void {
    said.classList.remove("dnb-error");
    setText(said, "Outlined: the nodes the run went through and the edges it took; lit: what runs now.");
    draw(scene);
    render();
  }

  return { el, opened, render, receive };
}
