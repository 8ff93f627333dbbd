// The scripted tool calls of the Claude Code tool goldens (tests/fixtures/claude/tools/): which tools
// Claude Code 2.1.332 offers and with which schemas, which Bash commands it runs without a rule in each
// permission mode, how it renders web search results, notebooks, background shells and Monitor events.
// Each case is a list of steps (the tool calls of one model answer each); a request without the main
// session's tools (a side request, e.g. the web search Claude Code makes for WebSearch) is answered
// with `side`. Used by scripts/record_claude_tools.ts (records Claude Code) and the golden tests.

import {
  type FakeHandler,
  type FakeResponse,
  fakeTurn,
  fakeWebSearch,
} from "../../lib/testing/fake_anthropic_server.ts";
import type { AnthropicRequestBody } from "../../lib/provider/anthropic_wire.ts";

export interface ToolCall {
  name: string;
  input: Record<string, unknown>;
}

export interface ToolCase {
  name: string;
  /** Claude Code's permission mode (`--permission-mode`), if any. */
  mode?: string;
  flags?: string[];
  env?: Record<string, string>;
  /** Files written into the workspace before the run. */
  files?: Record<string, string>;
  /** Make the workspace a git repository (files committed), then stage these changes. */
  git?: { staged: Record<string, string> };
  /** One entry per model answer: its tool calls. `$WS` in string inputs is the workspace path. */
  steps: ToolCall[][];
  /** The answer to a side request (one without Bash among its tools). */
  side?: FakeResponse;
}

/** A notebook with a markdown and a code cell with outputs (nbformat 4.5, cell ids). */
export const NOTEBOOK = {
  cells: [
    { cell_type: "markdown", id: "intro", metadata: {}, source: ["# Title\n", "Some text"] },
    {
      cell_type: "code",
      execution_count: 1,
      id: "c1",
      metadata: {},
      outputs: [
        { name: "stdout", output_type: "stream", text: ["hello\n"] },
        {
          data: { "text/plain": ["42"] },
          execution_count: 1,
          metadata: {},
          output_type: "execute_result",
        },
      ],
      source: ['print("hello")\n', "42"],
    },
  ],
  metadata: {
    kernelspec: { display_name: "Python 3", language: "python", name: "python3" },
    language_info: { name: "python" },
  },
  nbformat: 4,
  nbformat_minor: 5,
};

/** The search results the fake server's web search answer carries. */
export const SEARCH_RESULTS = [
  {
    title: "Security and permissions | Deno Docs",
    url: "https://docs.deno.com/runtime/fundamentals/security/",
    page_age: "2 days ago",
  },
  { title: "Deno permissions explained", url: "https://example.com/deno-perms", page_age: null },
];

const bash = (command: string): ToolCall => ({ name: "Bash", input: { command } });

/** Read-only commands and their contrasts, the same in every mode. */
const READ_ONLY_STEPS = [
  "ls",
  "git status",
  "git diff --staged",
  "cat notes.txt",
  "ls > out.txt",
  "touch x",
  "ls | wc -l",
  "echo $HOME",
].map((c) => [bash(c)]);

const readOnly = (mode: string): ToolCase => ({
  name: `read_only_${mode}`,
  mode,
  files: { "notes.txt": "hi\n" },
  git: { staged: { "a.txt": "staged change\n" } },
  steps: READ_ONLY_STEPS,
});

const nb = "$WS/nb.ipynb";
const SKIP_PERMISSIONS = { flags: ["--dangerously-skip-permissions"], env: { IS_SANDBOX: "1" } };

export const TOOL_CASES: ToolCase[] = [
  // The tool list as sent at the top of every request (tool search off: every tool inline).
  { name: "tool_list", steps: [] },
  readOnly("default"),
  readOnly("plan"),
  readOnly("dontAsk"),
  {
    name: "web_search",
    flags: ["--allowedTools", "WebSearch"],
    steps: [[{
      name: "WebSearch",
      input: { query: "deno permissions", allowed_domains: ["docs.deno.com", "example.com"] },
    }]],
    side: fakeWebSearch({
      query: "deno permissions",
      results: SEARCH_RESULTS,
      text: "Deno is secure by default.",
    }),
  },
  {
    // Which rules let WebFetch through. The hosts are under .invalid, which never resolves: the fetches
    // that pass fail at once and offline (Claude Code's fail earlier, at its domain check with claude.ai).
    name: "web_rules",
    flags: ["--allowedTools", "WebFetch(domain:example.invalid) WebFetch(domain:*.deno.invalid)"],
    steps: [
      [{ name: "WebFetch", input: { url: "https://example.invalid/", prompt: "What is it?" } }],
      [{ name: "WebFetch", input: { url: "https://docs.example.invalid/", prompt: "What is it?" } }],
      [{ name: "WebFetch", input: { url: "https://docs.deno.invalid/x", prompt: "What is it?" } }],
      [{ name: "WebFetch", input: { url: "https://deno.invalid/", prompt: "What is it?" } }],
      [{ name: "WebSearch", input: { query: "anything" } }],
    ],
  },
  {
    name: "notebook",
    mode: "acceptEdits",
    files: { "nb.ipynb": JSON.stringify(NOTEBOOK, null, 1) },
    steps: [
      [{ name: "Read", input: { file_path: nb } }],
      [{ name: "NotebookEdit", input: { notebook_path: nb, cell_id: "c1", new_source: "print('bye')" } }],
      [{
        name: "NotebookEdit",
        input: {
          notebook_path: nb,
          cell_id: "intro",
          new_source: "x = 1",
          cell_type: "code",
          edit_mode: "insert",
        },
      }],
      [{
        name: "NotebookEdit",
        input: { notebook_path: nb, cell_id: "intro", new_source: "", edit_mode: "delete" },
      }],
      [{ name: "Read", input: { file_path: nb } }],
      [{ name: "NotebookEdit", input: { notebook_path: nb, cell_id: "nope", new_source: "x" } }],
      [{ name: "Bash", input: { command: "cat nb.ipynb" } }],
    ],
  },
  {
    name: "background_shell",
    ...SKIP_PERMISSIONS,
    steps: [
      [{ name: "Bash", input: { command: "echo start; sleep 1; echo done", run_in_background: true } }],
      [{ name: "KillShell", input: { shell_id: "no-such-shell" } }],
      [{ name: "TaskOutput", input: { task_id: "no-such-shell" } }],
    ],
  },
  {
    name: "monitor",
    ...SKIP_PERMISSIONS,
    steps: [[{
      name: "Monitor",
      input: {
        description: "ticks",
        timeout_ms: 5000,
        command: "echo one; sleep 0.5; echo two; echo three; sleep 0.5; exit 3",
      },
    }]],
  },
  {
    // Read's output: line numbers past 9 and 99, offset and limit, past the end, an empty file, a long
    // line, the default limit, a CRLF file (lib/tools/read.ts).
    name: "read_format",
    files: {
      "long.txt": Array.from({ length: 120 }, (_, i) => `line ${i + 1}`).join("\n") + "\n",
      "empty.txt": "",
      "wide.txt": `${"x".repeat(2500)}\nshort\n`,
      "big.txt": Array.from({ length: 2100 }, (_, i) => `b${i + 1}`).join("\n") + "\n",
      "crlf.txt": "one\r\ntwo\r\n",
      "tabs.txt": "\tindented\n  spaced\nno newline at end",
    },
    steps: [
      [{ name: "Read", input: { file_path: "$WS/long.txt" } }],
      [{ name: "Read", input: { file_path: "$WS/long.txt", offset: 95, limit: 10 } }],
      [{ name: "Read", input: { file_path: "$WS/long.txt", offset: 200 } }],
      [{ name: "Read", input: { file_path: "$WS/empty.txt" } }],
      [{ name: "Read", input: { file_path: "$WS/wide.txt" } }],
      [{ name: "Read", input: { file_path: "$WS/big.txt", offset: 1990 } }],
      [{ name: "Read", input: { file_path: "$WS/big.txt" } }],
      [{ name: "Read", input: { file_path: "$WS/crlf.txt" } }],
      [{ name: "Read", input: { file_path: "$WS/tabs.txt" } }],
    ],
  },
  {
    // Read's limits: a file past Claude Code's size limit (many lines), and one long line of it.
    name: "read_limits",
    files: {
      "many.txt": Array.from({ length: 5000 }, (_, i) => `${i + 1} ${"y".repeat(90)}`).join("\n") + "\n",
      "oneline.txt": "z".repeat(300_000) + "\n",
    },
    steps: [
      [{ name: "Read", input: { file_path: "$WS/many.txt" } }],
      [{ name: "Read", input: { file_path: "$WS/many.txt", offset: 4990, limit: 5 } }],
      [{ name: "Read", input: { file_path: "$WS/oneline.txt" } }],
    ],
  },
];

/** How many assistant answers the conversation already holds: the step to answer with. */
function answers(body: AnthropicRequestBody): number {
  return (body.messages ?? []).filter((m) => m.role === "assistant").length;
}

function toolNames(body: AnthropicRequestBody): string[] {
  return ((body.tools ?? []) as Array<{ name?: string }>).map((t) => t.name ?? "");
}

/** The fake server's handler for a case: side requests get `side`, the session its steps, then text. */
export function caseHandler(c: ToolCase, workspace: string): FakeHandler<AnthropicRequestBody> {
  return (req) => {
    if (req.path !== "/v1/messages") return new Response("{}", { status: 404 });
    if (!toolNames(req.body).includes("Bash")) return c.side ?? fakeTurn({ text: "side answer" });
    const step = c.steps[answers(req.body)];
    if (step === undefined) return fakeTurn({ text: "finished" });
    return fakeTurn({
      text: `step ${answers(req.body)}`,
      toolCalls: step.map((call) => ({ name: call.name, input: withWorkspace(call.input, workspace) })),
    });
  };
}

/** `$WS` replaced by the workspace path in every string of `input`. */
export function withWorkspace(input: Record<string, unknown>, workspace: string): Record<string, unknown> {
  return JSON.parse(JSON.stringify(input).replaceAll("$WS", workspace));
}
