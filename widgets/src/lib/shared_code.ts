// A view's code and styles, sent once per kernel (deepnb/views/shared_code.py).
//
// Each view's `_esm` is the small loader (src/loader.ts). Its `_code` trait names the models that
// hold the pieces of the view's real bundle and stylesheet; the loader joins them, imports the
// bundle once per page (every later view of that kind reuses the module) and adds the stylesheet
// once to each root a view renders in: the page's head (JupyterLab, Notebook 7, Voila), or the
// shadow root a host draws each widget in (marimo), where the page's styles do not reach.

/** What a view's `_code` trait holds. */
export interface CodeRefs {
  key: string;
  esm: string[];
  css: string[];
}

/** The default export of a view's bundle (an anywidget module). */
export interface ViewModule {
  initialize?(props: unknown): unknown;
  render(props: unknown): unknown;
}

type GetText = (ref: string) => Promise<string>;
type Importer = (code: string) => Promise<{ default: ViewModule }>;

const MODULES = Symbol.for("deepnb.sharedCode");

function cache(): Map<string, Promise<ViewModule>> {
  const g = globalThis as { [MODULES]?: Map<string, Promise<ViewModule>> };
  return (g[MODULES] ??= new Map());
}

export function isCodeRefs(value: unknown): value is CodeRefs {
  const v = value as CodeRefs;
  return !!v && typeof v.key === "string" && Array.isArray(v.esm) && Array.isArray(v.css);
}

/** Imports code from a blob URL, as anywidget itself loads an `_esm` string. */
export async function importText(code: string): Promise<{ default: ViewModule }> {
  const url = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
  try {
    return await import(/* webpackIgnore: true */ /* @vite-ignore */ url);
  } finally {
    URL.revokeObjectURL(url);
  }
}

async function joined(refs: string[], getText: GetText): Promise<string> {
  return (await Promise.all(refs.map(getText))).join("");
}

/** Where a view's stylesheet goes: the document, or the shadow root the view renders in. */
export type StyleRoot = Document | ShadowRoot;

function isShadowRoot(node: Node): node is ShadowRoot {
  return node.nodeType === 11 && "host" in node; // a document fragment with a host element
}

/** The root whose styles apply to `el`: the shadow root it is in, else its document (also while
 * `el` is not in the page yet, as a host may render a view before attaching it). */
export function styleRoot(el: Node): StyleRoot {
  const root = el.getRootNode();
  if (isShadowRoot(root)) return root;
  return el.ownerDocument ?? document;
}

/** Adds the view's stylesheet to `root` unless a view of the same code already did. */
async function addStyles(refs: CodeRefs, getText: GetText, root: StyleRoot): Promise<void> {
  const id = `deepnb-code-${refs.key}`;
  const present = (): boolean => !!root.querySelector(`style#${id}`);
  if (present()) return;
  const css = await joined(refs.css, getText);
  if (present()) return;
  const doc = isShadowRoot(root) ? root.ownerDocument : root;
  const style = doc.createElement("style");
  style.id = id;
  style.textContent = css;
  (isShadowRoot(root) ? root : root.head).appendChild(style);
}

/** The view module `refs` names: imported the first time, the same promise afterwards. Its
 * stylesheet is in `root` once the promise resolves. */
export function loadView(refs: CodeRefs, getText: GetText, importer: Importer = importText,
  root: StyleRoot = document): Promise<ViewModule> {
  const modules = cache();
  let loading = modules.get(refs.key);
  if (!loading) {
    loading = (async () => {
      const [mod] = await Promise.all([joined(refs.esm, getText).then(importer), addStyles(refs, getText, root)]);
      return mod.default;
    })();
    loading.catch(() => modules.delete(refs.key)); // a later view may try again
    modules.set(refs.key, loading);
  }
  return loading.then(async (mod) => {
    // another root than the first view's (a new shadow root), or the page's head replaced
    await addStyles(refs, getText, root);
    return mod;
  });
}

/** Once `el` is in the page, adds the stylesheet to the root it landed in, if that is not where
 * it went already (a host that renders a view first and attaches it to a shadow root after). */
export function followRoot(el: Node, refs: CodeRefs, getText: GetText, first: StyleRoot,
  frames = 600): void {
  const check = (left: number): void => {
    if (!el.isConnected) {
      if (left > 0) requestAnimationFrame(() => check(left - 1));
      return;
    }
    const root = styleRoot(el);
    if (root !== first) void addStyles(refs, getText, root).catch(() => {});
  };
  check(frames);
}
