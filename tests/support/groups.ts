// Process-group support for the e2e tests that prove kills with `ps` (tests/e2e_child_kill_test.ts,
// tests/e2e_recovery_groups_test.ts): a `shell` agent that runs the commands it is given, the flags
// that define and allow it, and the members of a process group.

import assert from "node:assert/strict";

export const SHELL_AGENT = {
  shell: {
    description: "Runs shell commands",
    prompt: "You run the commands you are given.",
    tools: ["Bash"],
    permissionMode: "yolo",
  },
};

export const SHELL_FLAGS = [
  "--agents",
  JSON.stringify(SHELL_AGENT),
  "--trust-workspace",
  "--permission-mode",
  "yolo",
];

/** The PIDs in process group `pgid` (`ps -g`), empty when none is left. */
export async function groupMembers(pgid: string): Promise<string> {
  const out = await new Deno.Command("ps", { args: ["-o", "pid=", "-g", pgid], stdout: "piped" }).output();
  return new TextDecoder().decode(out.stdout).trim();
}

/** SIGKILL lands asynchronously: the group may take a moment to empty. */
export async function assertGroupGone(pgid: string): Promise<void> {
  for (let i = 0; i < 40 && (await groupMembers(pgid)) !== ""; i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(await groupMembers(pgid), "", `process group ${pgid} still has members`);
}
