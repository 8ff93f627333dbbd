// Owns what the interactive session shows, built from the runtime events every surface shares: the
// scrolling log (prompts, the streamed answer as terminal Markdown, one line per tool call with its
// result summary, one outcome line per finished child, notices, command output) and the live area
// (one status line per running child, the "working" line). Pure apart from the clock: no terminal,
// so tests feed recorded event streams and compare lines. Every model-, file- or child-controlled
// string goes through terminalSafe before it is styled; every line fits the width it is given.

import {
  type Component,
  type Markdown,
  truncateToWidth,
  visibleWidth,
  wrapTextWithAnsi,
} from "@mariozechner/pi-tui";
import type { RuntimeEvent, SubagentInfo } from "../../protocol/events.ts";
import { type Message, textOf } from "../../protocol/messages.ts";
import { compactedNote, firstLine, toolLabel } from "../print_render.ts";
import { clean, resultSummary } from "./summary.ts";
import type { Theme } from "./theme.ts";
import { isDelegationTool } from "../../protocol/tool_names.ts";
import { AnswerMarkdown } from "./answer_markdown.ts";
import { type ChildBlock, seconds, SubagentsView } from "./subagents_view.ts";

interface AnswerBlock {
  kind: "answer";
  md: Markdown;
  text: string;
}

type Block = AnswerBlock | ChildBlock | { kind: "lines"; lines: string[]; wrap: boolean };

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export interface SessionHeader {
  version: string;
  model: string;
  mode: string;
  workspace: string;
  trusted: boolean;
  sessionId: string;
  resumed: boolean;
  warnings: string[];
  /** The conversation so far (shown in part for a continued session). */
  messages: readonly Message[];
}

export class SessionView {
  #theme: Theme;
  #now: () => number;
  #blocks: Block[] = [];
  #answer: AnswerBlock | undefined;
  #children: SubagentsView;
  #tools = new Map<string, { label: string; index: number }>();
  /** Task calls whose child's outcome line is shown: their result needs no line of its own. */
  #toldByChild = new Set<string>();
  #mainId: string | undefined;
  #turnStarted: number | undefined;
  /** Prompts typed during a turn, waiting for it to end (shown in the live area, below the answer). */
  #queued: readonly string[] = [];
  #frame = 0;
  /** Called after every change that needs a redraw. */
  onChange: () => void = () => {};

  constructor(theme: Theme, now: () => number) {
    this.#theme = theme;
    this.#now = now;
    this.#children = new SubagentsView(theme, now);
  }

  /** The scrolling log. */
  readonly log: Component = {
    render: (width) => this.#renderLog(width),
    invalidate: () => {
      for (const b of this.#blocks) if (b.kind === "answer") b.md.invalidate();
    },
  };

  /** The live area below the log: running children and the working line. */
  readonly status: Component = {
    render: (width) => this.#renderStatus(width),
    invalidate: () => {},
  };

  get busy(): boolean {
    return this.#turnStarted !== undefined;
  }

  /** Running children shown in the live area (for /status). */
  runningChildren(): SubagentInfo[] {
    return this.#children.running();
  }

  /**
   * The prompts waiting for the running turn: listed in the live area, so a prompt typed while an
   * answer streams never splits that answer in the log (it is shown there once its turn starts).
   */
  setQueued(prompts: readonly string[]): void {
    this.#queued = [...prompts];
    this.onChange();
  }

  /** Ctrl-O: shows (or hides again) each finished subagent's tool calls below its outcome line. */
  toggleExpanded(): boolean {
    const expanded = this.#children.toggleExpanded();
    this.onChange();
    return expanded;
  }

  /** Advances the spinner; elapsed times are read from the clock at render. */
  tick(): void {
    this.#frame = (this.#frame + 1) % SPINNER.length;
  }

  /** Lines printed by Blade itself (already safe); `wrap` wraps long ones instead of cutting them. */
  print(text: string, options: { wrap?: boolean } = {}): void {
    this.#endAnswer();
    const lines = text.replace(/\n$/, "").split("\n");
    this.#blocks.push({ kind: "lines", lines, wrap: options.wrap ?? true });
    this.onChange();
  }

  /** Blade's own secondary text, dimmed. */
  dimmed(text: string): string {
    return this.#theme.dim(text);
  }

  /** Output of a slash command: plain text from Blade's own commands, which may quote file contents. */
  output(text: string): void {
    this.print(clean(text));
  }

  prompt(text: string): void {
    const t = this.#theme;
    const lines = clean(text).split("\n");
    this.print(["", ...lines.map((l, i) => `${i === 0 ? t.accent("›") : " "} ${t.bold(l)}`)].join("\n"));
  }

  /**
   * The session's opening lines: version, model, mode, folder and trust, warnings, and for a continued
   * session its last prompts and answers.
   */
  header(h: SessionHeader): void {
    const t = this.#theme;
    const trust = h.trusted
      ? "trusted"
      : t.warn("not trusted — Bash and writes are refused; /trust trusts this folder");
    this.print(
      `${t.bold(`Blade ${h.version}`)} ${t.dim("·")} ${clean(h.model)} ${t.dim("·")} mode ${h.mode}`,
    );
    this.print(t.dim(`${clean(h.workspace)} (`) + trust + t.dim(")"));
    for (const w of h.warnings) this.error(w);
    if (h.resumed) {
      const shown = h.messages.filter((m) => m.hidden !== true && textOf(m).trim() !== "").slice(-12);
      for (const m of shown) {
        if (m.role === "user") this.prompt(textOf(m));
        else this.answer(textOf(m));
      }
    }
    this.print(t.dim(`Session ${h.sessionId}${h.resumed ? " (continued)" : ""} · /help for commands`));
  }

  /** An earlier answer (a continued session's conversation), as terminal Markdown. */
  answer(text: string): void {
    this.#endAnswer();
    const md = new AnswerMarkdown(clean(text).trim(), this.#theme.markdown, this.#theme);
    this.#blocks.push({ kind: "answer", md, text });
    this.onChange();
  }

  notice(text: string): void {
    this.print(this.#theme.warn(`◆ ${clean(text)}`));
  }

  error(text: string): void {
    this.print(this.#theme.error(`✗ ${clean(text)}`));
  }

  /** What to do about the failure just shown: a dimmed `hint:` line below it, wrapped. */
  hint(text: string): void {
    this.print(this.#theme.dim(`  hint: ${clean(text)}`), { wrap: true });
  }

  /** What a command or a failure writes on stderr: `blade: <message>` as an error, its hint dimmed below. */
  stderr(text: string): void {
    const body = text.replace(/^blade: /, "").trimEnd();
    const hint = /^\s*hint: ([\s\S]*)$/.exec(body);
    if (hint === null) this.error(body);
    else this.hint(hint[1]!);
  }

  turnStarted(): void {
    this.#turnStarted = this.#now();
    this.onChange();
  }

  turnEnded(): void {
    this.#endAnswer();
    this.#turnStarted = undefined;
    this.onChange();
  }

  onEvent(event: RuntimeEvent): void {
    this.#apply(event);
    this.onChange();
  }

  #isMain(sessionId: string): boolean {
    return this.#mainId === undefined || sessionId === this.#mainId;
  }

  #apply(event: RuntimeEvent): void {
    const t = this.#theme;
    switch (event.type) {
      case "session_started":
        if (event.depth === 0) this.#mainId = event.sessionId;
        return;
      case "text_delta":
        this.#textDelta(event);
        return;
      case "assistant_message":
        if (this.#isMain(event.sessionId)) this.#endAnswer();
        return;
      case "tool_started":
        this.#toolStarted(event);
        return;
      case "tool_completed":
        this.#toolCompleted(event);
        return;
      case "subagent_spawned":
        this.#children.spawned(event);
        return;
      case "subagent_event":
        this.#children.childEvent(event);
        return;
      case "subagent_completed":
        this.#subagentCompleted(event);
        return;
      case "retry":
        if (!this.#isMain(event.sessionId)) return;
        this.#blocks.push({
          kind: "lines",
          lines: [t.dim(`  (retrying the model request: ${clean(event.reason)}, attempt ${event.attempt})`)],
          wrap: true,
        });
        return;
      case "turn_aborted":
        this.#turnAborted(event);
        return;
      case "runtime_warning":
        this.#blocks.push({ kind: "lines", lines: [t.warn(`⚠ ${clean(event.message)}`)], wrap: true });
        return;
      case "compacted":
        if (!this.#isMain(event.sessionId)) return;
        this.#blocks.push({ kind: "lines", lines: [t.dim(`  (${compactedNote(event)})`)], wrap: true });
        // A PreCompact hook's output is data: shown after `clean`.
        for (const said of event.said ?? []) {
          this.#blocks.push({
            kind: "lines",
            lines: clean(said).split("\n").map((l) => t.dim(`  ${l}`)),
            wrap: true,
          });
        }
        return;
      case "prompt_blocked":
        // Hook output is data: shown after `clean`, one line per line it has.
        this.#blocks.push({
          kind: "lines",
          lines: clean(event.message).split("\n").map((l) => t.warn(l)),
          wrap: true,
        });
        return;
      case "turn_started":
      case "turn_completed":
      // A hook's run is shown by `--debug` (its timing line), not in the log; a Stop hook's feedback is
      // print mode's (stream-json) only, as is a `prompt` hook's missing verdict (a warning here).
      case "hook_run":
      case "stop_hook_feedback":
      case "hook_no_verdict":
        return;
      default: {
        const never: never = event;
        void never;
      }
    }
  }

  /** Appends streamed answer text of the main session to the open answer block. */
  #textDelta(event: Extract<RuntimeEvent, { type: "text_delta" }>): void {
    const t = this.#theme;
    if (!this.#isMain(event.sessionId)) return;
    if (this.#answer === undefined) {
      const block: AnswerBlock = { kind: "answer", md: new AnswerMarkdown("", t.markdown, t), text: "" };
      this.#blocks.push(block);
      this.#answer = block;
    }
    this.#answer.text += event.text;
    this.#answer.md.setText(clean(this.#answer.text).trim());
  }

  /** Shows a main-session tool call as pending (Agent calls show as their child instead). */
  #toolStarted(event: Extract<RuntimeEvent, { type: "tool_started" }>): void {
    const t = this.#theme;
    if (!this.#isMain(event.sessionId) || isDelegationTool(event.name)) return;
    this.#endAnswer();
    const label = clean(toolLabel(event.name, event.input));
    this.#blocks.push({ kind: "lines", lines: [`${t.dim("○")} ${label}`], wrap: false });
    this.#tools.set(event.callId, { label, index: this.#blocks.length - 1 });
  }

  /** Marks a main-session tool call done or failed, in place while nothing came after it. */
  #toolCompleted(event: Extract<RuntimeEvent, { type: "tool_completed" }>): void {
    const t = this.#theme;
    if (!this.#isMain(event.sessionId)) return;
    const summary = resultSummary(event.name, event.content, event.isError);
    const known = this.#tools.get(event.callId);
    this.#tools.delete(event.callId);
    // The child's own lines tell its story (a failed or cancelled one included).
    if (isDelegationTool(event.name) && (!event.isError || this.#toldByChild.delete(event.callId))) return;
    const label = known?.label ?? clean(toolLabel(event.name, {}));
    const line = event.isError
      ? `${t.error("✗")} ${label} ${t.dim("·")} ${t.error(summary)}`
      : `${t.ok("✓")} ${label} ${t.dim(`· ${summary}`)}`;
    // A refusal says why and what to do: wrapped, never cut at the window's width.
    const block: Block = { kind: "lines", lines: [line], wrap: event.isError };
    // In place while nothing came after it; else (an approval question) the outcome goes below.
    if (known !== undefined && known.index === this.#blocks.length - 1) this.#blocks[known.index] = block;
    else {
      if (known !== undefined) this.#blocks[known.index] = { kind: "lines", lines: [], wrap: false };
      this.#blocks.push(block);
    }
  }

  /** Shows a finished child: its outcome line (and its tool calls, when expanded). */
  #subagentCompleted(event: Extract<RuntimeEvent, { type: "subagent_completed" }>): void {
    if (!event.subagent.background) this.#toldByChild.add(event.callId);
    this.#endAnswer();
    this.#blocks.push(this.#children.completed(event));
  }

  /** Shows why a main-session turn stopped early. */
  #turnAborted(event: Extract<RuntimeEvent, { type: "turn_aborted" }>): void {
    const t = this.#theme;
    if (!this.#isMain(event.sessionId)) return;
    this.#endAnswer();
    const line = event.cause === "cancelled" || event.cause === "interrupted"
      ? t.warn("⏹ Interrupted: the turn was cancelled.")
      : t.error(`✗ The turn failed: ${clean(event.reason ?? event.cause)}`);
    this.#blocks.push({ kind: "lines", lines: [line], wrap: true });
  }

  #endAnswer(): void {
    this.#answer = undefined;
  }

  /** One line cut to `width` with an ellipsis (no reset codes added when colour is off). */
  #fit(line: string, width: number): string {
    if (visibleWidth(line) <= width) return line;
    const cut = truncateToWidth(line, width, "…");
    return this.#theme.color ? cut : cut.replaceAll("\x1b[0m", "");
  }

  #renderLog(width: number): string[] {
    const out: string[] = [];
    for (const b of this.#blocks) {
      if (b.kind === "answer") {
        const text = b.md.render(width);
        if (text.length > 0) out.push("", ...text);
        continue;
      }
      if (b.kind === "child") {
        out.push(...this.#children.lines(b).map((line) => this.#fit(line, width)));
        continue;
      }
      for (const line of b.lines) {
        if (b.wrap) out.push(...(line === "" ? [""] : wrapTextWithAnsi(line, width)));
        else out.push(this.#fit(line, width));
      }
    }
    return out;
  }

  #renderStatus(width: number): string[] {
    const t = this.#theme;
    const now = this.#now();
    const lines: string[] = [];
    for (const line of this.#children.statusLines(SPINNER[this.#frame]!)) lines.push(this.#fit(line, width));
    if (this.#turnStarted !== undefined) {
      const elapsed = seconds(now - this.#turnStarted);
      lines.push(
        this.#fit(t.accent(`${SPINNER[this.#frame]} Working… ${elapsed} · Ctrl-C to interrupt`), width),
      );
    }
    for (const prompt of this.#queued) {
      lines.push(this.#fit(t.dim(`  (queued) ${firstLine(clean(prompt), 200)}`), width));
    }
    return lines.length === 0 ? [] : ["", ...lines];
  }
}
