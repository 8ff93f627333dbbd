// Owns custom slash commands in the interactive session (docs/guides/memory.md): their names for /help
// and Tab completion (read when a session opens; a file named like a built-in is named in a warning and
// never used), and a typed prompt turned into the turn's input — a command expanded by the session's
// context, its `model` kept for that turn only.

import type { App } from "../../app.ts";
import type { TurnInput } from "../../executor/loop.ts";
import { expandPrompt } from "../../executor/prompt_expansion.ts";
import type { RuleSet } from "../../protocol/tool_rule.ts";
import { claudeUserDir } from "../../config/claude_dir.ts";
import { commandDirs, listCommands } from "../../commands/command_file.ts";
import { BUILT_IN_SLASH_NAMES } from "../../commands/reserved.ts";
import type { OpenSession } from "./repl_session.ts";
import type { SessionView } from "./view.ts";
import { clean } from "./summary.ts";

/** A custom command as /help and Tab completion show it. */
export interface CustomCommand {
  name: string;
  description?: string;
  argumentHint?: string;
}

export interface CommandInputOptions {
  app: App;
  rules: RuleSet;
  open: () => OpenSession | undefined;
  /** Where a shadowed command file is named. */
  view: Pick<SessionView, "print">;
}

export class CommandInput {
  /** The custom commands of this folder (empty with --bare or before load()). */
  commands: readonly CustomCommand[] = [];
  #o: CommandInputOptions;
  /** The model a command set for its turn, and the one to go back to. */
  #restore: { set: string; previous: string } | undefined;

  constructor(options: CommandInputOptions) {
    this.#o = options;
  }

  /** Reads the command names (project ones when trusted), warning about files a built-in shadows. */
  async load(): Promise<void> {
    const { app } = this.#o;
    if (app.flags.bare === true) return;
    const found = await listCommands(
      app.ports.fs,
      commandDirs({
        workspace: app.workspace,
        trusted: app.trust.trusted,
        userDir: claudeUserDir(app.ports.env),
      }),
    );
    for (const c of found.filter((c) => BUILT_IN_SLASH_NAMES.includes(c.name))) {
      this.#o.view.print(
        `warning: ${clean(`/${c.name} is Blade's own; the custom command ${c.path} is not used`)}`,
      );
    }
    this.commands = found.filter((c) => !BUILT_IN_SLASH_NAMES.includes(c.name)).map((c) => ({
      name: c.name,
      ...(c.description === undefined ? {} : { description: c.description }),
      ...(c.argumentHint === undefined ? {} : { argumentHint: c.argumentHint }),
    }));
  }

  /** The turn's input for `prompt`: a custom command expanded (its model for this turn), else as typed. */
  async input(prompt: string, signal: AbortSignal): Promise<TurnInput> {
    const open = this.#o.open()!;
    const { loop } = open.session;
    if (this.#restore !== undefined && loop.model === this.#restore.set) {
      loop.configure({ model: this.#restore.previous });
    }
    this.#restore = undefined;
    const context = open.context;
    const expansion = await expandPrompt(
      this.#o.app,
      { ...(context === undefined ? {} : { context }), rules: this.#o.rules },
      prompt,
      signal,
    );
    if (expansion?.model !== undefined && expansion.model !== loop.model) {
      this.#restore = { set: expansion.model, previous: loop.model };
      loop.configure({ model: expansion.model });
    }
    return open.session.input(expansion?.blocks ?? prompt, prompt);
  }
}
