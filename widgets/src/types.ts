// What the kernel sends the views (their synced traits and custom messages) and what the views
// send back. Written from deepnb/views/run_view.py, files_view.py, messages.py and state.py.
// Every field is what Python sends; the views still read each one defensively (a value of another
// type shows as empty text, never as an error), since anything in the page can send a message.

// -- the run view ---------------------------------------------------------------------------------

export type RunStatus = "running" | "interrupted" | "done" | "error" | "cancelled";

interface ItemBase {
  id?: string;
  /** The agent path that produced it: "main", or a subagent's "main/researcher#1". */
  agent?: string;
  clipped?: boolean;
}

export interface PromptItem extends ItemBase { kind: "prompt"; text: string }

/** Model text: `text` while it streams (html null), then the finished `html` (escaped in Python). */
export interface TextItem extends ItemBase { kind: "text"; text: string; html?: string | null }

export interface EvalRun {
  code: string;
  /** Highlighted and escaped by Pygments in Python. */
  code_html: string;
  stdout?: string;
  result?: string;
  error?: string;
  error_type?: string;
}

export type ToolStatus = "running" | "done" | "error" | "waiting" | "cancelled" | "interrupted";

export interface ToolItem extends ItemBase {
  kind: "tool";
  name: string;
  args: string;
  args_full: string;
  status: ToolStatus;
  result: string;
  result_full: string;
  /** The subagent a `task` call started (its node id). */
  subagent?: string;
  /** An interpreter `eval` call: its code, console and outcome. */
  eval?: EvalRun;
}

export interface NoticeItem extends ItemBase {
  kind: "notice";
  text: string;
  level?: string;
  /** Folded items behind it; with `expand`, the notice asks the kernel for them. */
  hidden?: number;
  expand?: boolean;
}

export interface ErrorItem extends ItemBase { kind: "error"; text: string }

export interface SummaryItem extends ItemBase {
  kind: "summary";
  messages: number | null;
  cutoff: number | null;
  tokens_before: number | null;
  tokens_after: number | null;
  summary: string;
  /** Rendered and escaped in Python. */
  summary_html: string;
  file_path: string;
}

/** A node's state update, in a graph that does not speak messages: `text` is its JSON. */
export interface UpdateItem extends ItemBase { kind: "update"; node: string; keys: string[]; text: string }

export type Item = PromptItem | TextItem | ToolItem | NoticeItem | ErrorItem | SummaryItem | UpdateItem;
export type ItemKind = Item["kind"];

export interface Todo { content: string; status: "pending" | "in_progress" | "completed" }

export interface Progress {
  steps: number;
  tool_calls: number;
  tokens_in: number;
  tokens_out: number;
  /** Epoch seconds (the kernel's clock). */
  started_at: number | null;
  elapsed: number;
  todo_progress: string;
}

export type DecisionType = "approve" | "edit" | "reject" | "respond";

export interface Decision { type: DecisionType; message: string; args: string; auto: boolean }

export interface Preview { kind: "diff" | "content"; text: string }

export interface Action {
  index: number;
  name: string;
  /** One line, for the card's head. */
  args: string;
  /** The arguments as JSON (secrets hidden), for the Edit form. */
  args_json: string;
  description: string;
  allowed: DecisionType[];
  preview: Preview | null;
  decision: Decision | null;
  /** The arguments were shortened for display: edit them from Python. */
  clipped?: boolean;
}

export interface Interrupt { id: string; agent: string; actions: Action[]; kind?: "question" }

/** A raw interrupt (`interrupt(value)`, not an approval): its value, as data and as JSON text
 * (clipped when long: `value` is null then), and the answer once sent. */
export interface Question extends Interrupt {
  kind: "question";
  value: unknown;
  value_json: string;
  answer: string | null;
}

export interface DecisionEntry extends Decision {
  at: string;
  interrupt_id: string;
  index: number;
  tool: string;
}

export type NodeStatus = "running" | "waiting" | "done" | "error" | "cancelled";

export interface TreeNode {
  id: string;
  parent: string;
  name: string;
  label: string;
  description: string;
  source: string;
  call_id?: string;
  status: NodeStatus;
  started_at: number | null;
  finished_at: number | null;
  tool_calls: number;
  /** Of those, answered without running (reject, respond) / failed; absent from older saved views. */
  calls_declined?: number;
  calls_failed?: number;
  tokens_in: number;
  tokens_out: number;
  activity: string;
  result: string;
  result_full: string;
  children: string[];
}

export interface AsyncTask {
  task_id: string;
  agent_name: string;
  thread_id: string;
  run_id: string;
  status: string;
  created_at: string;
  last_checked_at: string;
  last_updated_at: string;
}

/** The `async_tasks` trait: a list of tasks, or (older kernels) the list with its refresh time. */
export type AsyncTasks = AsyncTask[] | { tasks: AsyncTask[]; refreshed_at?: number; error?: string };

/** The run view's synced traits (deepnb.views.run_view.RunView). */
/** What the agents were given (deepnb/state.py `given`). */
export interface Given {
  skills: { name: string; description: string; agent: string }[];
  memory: { path: string; agent: string }[];
  /** Agent ("main" or a subagent's name) → the tools it can call. */
  tools: Record<string, string[]>;
}

export interface RunTraits {
  agent: string;
  thread_id: string;
  status: RunStatus;
  error: string;
  items: Item[];
  todos: Todo[];
  progress: Progress;
  pending: Interrupt[];
  decisions: DecisionEntry[];
  /** Why a decision from a card was refused, by "interrupt id:index". */
  card_errors: Record<string, string>;
  files_changed: string[];
  /** Paths of file calls answered without running (reject, respond, stop): never written. */
  files_not_written: string[];
  tree: TreeNode[];
  async_tasks: AsyncTasks;
  given: Given;
  async_error: string;
  live_controls: boolean;
  stop_hint: string;
  code_css: string;
  /** Counts full syncs; live patches before one are superseded by it. */
  revision: number;
}

/** A live update while the run streams: only what changed. */
export interface PatchMessage {
  type: "patch";
  state?: Partial<RunTraits>;
  /** Transcript items new or changed. */
  upsert?: Item[];
  /** The whole item order, when it changed other than at the end. */
  ids?: string[];
  /** The ids of items added at the end. */
  append_ids?: string[];
  nodes?: TreeNode[];
}

/** The answer to `open_file`: the file's `html` (escaped in Python) or `text`, or an `error`. */
export interface FileMessage { type: "file"; path: string; text: string; html: string; error: string }

export type RunIncoming = PatchMessage | FileMessage;

export type DecisionSent =
  | { type: "approve" }
  | { type: "edit"; args: Record<string, unknown> }
  | { type: "reject"; message: string }
  | { type: "respond"; message: string };

/** What the run view sends (deepnb.views.messages.RUN_MESSAGES). */
export type RunOutgoing =
  | { type: "stop" }
  | { type: "sync" }
  | { type: "expand" }
  | { type: "refresh_tasks" }
  | { type: "open_file"; path: string }
  | { type: "decide"; interrupt_id: string; index: number; decision: DecisionSent }
  | { type: "always"; interrupt_id: string; index: number; tool: string }
  | { type: "approve_all"; interrupt_id: string }
  | { type: "answer"; interrupt_id: string; value: unknown };

// -- the file view --------------------------------------------------------------------------------

export interface Entry {
  path: string;
  name: string;
  is_dir: boolean;
  size: number | null;
  modified_at: string | null;
  mount: string;
  writable: boolean;
}

/** The file view's synced traits (deepnb.views.files_view.FilesView). */
export interface FilesTraits {
  agent: string;
  thread_id: string;
  backend: string;
  /** The folder at the top of the tree (ends with "/"). */
  path: string;
  root_entries: Entry[];
  root_total: number;
  mounts: Record<string, string>;
  run_id: string;
  has_changes: boolean;
  code_css: string;
}

/** What the file view asks (deepnb.views.messages.FILES_MESSAGES), before its `seq` is added. */
export type FilesRequest =
  | { type: "ls"; path: string; offset: number; limit: number }
  | { type: "open"; path: string }
  | { type: "search"; mode: "glob" | "grep"; query: string; path: string }
  | { type: "save"; path: string; text: string }
  | { type: "download"; path: string }
  | { type: "changes" };

interface Reply { seq: string; error: string }

export interface Listing extends Reply { type: "listing"; path: string; entries: Entry[]; offset: number; total: number }

export type FileKind = "markdown" | "code" | "table" | "image" | "binary";

export interface FileReply extends Reply {
  type: "file";
  path: string;
  kind: FileKind;
  /** Rendered and escaped in Python (deepnb.files.render.render_file). */
  html: string;
  text: string;
  size: number;
  modified_at: string | null;
  writable: boolean;
  editable: boolean;
  /** Why the file can't be edited ("" when it can). */
  readonly: string;
}

export interface SearchHit { path: string; line?: number; text?: string }

export interface Results extends Reply {
  type: "results";
  mode: "glob" | "grep";
  query: string;
  path: string;
  results: SearchHit[];
  total: number;
  capped: boolean;
}

export interface Saved extends Reply { type: "saved"; path: string; file: FileReply }

export interface Blob64 extends Reply { type: "blob"; path: string; name: string; mime: string; size: number; base64: string }

export interface Change { path: string; kind: "added" | "modified" | "deleted"; diff: string; clipped: boolean }

export interface Changes extends Reply { type: "changes"; run_id: string; status: string; changes: Change[] }

/** Sent unasked while a run or code writes files (["/"]: refresh everything). */
export interface Changed { type: "changed"; paths: string[] }

export type FilesReply = Listing | FileReply | Results | Saved | Blob64 | Changes;
