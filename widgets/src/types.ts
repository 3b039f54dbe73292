// What the kernel sends the views and what the views send back. Everything the engine sends is
// typed once, in deepnb/core/schema.py, mirrored into ./schema.ts: this module re-exports those types
// (under the names the views use) and declares only what is the views' own: their synced traits,
// the messages they send, and the older shapes a saved view may still hold. The views still read
// each field defensively (a value of another type shows as empty text, never as an error), since
// anything in the page can send a message.

import type {
  AsyncTaskRow,
  BlobReply,
  ChangedMessage,
  ChangesReply,
  ComposedReply,
  DecisionLogEntry,
  ActionDecision,
  EarlierTurn,
  EvalCard,
  FileChangeRow,
  FileEntry,
  FilePreview,
  ListingReply,
  NodeState,
  PathMatch,
  PeekedFile,
  PendingAction,
  PendingRequest,
  ResultsReply,
  RunPatch,
  RunStateJSON,
  SavedReply,
  TranscriptItem,
} from "./schema";

export type {
  AnswerType,
  ChangeKind,
  DecisionType,
  ErrorItem,
  FileKind,
  FileReply,
  FilesReply,
  Given,
  ItemKind,
  NodeStatus,
  NoticeItem,
  Progress,
  PromptItem,
  RunStatus,
  SummaryItem,
  TextItem,
  Todo,
  TodoChange,
  TodoStatus,
  ToolItem,
  ToolStatus,
  UpdateItem,
} from "./schema";

// -- the run view ---------------------------------------------------------------------------------

export type Item = TranscriptItem;
export type EvalRun = EvalCard;
export type Decision = ActionDecision;
export type Preview = FilePreview;
export type Action = PendingAction;
export type Interrupt = PendingRequest;
/** A raw interrupt (`interrupt(value)`, not an approval). */
export type Question = PendingRequest & { kind: "question" };
export type DecisionEntry = DecisionLogEntry;
export type TreeNode = NodeState;
export type AsyncTask = AsyncTaskRow;
export type PatchMessage = RunPatch;
/** The answer to `open_file`: the file's `html` (escaped in Python) or `text`, or an `error`. */
export type FileMessage = PeekedFile;

/** The `async_tasks` trait: a list of tasks, or (older kernels) the list with its refresh time. */
export type AsyncTasks = AsyncTask[] | { tasks: AsyncTask[]; refreshed_at?: number; error?: string };

/** The run view's synced traits (deepnb.views.run.run_view.RunView): the run's state and the view's own. */
export interface RunTraits extends Omit<RunStateJSON, "async_tasks"> {
  async_tasks: AsyncTasks;
  /** Why a decision from a card was refused, by "interrupt id:index". */
  card_errors: Record<string, string>;
  async_error: string;
  live_controls: boolean;
  stop_hint: string;
  code_css: string;
  /** The run's structured output as [field, value] rows (deepnb.core.graphs.structured.output_rows). */
  output: [string, string][];
  /** Counts full syncs; live patches before one are superseded by it. */
  revision: number;
  /** The waterfall of model and tool calls (deepnb.views.run.timeline_view.timeline_payload). */
  timeline: TimelinePayload;
  /** Which approval cards `pending` holds (deepnb.views.run.approval_pages.PageInfo). */
  pending_page: Partial<PendingPage>;
  /** The turns above the one shown, once the box sent a follow-up (absent from older views). */
  turns?: EarlierTurn[];
  /** The first line of a cell that sends a follow-up on this thread ("" until the box sent one). */
  follow_up_cell?: string;
  /** The run's path through its graph, once the Graph tab drew it (absent from older views). */
  graph_path?: GraphPathData;
}

/** The answer to the box: the follow-up or the steering message went through, or why not. */
export type ComposedMessage = ComposedReply;
export type Turn = EarlierTurn;

/** A page of approval cards: this page (from 0) of `pages`, cards `first`–`last` (from 1) of
 * `cards`, and the undecided actions on every page. */
export interface PendingPage {
  page: number; pages: number; first: number; last: number; cards: number;
  undecided: number; approvable: number; rejectable: number;
}

export interface TimelineBar {
  kind: string; lane: number; name: string; start: number; end: number | null; label: string;
  step?: number;
  /** The transcript item the step shows on: "tool-<call id>", or "final" (the final answer). */
  item?: string;
}

export interface TimelinePayload {
  thread?: string; lanes?: { agent: string; label: string }[]; bars?: TimelineBar[];
  total?: number; left_out?: number;
  /** Seconds the run waited for decisions or answers: left out of the bars' times. */
  waited?: number;
}

/** The answer to "fork here": the new thread, or why there is none. */
export interface ForkedMessage { type: "forked"; step: number; thread_id: string; error: string }

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
  | { type: "threads" }
  | { type: "show_thread"; thread_id: string }
  | { type: "decide"; interrupt_id: string; index: number; decision: DecisionSent }
  | { type: "always"; interrupt_id: string; index: number; tool: string }
  | { type: "approve_all"; interrupt_id: string }
  | { type: "decide_every"; act: "approve" | "reject"; expected: number }
  | { type: "pending_page"; page: number }
  | { type: "answer"; interrupt_id: string; value: unknown }
  | { type: "fork"; step: number }
  | { type: "follow_up"; prompt: string }
  | { type: "steer"; message: string }
  | { type: "graph" }
  | { type: "latest_step" }
  | { type: "step_state"; step: number }
  | { type: "step_messages"; step: number; before: number }
  | { type: "step_file"; step: number; path: string }
  | { type: "run_from"; step: number; edits: StepEdit[] };

// -- the Graph tab and the step state panel (deepnb/views/run/graph_tab.py, step_panel.py) ------

/** One drawn shape of the agent's graph, its attributes as the SVG writes them. */
export interface GraphShape {
  t: "node" | "edge" | "cluster" | "subgraph";
  id?: string; kind?: string; label?: string; fill?: string;
  x?: string; y?: string; w?: string; h?: string; rx?: string; tx?: string; ty?: string;
  s?: string; e?: string; d?: string; dash?: boolean;
}

export interface GraphScene {
  agent: string; title: string; note: string; width: string; height: string; shapes: GraphShape[];
}

/** The run's path through its graph (run.graph_path, bounded). */
export interface GraphPathData {
  active?: string[]; visits?: Record<string, number>; edges?: [string, string, number][];
  tools?: Record<string, string[]>; failed?: string | null;
}

export interface GraphMessage { type: "graph"; scene?: GraphScene; error: string }

export interface StepMessageRow {
  index: number; id: string; kind: string; role: string; text: string; content: string; editable: boolean;
}

export interface StepMessages { start: number; total: number; messages: StepMessageRow[] }

export interface StepFileRow {
  path: string; size: number; binary: boolean; text: string; whole: boolean; editable: boolean;
}

export interface StepDiff {
  before: string; after: string;
  messages: { kind: string; role: string; text: string }[];
  todos: { kind: string; content: string; status: string; before: string }[];
  files: { path: string; kind: string; lines: string[]; more: number }[];
  files_more: number;
  other: { key: string; old: string; new: string }[];
}

export interface StepStateMessage {
  type: "step_state"; step: number; steps?: number[]; thread?: string; next?: string[]; error: string;
  keys?: string[]; messages?: StepMessages | null; todos?: { content: string; status: string }[] | null;
  todos_editable?: boolean; files?: StepFileRow[] | null; files_total?: number; files_note?: string;
  other?: [string, string][];
  diff?: StepDiff | null;
}

export type StepEdit =
  | { kind: "todos"; todos: { content: string; status: string }[] }
  | { kind: "file"; path: string; text: string }
  | { kind: "message"; id: string; text: string };

// -- the file view --------------------------------------------------------------------------------

export type Entry = FileEntry;
export type Listing = ListingReply;
export type SearchHit = PathMatch;
export type Results = ResultsReply;
export type Saved = SavedReply;
export type Blob64 = BlobReply;
export type Change = FileChangeRow;
export type Changes = ChangesReply;
/** Sent unasked while a run or code writes files (["/"]: refresh everything). */
export type Changed = ChangedMessage;

/** The file view's synced traits (deepnb.views.files.files_view.FilesView). */
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
