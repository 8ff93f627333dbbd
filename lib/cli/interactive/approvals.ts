// Owns the interactive session's approval questions: a call the permission gate would refuse but a
// person may allow (permission mode default: writes and Bash) is shown with the exact command or path
// (every control or invisible character written out, so nothing of it is hidden) and answered allow
// once / allow always for this session / deny. Questions from the session and its foreground
// children are asked one at a time; "always" is remembered for the same tool and the same
// command or path until the session ends. The answer itself is recorded by the loop (approval_step.ts).

import { type Component, matchesKey, SelectList } from "@mariozechner/pi-tui";
import type { ApprovalAnswer, ApprovalRequest } from "../../protocol/approval.ts";
import type { Theme } from "./theme.ts";
import { writtenOut } from "../sanitize.ts";
import type { SessionView } from "./view.ts";
import { clean } from "./summary.ts";
import { changePreview } from "./change_preview.ts";

/** Where the question is shown: the REPL swaps its editor for the choice list and back. */
export interface ApprovalHost {
  view: SessionView;
  theme: Theme;
  /** Shows `component` in place of the editor (focused); undefined puts the editor back. */
  swapInput(component: Component | undefined): void;
  /** A file's text now (for a Write or Edit preview): undefined text when absent, large or unreadable. */
  readText?(path: string): Promise<{ text?: string; exists: boolean }>;
  /**
   * The rule an approval may be saved as, and where it can go: the project's local settings only in a
   * trusted folder. Undefined when the call cannot be saved as a rule.
   */
  saving?(request: ApprovalRequest): { rule: string; places: SavePlace[] } | undefined;
  /** Saves `rule` in `place`'s settings file; returns the file's path. */
  saveRule?(rule: string, place: SavePlace): Promise<string>;
}

/** Where an approval's rule is saved: `.claude/settings.local.json`, or the user's `settings.json`. */
export type SavePlace = "project" | "user";

const PLACE_LABEL: Record<SavePlace, string> = {
  project: "for this project (.claude/settings.local.json)",
  user: "for me in every folder (~/.claude/settings.json)",
};

/** What "always" remembers: the same tool with the same command or path. */
export function approvalKey(request: Pick<ApprovalRequest, "tool" | "subject">): string {
  return `${request.tool}\u0000${request.subject}`;
}

export function approvalQuestion(request: ApprovalRequest): string {
  const who = request.agentType === "main" ? "" : ` (subagent ${request.agentType} ${request.sessionId})`;
  const what = request.tool === "Bash"
    ? "run"
    : request.tool === "Write" || request.tool === "Edit"
    ? "write"
    : "use";
  return `Allow ${request.tool} to ${what}${who}:`;
}

/**
 * What the question shows: the command or path, and for a tool approved by its name (an MCP tool)
 * the input it would be called with, whole (as JSON), so a person never approves a call blind.
 */
export function approvalShown(request: Pick<ApprovalRequest, "tool" | "subject" | "input">): string {
  const input = request.input;
  if (request.subject !== request.tool || input === undefined || Object.keys(input).length === 0) {
    return request.subject;
  }
  return JSON.stringify(input, null, 2);
}

/** What "always" covers, for the choice's label. */
function alwaysCovers(tool: string, subject: string): string {
  if (tool === "Bash") return "command";
  return subject === tool ? "tool" : "path";
}

export class Approvals {
  #host: ApprovalHost;
  #always = new Set<string>();
  #queue: Promise<unknown> = Promise.resolve();
  /** The choice list on screen, if any (Esc and Ctrl-C answer it with deny). */
  #open: ((answer: ApprovalAnswer) => void) | undefined;

  constructor(host: ApprovalHost) {
    this.#host = host;
  }

  get asking(): boolean {
    return this.#open !== undefined;
  }

  /** Answers the question on screen with deny (Esc, Ctrl-C). */
  cancel(): void {
    this.#open?.("deny");
  }

  /** Forgets "always" answers (a new session starts). */
  reset(): void {
    this.#always.clear();
  }

  ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    const next = this.#queue.then(() => this.#askNow(request, signal));
    this.#queue = next.catch(() => {});
    return next;
  }

  async #askNow(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    const { view, theme: t } = this.#host;
    // The subject is shown whole: controls are written out, never removed (they could hide a command).
    if (this.#always.has(approvalKey(request))) {
      const named = writtenOut(request.subject.replace(/\t/g, "    ")).text;
      view.print(t.dim(`  ✓ ${clean(request.tool)} ${named} (allowed for this session)`));
      return "allow_always";
    }
    const subject = writtenOut(approvalShown(request).replace(/\t/g, "    "));
    if (signal.aborted) return "deny";
    view.print(t.warn(`? ${clean(approvalQuestion(request))}`));
    view.print(subject.text.split("\n").map((line) => `    ${t.bold(line)}`).join("\n"));
    if (subject.hidden) {
      view.print(
        t.warn("  ⚠ It contains control or invisible characters, written out above as \\xNN or \\uNNNN."),
      );
    }
    await this.#preview(request);
    const what = alwaysCovers(request.tool, request.subject);
    const saving = this.#host.saving?.(request);
    const items = [
      { value: "allow_once", label: "Yes, once" },
      { value: "allow_always", label: `Yes, and allow this ${what} for the rest of the session` },
      ...(saving?.places ?? []).map((place) => ({
        value: `save:${place}`,
        label: `Yes, and save the rule ${saving!.rule} ${PLACE_LABEL[place]}`,
      })),
      { value: "deny", label: "No (tell the agent it was refused)" },
    ];
    const list = new SelectList(items, items.length, t.select);
    const guarded = typedTextGuard(
      list,
      () => view.print(t.dim("  Typed text is not an answer: choose with ↑/↓ and Enter (Esc: No).")),
    );
    let chosen = "";
    const answer = await new Promise<ApprovalAnswer>((resolve) => {
      const done = (a: ApprovalAnswer) => {
        this.#open = undefined;
        signal.removeEventListener("abort", onAbort);
        this.#host.swapInput(undefined);
        resolve(a);
      };
      const onAbort = () => done("deny");
      signal.addEventListener("abort", onAbort, { once: true });
      list.onSelect = (item) => {
        chosen = item.value;
        done(item.value.startsWith("save:") ? "allow_always" : item.value as ApprovalAnswer);
      };
      list.onCancel = () => done("deny");
      this.#open = done;
      this.#host.swapInput(guarded);
    });
    if (answer === "allow_always") this.#always.add(approvalKey(request));
    const said = answer === "allow_once"
      ? t.ok("allowed once")
      : answer === "allow_always"
      ? t.ok("allowed for this session")
      : t.error("denied");
    view.print(`  → ${said}`);
    if (chosen.startsWith("save:") && saving !== undefined) {
      await this.#save(saving.rule, chosen.slice(5) as SavePlace);
    }
    return answer;
  }

  /** A Write or Edit question shows the change: the new file's lines, or a diff. */
  async #preview(request: ApprovalRequest): Promise<void> {
    if ((request.tool !== "Write" && request.tool !== "Edit") || this.#host.readText === undefined) return;
    const { text, exists } = await this.#host.readText(request.subject);
    const lines = changePreview(
      { tool: request.tool, input: request.input, current: text, exists },
      this.#host.theme,
    );
    if (lines.length > 0) this.#host.view.print(lines.map((l) => `    ${l}`).join("\n"), { wrap: false });
  }

  /** Saves the approved call's rule; a file that cannot take it is reported, the call still allowed. */
  async #save(rule: string, place: SavePlace): Promise<void> {
    const { view, theme: t } = this.#host;
    try {
      const path = await this.#host.saveRule!(rule, place);
      view.print(t.dim(`  saved ${rule} in ${clean(path)}`));
    } catch (e) {
      view.error(`The rule ${rule} was not saved: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

/**
 * The choice list, except that text typed while it is shown (a prompt typed ahead while the agent
 * worked) is not an answer: it is dropped, and the Enter that ends it answers nothing (`warn` says
 * so), so a question that appears mid-typing is never approved by the typist's Enter.
 */
function typedTextGuard(list: SelectList, warn: () => void): Component {
  let typed = false;
  const navigation = ["up", "down", "escape", "ctrl+c"] as const;
  return {
    render: (width) => list.render(width),
    invalidate: () => list.invalidate(),
    handleInput: (data) => {
      if (matchesKey(data, "enter")) {
        if (!typed) return list.handleInput(data);
        typed = false;
        return warn();
      }
      if (!data.startsWith("\x1b") && !navigation.some((k) => matchesKey(data, k))) {
        typed = true;
        return;
      }
      list.handleInput(data);
    },
  };
}
