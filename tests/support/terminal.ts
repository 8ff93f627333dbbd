// End-to-end test helper: runs the real `blade` CLI (the build under test, tests/support/blade.ts) inside a real
// pseudo-terminal — a private tmux server per test — so the interactive session sees a TTY on stdin
// and stdout. Tests type with `type`/`press`, read the rendered screen with `screen()` and wait for
// content with `waitFor` (bounded polling, generous limits for a loaded machine; never a fixed sleep).

import { commandSetup } from "./blade.ts";

export interface TerminalOptions {
  cwd: string;
  /** Blade's environment on top of PATH, TERM and DENO_DIR (sealed: nothing else is passed). */
  env: Record<string, string>;
  columns?: number;
  rows?: number;
  /** Keep every byte Blade writes to the terminal, from its very start, for `output()`. */
  record?: boolean;
  /** The terminal reports modified keys (Shift+Enter) when asked to, as kitty, iTerm2 or WezTerm do. */
  extendedKeys?: boolean;
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

async function tmux(socket: string, args: string[]): Promise<string> {
  const out = await new Deno.Command("tmux", {
    args: ["-L", socket, "-f", "/dev/null", ...args],
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  if (!out.success) {
    throw new Error(`tmux ${args[0]} failed: ${new TextDecoder().decode(out.stderr).trim()}`);
  }
  return new TextDecoder().decode(out.stdout);
}

export class BladeTerminal implements AsyncDisposable {
  readonly #socket: string;
  readonly #exitFile: string;
  readonly #recording: string | undefined;
  #closed = false;

  private constructor(socket: string, exitFile: string, recording: string | undefined) {
    this.#socket = socket;
    this.#exitFile = exitFile;
    this.#recording = recording;
  }

  /** Starts `blade <args>` in a fresh terminal of `columns`×`rows` (default 100×40). */
  static async start(args: string[], options: TerminalOptions): Promise<BladeTerminal> {
    const { argv, env: artefactEnv, denoDir } = await commandSetup();
    const socket = `blade-test-${crypto.randomUUID().slice(0, 8)}`;
    const exitFile = await Deno.makeTempFile({ prefix: "blade-tty-exit-" });
    await Deno.remove(exitFile);
    const env = {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      TERM: "xterm-256color",
      DENO_DIR: denoDir,
      ...artefactEnv,
      ...options.env,
    };
    const command = [
      "env",
      "-i",
      ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
      ...argv,
      ...args,
    ].map(quote).join(" ");
    // The pane waits until the terminal is set up (its output copied to a file, its options set)
    // before Blade starts, and stays after Blade exits, so the last screen can still be read.
    const recording = options.record === true ? `${exitFile}.out` : undefined;
    const go = `${exitFile}.go`;
    const wait = `while [ ! -e ${quote(go)} ]; do sleep 0.05; done; `;
    const script = `${wait}cd ${quote(options.cwd)} && ${command}; echo $? > ${quote(exitFile)}; sleep 600`;
    await tmux(socket, [
      "new-session",
      "-d",
      "-x",
      String(options.columns ?? 100),
      "-y",
      String(options.rows ?? 40),
      "sh",
      "-c",
      script,
    ]);
    if (recording !== undefined) await tmux(socket, ["pipe-pane", "-o", `cat > ${quote(recording)}`]);
    if (options.extendedKeys === true) await tmux(socket, ["set-option", "-s", "extended-keys", "on"]);
    await Deno.writeTextFile(go, "");
    return new BladeTerminal(socket, exitFile, recording);
  }

  /** Every byte Blade has written to the terminal so far (`record: true` only). */
  async output(): Promise<Uint8Array> {
    if (this.#recording === undefined) throw new Error("the terminal was started without record: true");
    return await Deno.readFile(this.#recording);
  }

  /** Blade's PID (the pane's shell's child). */
  async pid(): Promise<number> {
    const shell = (await tmux(this.#socket, ["list-panes", "-F", "#{pane_pid}"])).trim();
    // pgrep rather than /proc/<pid>/task/<pid>/children, which Deno grants only with --allow-all.
    const found = await new Deno.Command("pgrep", { args: ["-P", shell], stdout: "piped" }).output();
    const pid = Number(new TextDecoder().decode(found.stdout).trim().split(/\s+/)[0]);
    if (!Number.isInteger(pid) || pid <= 0) {
      throw new Error(`Blade is not running in the pane (shell ${shell})`);
    }
    return pid;
  }

  /** Sends `signal` to Blade itself (the pane's shell's child), as `kill` from another terminal would. */
  async kill(signal: Deno.Signal): Promise<void> {
    Deno.kill(await this.pid(), signal);
  }

  /**
   * Closes the terminal, as closing its window does: tmux goes away with the pane, and the kernel
   * sends SIGHUP to the pane's foreground process group (Blade and its shell). The screen cannot be
   * read afterwards.
   */
  async hangUp(): Promise<void> {
    this.#closed = true;
    await tmux(this.#socket, ["kill-server"]);
  }

  /** Types text literally (no key names). */
  async type(text: string): Promise<void> {
    await tmux(this.#socket, ["send-keys", "-l", text]);
  }

  /** Presses keys by tmux name: Enter, C-c, C-d, Escape, Up, Tab, … */
  async press(...keys: string[]): Promise<void> {
    for (const key of keys) await tmux(this.#socket, ["send-keys", key]);
  }

  /** Pastes text as a terminal paste (bracketed when the application asked for it). */
  async paste(text: string): Promise<void> {
    await tmux(this.#socket, ["set-buffer", "--", text]);
    await tmux(this.#socket, ["paste-buffer", "-p"]);
  }

  /** The visible screen, trailing blanks removed. */
  async screen(): Promise<string> {
    const text = await tmux(this.#socket, ["capture-pane", "-p"]);
    return text.split("\n").map((l) => l.trimEnd()).join("\n").trimEnd();
  }

  /** The visible screen with its attributes as SGR escape sequences (colour, bold, dim). */
  async styledScreen(): Promise<string> {
    return await tmux(this.#socket, ["capture-pane", "-p", "-e"]);
  }

  /** Everything printed so far, scrollback included; lines the terminal wrapped are joined. */
  async history(): Promise<string> {
    const text = await tmux(this.#socket, ["capture-pane", "-p", "-J", "-S", "-", "-E", "-"]);
    return text.split("\n").map((l) => l.trimEnd()).join("\n").trimEnd();
  }

  /**
   * Polls until `want` matches the output (scrollback included; `visibleOnly`: the screen as it is now,
   * for "has gone" checks); fails with the screen after `timeoutMs` (default 60 s).
   */
  async waitFor(
    want: string | RegExp | ((screen: string) => boolean),
    options: { timeoutMs?: number; visibleOnly?: boolean } = {},
  ): Promise<string> {
    const timeoutMs = options.timeoutMs ?? 60_000;
    const test = typeof want === "function"
      ? want
      : typeof want === "string"
      ? (s: string) => s.includes(want)
      : (s: string) => want.test(s);
    const deadline = Date.now() + timeoutMs;
    let last = "";
    while (Date.now() < deadline) {
      last = options.visibleOnly === true ? await this.screen() : await this.history();
      if (test(last)) return last;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`timed out waiting for ${String(want)}; the terminal shows:\n${last}`);
  }

  /**
   * Waits until the application has asked the terminal for modified keys (kitty's keyboard protocol or
   * xterm's modifyOtherKeys), so a modified key such as S-Enter reaches it as a key: before that,
   * tmux 3.3 types an unknown key's name as text. pi-tui asks 150 ms after it starts, which a loaded
   * machine can make late. Needs `record: true` and `extendedKeys: true`.
   */
  async waitForModifiedKeys(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const text = new TextDecoder().decode(await this.output());
      const on = Math.max(text.lastIndexOf("\x1b[>4;2m"), text.lastIndexOf("\x1b[>7u"));
      const off = Math.max(text.lastIndexOf("\x1b[>4;0m"), text.lastIndexOf("\x1b[<u"));
      if (on > off) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error("timed out waiting for the application to enable modified keys");
  }

  /** Waits until Blade has exited and returns its exit code. */
  async exitCode(timeoutMs = 60_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      try {
        const text = (await Deno.readTextFile(this.#exitFile)).trim();
        if (text !== "") return Number(text);
      } catch { /* not yet */ }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`blade did not exit; the terminal shows:\n${await this.history()}`);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    if (!this.#closed) await tmux(this.#socket, ["kill-server"]).catch(() => {});
    this.#closed = true;
    for (const file of [this.#exitFile, `${this.#exitFile}.go`, `${this.#exitFile}.out`]) {
      await Deno.remove(file).catch(() => {});
    }
  }
}

/** The screen without what changes between runs: ids, elapsed times, spinner frames, temp paths. */
export function stableScreen(text: string, replace: Record<string, string> = {}): string {
  let out = text;
  for (const [from, to] of Object.entries(replace)) out = out.split(from).join(to);
  return out
    .replace(/session-[A-Za-z0-9_-]{21}/g, "session-<id>")
    .replace(/agent-[A-Za-z0-9_-]{8,}/g, "agent-<id>")
    .replace(/\b\d+m\d{2}s\b|\b\d+s\b/g, "<t>")
    .replace(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/g, "⠿");
}
