// Owns the interactive session (`blade` on a terminal): an input source and a renderer around the
// same top-level session print mode runs (openMainSession, one AgentLoop, one event vocabulary).
// Prompts and slash commands come from the editor; turns run one at a time (typed-ahead prompts
// queue); while idle, completion notices of background children start a turn through the same
// delivery as print mode. Ctrl-C/Esc interrupts a turn; Ctrl-C twice, Ctrl-D or /exit leaves after
// the session is closed. Loaded lazily: `blade -p` never imports this folder.

import { type Component, Editor, matchesKey, ProcessTerminal, TUI } from "@mariozechner/pi-tui";
import type { Approver } from "../../protocol/approval.ts";
import { Approvals, type SavePlace } from "./approvals.ts";
import { savedRuleFor } from "./saved_rule.ts";
import { saveAllowRule } from "../../config/save_allow_rule.ts";
import { claudeUserDir } from "../../config/claude_dir.ts";
import type { Ports } from "../../sys/mod.ts";
import { usageError } from "../../errors.ts";
import { type App, createApp } from "../../app.ts";
import { PERMISSION_MODES } from "../../protocol/permission_mode.ts";
import { onSessionSignals } from "../../sys/signals.ts";
import { ignoreTerminalGone } from "../../sys/terminal_gone.ts";
import type { Io } from "../io.ts";
import { onceWarnings } from "../warnings.ts";
import { reportError } from "../report_error.ts";
import { appFlagsOf, rulesFromFlags } from "../print_flags.ts";
import { promptFlags } from "../print_inputs.ts";
import { mcpFlagsOf, startMcp } from "../mcp_wiring.ts";
import { makeTheme, type Theme } from "./theme.ts";
import {
  closeReplSession,
  IDLE_PROMPT,
  notificationDelays,
  openReplSession,
  type OpenSession,
  type OpenWhich,
  type SessionFlags,
} from "./repl_session.ts";
import { SessionView } from "./view.ts";
import { clean } from "./summary.ts";
import { PromptHistory } from "./prompt_history.ts";
import { Turns } from "./turns.ts";
import { providerErrorHint } from "../../provider/error_hint.ts";
import { Questions } from "./questions.ts";
import { parseSlash, SLASH_COMMANDS, slashAutocomplete } from "./slash.ts";
import { CommandInput } from "./command_input.ts";
import { runSlash, type SlashContext } from "./slash_commands.ts";
import { runTrust } from "../trust_cmd.ts";
import type { McpHub } from "../../mcp/hub.ts";

// deno-lint-ignore no-explicit-any
type Values = Record<string, any>;

/** The exit code after SIGTERM or SIGHUP (128 + the signal's number, as a shell reports it). */
const EXIT_CODE = { SIGTERM: 143, SIGHUP: 129 } as const;

/** Two Ctrl-C at an empty prompt within this window leave the session. */
const DOUBLE_CTRL_C_MS = 3000;

class Repl {
  #app: App;
  readonly #values: Values;
  #flags: SessionFlags;
  /** A new App and MCP hub for this folder, read again (after /trust). */
  readonly #reload: () => Promise<{ app: App; mcp: McpHub | undefined }>;
  readonly #theme: Theme;
  readonly view: SessionView;
  readonly #tui: TUI;
  readonly #editor: Editor;
  readonly #history: PromptHistory;
  readonly #commandInput: CommandInput;
  readonly #approvals: Approvals;
  /** What sits where the editor normally is (the approval choices), if anything. */
  #input: Component | undefined;
  #open: OpenSession | undefined;
  readonly #turns: Turns;
  readonly #questions: Questions;
  #lastCtrlC = -Infinity;
  /** Background children cancelled when the session was left. */
  cancelled: string[] = [];
  #closed: () => void = () => {};
  readonly done: Promise<void>;

  constructor(
    app: App,
    values: Values,
    flags: SessionFlags,
    options: {
      theme: Theme;
      view: SessionView;
      reload: () => Promise<{ app: App; mcp: McpHub | undefined }>;
    },
  ) {
    const { theme, view } = options;
    this.#reload = options.reload;
    this.#app = app;
    this.#values = values;
    this.#flags = flags;
    this.#theme = theme;
    this.view = view;
    this.#tui = new TUI(new ProcessTerminal());
    this.#editor = new Editor(this.#tui, theme.editor);
    this.#history = new PromptHistory(app.ports.fs, app.layout.promptHistoryPath(app.workspace), {
      redact: (text) => app.redact(text),
    });
    const host = { view, theme, swapInput: (c: Component | undefined) => this.#swapInput(c) };
    this.#approvals = new Approvals({
      ...host,
      readText: (path) => previewText(this.#app, path),
      saving: (request) => {
        const a = this.#app;
        const home = a.ports.env.home();
        const rule = savedRuleFor(request, {
          workspaceRoot: a.workspace,
          ...(home === undefined ? {} : { home }),
        });
        if (rule === undefined) return undefined;
        const places: SavePlace[] = [
          ...(a.trust.trusted ? ["project" as const] : []),
          ...(claudeUserDir(a.ports.env) === undefined ? [] : ["user" as const]),
        ];
        return places.length === 0 ? undefined : { rule, places };
      },
      saveRule: async (rule, place) => {
        const a = this.#app;
        const path = place === "project"
          ? `${a.workspace}/.claude/settings.local.json`
          : `${claudeUserDir(a.ports.env)}/settings.json`;
        await saveAllowRule(a.ports.fs, { path, rule });
        return path;
      },
    });
    this.#questions = new Questions(host);
    this.#commandInput = new CommandInput({ app, rules: flags.rules.rules, open: () => this.#open, view });
    this.#turns = new Turns({
      view,
      session: () => this.#open!.session,
      report: (e) => this.#report(e),
      hintFor: (e) =>
        providerErrorHint(e, { provider: app.config.provider, model: this.#open!.session.loop.model }),
      input: (prompt, signal) => this.#commandInput.input(prompt, signal),
      // Notification hooks' idle prompt (repl_session.ts notificationDelays).
      idle: {
        afterMs: notificationDelays((name) => app.ports.env.get(name)).idleMs,
        timer: app.ports.clock.timer.bind(app.ports.clock),
        notify: () => void this.#open?.hooks.notify(IDLE_PROMPT, "idle_prompt"),
      },
    });
    this.done = new Promise((resolve) => (this.#closed = resolve));
    view.onChange = () => this.#tui.requestRender();
  }

  get sessionId(): string {
    return this.#open?.session.sessionId ?? "";
  }

  async start(initialPrompt: string | undefined): Promise<void> {
    const tui = this.#tui;
    const editor = this.#editor;
    for (const prompt of await this.#history.load()) editor.addToHistory(prompt);
    editor.setAutocompleteProvider(
      slashAutocomplete(() => this.#open?.subagents.session()?.env.registry.names() ?? [], PERMISSION_MODES, {
        commands: () => this.#commandInput.commands,
      }),
    );
    editor.onSubmit = (text) => void this.#submit(text);
    tui.addChild(this.view.log);
    tui.addChild(this.view.status);
    tui.addChild(editor);
    tui.setFocus(editor);
    tui.addInputListener((data) => this.#key(data));
    this.#open = await this.#openSession({
      ...(this.#values.resume === undefined ? {} : { resume: this.#values.resume }),
      ...(this.#values.continue === true ? { continueLatest: true } : {}),
    });
    await this.#commandInput.load();
    tui.start();
    const stopTicker = this.#app.ports.clock.timer(250, () => {
      if (!this.view.busy && this.view.runningChildren().length === 0) return;
      this.view.tick();
      tui.requestRender();
    }, { repeat: true });
    this.done.then(stopTicker);
    if (initialPrompt !== undefined && initialPrompt.trim() !== "") await this.#submit(initialPrompt);
    void this.#turns.run();
  }

  #openSession(which: OpenWhich): Promise<OpenSession> {
    const approve: Approver = (request, signal) => this.#approvals.ask(request, signal);
    return openReplSession(this.#app, this.#flags, this.view, approve, which);
  }

  // ------------------------------------------------------------------ input

  /**
   * Puts `component` (a question's choices) in place of the editor, focused, right below the log
   * where the question is, with the live area under it; or the editor back, below the live area.
   */
  #swapInput(component: Component | undefined): void {
    const tui = this.#tui;
    tui.removeChild(this.#input ?? this.#editor);
    tui.removeChild(this.view.status);
    this.#input = component;
    if (component === undefined) tui.addChild(this.view.status);
    tui.addChild(component ?? this.#editor);
    if (component !== undefined) tui.addChild(this.view.status);
    tui.setFocus(component ?? this.#editor);
    tui.requestRender();
  }

  #key(data: string): { consume: boolean } | undefined {
    // An approval question takes the keys; Esc and Ctrl-C answer it with deny.
    if (this.#approvals.asking && (matchesKey(data, "ctrl+c") || matchesKey(data, "escape"))) {
      this.#approvals.cancel();
      return { consume: true };
    }
    if (this.#approvals.asking) return undefined;
    if (this.#questions.choosing) {
      if (matchesKey(data, "ctrl+c")) this.#questions.cancel();
      return matchesKey(data, "ctrl+c") ? { consume: true } : undefined;
    }
    if (matchesKey(data, "ctrl+c")) {
      this.#ctrlC();
      return { consume: true };
    }
    if (matchesKey(data, "ctrl+o")) {
      this.view.toggleExpanded();
      return { consume: true };
    }
    if (matchesKey(data, "ctrl+d") && this.#editor.getText() === "") {
      if (this.#questions.waitingForLine) this.#questions.cancel();
      else void this.close();
      return { consume: true };
    }
    if (matchesKey(data, "escape") && !this.#editor.isShowingAutocomplete()) {
      if (this.#questions.waitingForLine) {
        this.#questions.cancel();
        return { consume: true };
      }
      if (this.#turns.busy) {
        this.#interrupt();
        return { consume: true };
      }
    }
    return undefined;
  }

  /**
   * Interrupts the turn: its prompt and those queued behind it go back into the editor for editing
   * (or are named, when the editor holds something else), unsent; the conversation records the
   * interruption (`[Request interrupted by user]`), so the next prompt is not answered together with it.
   */
  #interrupt(): void {
    const unsent = this.#turns.interrupt();
    if (unsent.length === 0) return;
    if (this.#editor.getText() === "") this.#editor.setText(unsent.join("\n"));
    else this.view.print(this.#theme.dim(`Not sent: ${unsent.map((p) => clean(p)).join(" · ")}`));
    this.#tui.requestRender();
  }

  #ctrlC(): void {
    if (this.#questions.waitingForLine) return this.#questions.cancel();
    // A notice check that has not started a turn yet is not something to interrupt.
    if (this.#turns.busy) return this.#interrupt();
    if (this.#editor.getText() !== "") {
      this.#editor.setText("");
      this.#lastCtrlC = -Infinity;
      this.#tui.requestRender();
      return;
    }
    const now = this.#app.ports.clock.now();
    if (now - this.#lastCtrlC <= DOUBLE_CTRL_C_MS) {
      void this.close();
      return;
    }
    this.#lastCtrlC = now;
    this.view.print(this.#theme.dim("Press Ctrl-C again to exit (or Ctrl-D, /exit)."));
  }

  /** SIGINT: interrupts the running turn, or leaves when none runs. */
  signal(): void {
    if (this.#turns.running) this.#interrupt();
    else void this.close();
  }

  /** The signal that asked the session to leave, if one did (the exit code says so). */
  terminatedBy: "SIGTERM" | "SIGHUP" | undefined;

  /**
   * SIGTERM or SIGHUP: leaves as /exit does (the running turn is interrupted and written first,
   * background children cancelled, commands' process groups killed). After SIGHUP the terminal is
   * gone: nothing more is drawn on it.
   */
  terminate(signal: "SIGTERM" | "SIGHUP"): void {
    this.terminatedBy ??= signal;
    if (signal === "SIGHUP" && !this.#hungUp) {
      this.#hungUp = true;
      ignoreTerminalGone();
    }
    void this.close();
  }

  /** The terminal was closed (SIGHUP): writing to it would fail. */
  #hungUp = false;

  get hungUp(): boolean {
    return this.#hungUp;
  }

  async #submit(raw: string): Promise<void> {
    const text = raw.trim();
    // A question's empty answer takes its default (e.g. /agents create's "every tool").
    if (this.#questions.waitingForLine) return this.#questions.answer(text);
    if (text === "") return;
    this.#editor.addToHistory(text);
    await this.#history.add(text).catch((e) =>
      this.view.error(`Could not save the prompt history: ${e instanceof Error ? e.message : String(e)}`)
    );
    const slash = parseSlash(text);
    // A custom command (.claude/commands) is a prompt: the turn expands it.
    if (slash !== undefined && SLASH_COMMANDS.some((c) => c.name === slash.name || slash.name === "quit")) {
      this.view.prompt(text);
      try {
        await runSlash(this.#slashContext(), slash);
      } catch (e) {
        this.#report(e);
      }
      return;
    }
    this.#turns.enqueue(text);
  }

  #report(e: unknown): void {
    const sink = (t: string) => this.view.stderr(t);
    reportError({ out: sink, err: sink, color: false, tty: false }, e);
  }

  // ------------------------------------------------------------------ commands and lifecycle

  #slashContext(): SlashContext {
    const view = this.view;
    const out = (t: string) => view.output(t);
    const io: Io = {
      out,
      err: (t) => view.stderr(t),
      color: false,
      tty: false,
    };
    const loop = () => this.#open!.session.loop;
    return {
      app: this.#app,
      view,
      io,
      sessionId: () => this.sessionId,
      mode: () => loop().mode,
      model: () => loop().model,
      setMode: (mode) => {
        loop().configure({ mode });
        const parent = this.#open?.subagents.session()?.parent;
        if (parent !== undefined) parent.mode = mode;
      },
      setModel: (model) => {
        loop().configure({ model });
        const parent = this.#open?.subagents.session()?.parent;
        if (parent !== undefined) parent.model = model;
      },
      subagents: () => this.#open?.subagents.session(),
      customCommands: () => this.#commandInput.commands,
      ask: (q) => this.#questions.ask(q),
      choose: (title, items) => this.#questions.choose(title, items),
      switchSession: (resume) => this.#switch(resume),
      trust: () => this.#trust(),
      compact: (instructions) => this.#compact(instructions),
      exit: () => void this.close(),
    };
  }

  /** /compact: summarises the conversation between turns (its line comes from the `compacted` event). */
  async #compact(instructions: string): Promise<void> {
    if (this.#turns.running) {
      throw usageError(
        "A turn is running.",
        "Wait for it to finish (or interrupt it with Esc), then /compact again.",
      );
    }
    const done = await this.#open!.session.loop.compact(
      new AbortController().signal,
      instructions === "" ? {} : { instructions },
    );
    if (!done.ok) {
      this.view.stderr(
        done.blocked === true ? done.reason : `Could not compact the conversation: ${done.reason}.`,
      );
    }
  }

  /**
   * /trust: records the folder as trusted (what `blade trust` does), then reads the folder again and
   * continues this session with it: project settings and agents, `.mcp.json` servers and project memory
   * apply from the next prompt, and so do writes and Bash. Refused while work runs, since the session
   * is reopened.
   */
  async #trust(): Promise<void> {
    const app = this.#app;
    if (app.trust.trusted) return this.view.output(`${app.workspace} is trusted already.`);
    const open = this.#open!;
    const owner = { parentSessionId: open.session.sessionId, parentProjectPath: app.workspace };
    const busy = this.#turns.running ||
      (open.session.pending?.running() ?? []).length > 0 ||
      (open.subagents.session()?.env.shells.list(owner) ?? []).some((s) => s.status === "running");
    if (busy) {
      throw usageError(
        "A turn, a background subagent or a background command is running.",
        "Wait for it to finish (or stop it: /tasks stop <id>), then /trust again.",
      );
    }
    await runTrust([app.workspace], app.ports, this.#slashContext().io);
    const { app: next, mcp } = await this.#reload();
    const oldMcp = this.#flags.mcp;
    await this.#reopen(open.session.sessionId, { app: next, mcp });
    await oldMcp?.close();
  }

  /** The MCP servers of the sessions this REPL opens (replaced by /trust). */
  get mcp(): McpHub | undefined {
    return this.#flags.mcp;
  }

  async #switch(resume: string | undefined): Promise<void> {
    if (this.#turns.running) {
      throw usageError(
        "A turn is running.",
        "Wait for it to finish, or interrupt it with Ctrl-C, then try again.",
      );
    }
    const old = this.#open!;
    if (resume === old.session.sessionId) throw usageError(`${resume} is the session you are in.`);
    // Claude Code's SessionEnd reason and SessionStart source for /clear; another session: other, resume.
    await old.hooks.end(resume === undefined ? "clear" : "other");
    const next = await this.#openSession(resume === undefined ? { source: "clear" } : { resume });
    const cancelled = await closeReplSession(old, { workspace: this.#app.workspace });
    if (cancelled.length > 0) {
      this.view.print(
        this.#theme.warn(`Cancelled background tasks of the last session: ${cancelled.join(", ")}`),
      );
    }
    this.#approvals.reset();
    this.#open = next;
    this.#carryOver(old, next);
    this.view.print(
      this.#theme.dim(
        `Left ${old.session.sessionId}; resume it with blade --resume ${old.session.sessionId}`,
      ),
    );
    this.#turns.wake();
  }

  /** The mode and model chosen in this REPL carry over to the next session. */
  #carryOver(old: OpenSession, next: OpenSession): void {
    const { mode, model } = old.session.loop;
    if (mode !== next.session.loop.mode || model !== next.session.loop.model) {
      this.view.print(this.#theme.dim(`Kept from the last session: model ${model} · mode ${mode}`));
    }
    next.session.loop.configure({ mode, model });
    const parent = next.subagents.session()?.parent;
    if (parent !== undefined) {
      parent.mode = mode;
      parent.model = model;
    }
  }

  /**
   * Closes the open session and continues it with `using` (the folder read again): its lease is
   * given back first, since the same session is opened again. When that fails, the session goes on
   * as it was and the failure is reported.
   */
  async #reopen(id: string, using: { app: App; mcp: McpHub | undefined }): Promise<void> {
    const old = this.#open!;
    await closeReplSession(old, { workspace: this.#app.workspace });
    const before = { app: this.#app, flags: this.#flags };
    this.#app = using.app;
    this.#flags = { ...this.#flags, mcp: using.mcp };
    let next: OpenSession;
    try {
      next = await this.#openSession({ resume: id, hooks: old.hooks });
    } catch (e) {
      this.#app = before.app;
      this.#flags = before.flags;
      this.#open = await this.#openSession({ resume: id, hooks: old.hooks });
      await using.mcp?.close();
      throw e;
    }
    this.#approvals.reset();
    this.#open = next;
    this.#carryOver(old, next);
    this.#turns.wake();
  }

  #closing_: Promise<void> | undefined;

  /** Leaves: the running turn ends and is written, then the session closes. */
  close(): Promise<void> {
    return this.#closing_ ??= (async () => {
      this.#questions.cancel();
      // Wait for the running turn to write its end (turn_aborted) before the session is left.
      await this.#turns.stop();
      const open = this.#open;
      // The last frame is what stays on the terminal: the log, without the editor and live area.
      this.#approvals.cancel();
      if (!this.#hungUp) {
        this.#tui.removeChild(this.#input ?? this.#editor);
        this.#tui.removeChild(this.view.status);
        this.#tui.requestRender();
        await this.#app.ports.clock.sleep(50);
        try {
          this.#tui.stop();
        } catch { /* the terminal went away meanwhile: the session is still closed below */ }
      }
      try {
        if (open !== undefined) {
          this.cancelled = await closeReplSession(open, {
            workspace: this.#app.workspace,
            // Claude Code's reasons: the person left at the prompt, or a signal ended the session.
            end: this.terminatedBy === undefined ? "prompt_input_exit" : "other",
          });
        }
      } catch (e) {
        this.closeError = e; // reported once the screen is given back
      } finally {
        this.#closed();
      }
    })();
  }

  /** Why closing the session failed (a durable write, the lease), if it did. */
  closeError: unknown;
}

/** Files larger than this are not read for an approval's diff. */
const PREVIEW_MAX_BYTES = 1024 * 1024;

/** A file's text for an approval's preview (its size bounded), and whether it exists. */
async function previewText(app: App, path: string): Promise<{ text?: string; exists: boolean }> {
  const info = await app.ports.fs.stat(path).catch(() => null);
  if (info === null || info === undefined) return { exists: false };
  if (!info.isFile || info.size > PREVIEW_MAX_BYTES) return { exists: true };
  const text = await app.ports.fs.readTextIfExists(path).catch(() => null);
  return text === null ? { exists: true } : { text, exists: true };
}

export async function runInteractive(
  values: Values,
  positionals: string[],
  ports: Ports,
  io: Io,
): Promise<number> {
  if (values.resume !== undefined && values.continue === true) {
    throw usageError("--resume and --continue cannot be used together.");
  }
  if (values["output-format"] !== undefined && values["output-format"] !== "text") {
    throw usageError(
      `--output-format ${values["output-format"]} needs print mode.`,
      'Add -p: blade -p "…" --output-format json.',
    );
  }
  const theme = makeTheme(io.color);
  const view = new SessionView(theme, () => ports.clock.now());
  const app = await createApp(ports, appFlagsOf(values), {
    debugSink: (l) => view.print(theme.dim(`[debug] ${clean(l)}`), { wrap: true }),
    warnSink: onceWarnings(io),
  });
  const prompts = await promptFlags(values, ports);
  const rules = rulesFromFlags(values, io);
  // Before the screen is taken over: problems with MCP servers are warnings on stderr.
  const mcp = await startMcp(app, mcpFlagsOf(values), io);
  const flags: SessionFlags = { prompts, rules, mcp };
  const reload = async () => {
    const next = await createApp(ports, appFlagsOf(values), {
      debugSink: (l) => view.print(theme.dim(`[debug] ${clean(l)}`), { wrap: true }),
    });
    // Warnings of the folder's MCP servers land in the session's log now that it is on screen.
    const sink = (t: string) => view.stderr(t);
    const mcp = await startMcp(next, mcpFlagsOf(values), { out: sink, err: sink, color: false, tty: false });
    return { app: next, mcp };
  };
  const repl = new Repl(app, values, flags, { theme, view, reload });
  const disposeSignals = onSessionSignals(() => repl.signal(), (signal) => repl.terminate(signal));
  try {
    await repl.start(positionals.length === 0 ? undefined : positionals.join(" "));
    await repl.done;
  } catch (e) {
    await repl.close().catch(() => {});
    throw e;
  } finally {
    disposeSignals();
    await repl.mcp?.close();
  }
  const exitCode = repl.terminatedBy === undefined ? 0 : EXIT_CODE[repl.terminatedBy];
  // After SIGHUP there is no terminal to tell: the session is saved all the same.
  if (repl.hungUp) return repl.closeError === undefined ? exitCode : 1;
  if (repl.closeError !== undefined) throw repl.closeError;
  const id = repl.sessionId;
  if (repl.cancelled.length > 0) io.out(`Cancelled background tasks: ${repl.cancelled.join(", ")}\n`);
  io.out(`\nSession ${id} saved.\nResume it with: blade --resume ${id}\n`);
  return exitCode;
}
