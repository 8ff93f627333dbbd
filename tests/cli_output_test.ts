// What people read: `blade -p` in text mode (with a subagent and its tool), `blade tasks list`, and
// error messages (usage mistakes exit 2, failures exit 1, never a stack), checked as snapshots with
// the temporary folder replaced by <root> and ids/ages normalised. Update with `deno task test -u`.

import { type BladeResult, type BladeSandbox, bladeSandbox } from "./support/blade.ts";

const SCRIPT = `agents:
  main:
    - turns:
        - text: "Let me ask a helper."
          tool_calls:
            - name: Task
              input: { subagent_type: Explore, description: "Find the greeting", prompt: "Find where the greeting is printed." }
        - text: "The greeting is printed in src/greet.ts."
  Explore:
    - turns:
        - tool_calls: [{ name: Glob, input: { pattern: "src/*.ts" } }]
        - text: "src/greet.ts prints it."
`;

/** Exit code, stdout and stderr with machine-specific parts replaced. */
function shown(sandbox: BladeSandbox, r: BladeResult): string {
  const clean = (text: string) =>
    text.replaceAll(sandbox.root, "<root>")
      .replace(/agent-[A-Za-z0-9_-]{21}/g, "agent-<id>")
      .replace(/session-[A-Za-z0-9_-]{21}/g, "session-<id>")
      .replace(/ +\d+[smhd] ago {2}/g, " <age> ago  ");
  return `exit ${r.code}\n--- stdout\n${clean(r.stdout)}--- stderr\n${clean(r.stderr)}`;
}

Deno.test("cli output: blade -p in text mode, then blade tasks list", async (t) => {
  await using sandbox = await bladeSandbox();
  await sandbox.write("src/greet.ts", 'console.log("hello");\n');
  await sandbox.write("script.yaml", SCRIPT);
  const run = await sandbox.run([
    "-p",
    "Where is the greeting printed?",
    "--provider",
    "scripted",
    "--script",
    "script.yaml",
  ]);
  await t.assertSnapshot(shown(sandbox, run));
  await t.assertSnapshot(shown(sandbox, await sandbox.run(["tasks", "list"])));
});

Deno.test("cli output: error messages say what, where and what to do", async (t) => {
  await using sandbox = await bladeSandbox();
  const cases = [
    ["-p", "hi", "--permission-mode", "sudo"],
    ["-p", "hi", "--no-such-flag"],
    ["-p", "hi", "--provider", "scripted"],
    ["agents", "list", "--agents", "{not json"],
    ["frobnicate"],
    ["tsaks", "list"],
    ["tasks", "output", "agent-doesnotexist000000000"],
    ["tasks", "output", "../escape"],
    ["run"],
    ["agents", "create", "verification", "--description", "mine"],
  ];
  for (const args of cases) {
    await t.assertSnapshot(`$ blade ${args.join(" ")}\n${shown(sandbox, await sandbox.run(args))}`);
  }
});
