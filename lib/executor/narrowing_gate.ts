// Owns the narrowing a command's or a skill's `allowed-tools` puts on a session's turn
// (docs/guides/memory.md; the decision is permissions/narrowing.ts): set when a prompt names a command,
// added to when a Skill call loads a skill, cleared by the next prompt. A BeforeToolCall: it only
// refuses, after the permission gate has allowed.

import { narrowedRefusal, type Narrowing } from "../permissions/narrowing.ts";
import { pathArgument } from "../protocol/tool_rule.ts";
import { canonicalPath, resolveToolPath } from "../tools/paths.ts";
import type { BeforeToolCall } from "./tool_runner.ts";
import { loadBashParser } from "../shell/bash_parser.ts";

export class NarrowingGate {
  #active: Narrowing[] = [];

  /** A new prompt: what its command narrows to (nothing for a plain prompt). */
  reset(first?: Narrowing): void {
    this.#active = first === undefined ? [] : [first];
  }

  /** A loaded skill narrows further (never widens what an earlier narrowing allowed). */
  add(narrowing: Narrowing): void {
    this.#active.push(narrowing);
  }

  get active(): readonly Narrowing[] {
    return this.#active;
  }

  readonly check: BeforeToolCall = async ({ tool, call, ctx }) => {
    if (this.#active.length === 0) return { allow: true };
    // Bash rules are matched on the command's bash parse (shell/command_line.ts).
    if (typeof call.input.command === "string") await loadBashParser();
    const argument = pathArgument(tool.name);
    const given = argument === undefined ? undefined : call.input[argument];
    const path = typeof given === "string" && given !== ""
      ? await canonicalPath(ctx.ports.fs, resolveToolPath(ctx, given)).catch(() => undefined)
      : undefined;
    const home = ctx.ports.env.home();
    const refusal = narrowedRefusal(
      this.#active,
      { tool: tool.name, input: call.input, ...(path === undefined ? {} : { path }) },
      { workspaceRoot: ctx.workspaceRoot, ...(home === undefined ? {} : { home }) },
    );
    return refusal === undefined ? { allow: true } : { allow: false, askable: false, message: refusal };
  };
}
