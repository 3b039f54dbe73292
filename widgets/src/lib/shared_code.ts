// A view's code and styles, sent once per kernel (deepnb/views/shared_code.py).
//
// Each view's `_esm` is the small loader (src/loader.ts). Its `_code` trait names the models that
// hold the pieces of the view's real bundle and stylesheet; the loader joins them, imports the
// bundle once per page (every later view of that kind reuses the module) and adds the stylesheet
// to the page once.

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

/** Adds the view's stylesheet to `doc` unless a view of the same code already did. */
async function addStyles(refs: CodeRefs, getText: GetText, doc: Document): Promise<void> {
  const id = `deepnb-code-${refs.key}`;
  if (doc.getElementById(id)) return;
  const css = await joined(refs.css, getText);
  if (doc.getElementById(id)) return;
  const style = doc.createElement("style");
  style.id = id;
  style.textContent = css;
  doc.head.appendChild(style);
}

/** The view module `refs` names: imported the first time, the same promise afterwards. Its
 * stylesheet is on the page once the promise resolves. */
export function loadView(refs: CodeRefs, getText: GetText, importer: Importer = importText,
  doc: Document = document): Promise<ViewModule> {
  const modules = cache();
  let loading = modules.get(refs.key);
  if (!loading) {
    loading = (async () => {
      const [mod] = await Promise.all([joined(refs.esm, getText).then(importer), addStyles(refs, getText, doc)]);
      return mod.default;
    })();
    loading.catch(() => modules.delete(refs.key)); // a later view may try again
    modules.set(refs.key, loading);
  }
  return loading.then(async (mod) => {
    await addStyles(refs, getText, doc); // the page's head may have been replaced (a new document)
    return mod;
  });
}
