import assert from "node:assert/strict";
import { realFs } from "../sys/fs.ts";
import {
  commandDirs,
  type CommandFile,
  findCommand,
  listCommands,
  parseCommand,
  toolList,
} from "./command_file.ts";

Deno.test("parseCommand: frontmatter fields, strict or lenient, and the body after it", () => {
  const at = { name: "r", source: "project" as const, path: "/p/r.md" };
  assert.deepEqual(
    parseCommand(
      "---\ndescription: Review: one file\nargument-hint: <file>\nallowed-tools: Read, Bash(git diff:*, x)\nmodel: haiku\n---\nBody $1\n",
      at,
    ),
    {
      ...at,
      description: "Review: one file",
      argumentHint: "<file>",
      allowedTools: ["Read", "Bash(git diff:*, x)"],
      model: "haiku",
      body: "Body $1\n",
    },
  );
  assert.deepEqual(parseCommand("No frontmatter\n", at), { ...at, body: "No frontmatter\n" });
  assert.deepEqual(parseCommand("---\nallowed-tools:\n  - Read\n  - Grep\n---\nB", at).allowedTools, [
    "Read",
    "Grep",
  ]);
});

Deno.test("toolList: commas outside parentheses separate rules", () => {
  assert.deepEqual(toolList("Read,Grep , Bash(a, b:*)"), ["Read", "Grep", "Bash(a, b:*)"]);
  assert.equal(toolList(undefined), undefined);
});

Deno.test("findCommand: project before user, namespaces as folders, unsafe names never read", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "commands-" }));
  try {
    const write = async (path: string, text: string) => {
      await Deno.mkdir(`${root}/${path}`.replace(/\/[^/]+$/, ""), { recursive: true });
      await Deno.writeTextFile(`${root}/${path}`, text);
    };
    await write("ws/.claude/commands/both.md", "project");
    await write("ws/.claude/commands/ui/button.md", "button");
    await write("user/commands/both.md", "user");
    await write("user/commands/only-user.md", "mine");
    await write("secret.md", "SECRET");
    const fs = realFs();
    const trusted = commandDirs({ workspace: `${root}/ws`, trusted: true, userDir: `${root}/user` });
    const untrusted = commandDirs({ workspace: `${root}/ws`, trusted: false, userDir: `${root}/user` });
    assert.equal((await findCommand(fs, trusted, "both") as CommandFile).body, "project");
    assert.equal((await findCommand(fs, untrusted, "both") as CommandFile).body, "user");
    assert.equal(
      (await findCommand(fs, trusted, "ui:button"))?.path,
      `${root}/ws/.claude/commands/ui/button.md`,
    );
    for (const name of ["../../secret", "..:..:secret", "ui/button", ".hidden"]) {
      assert.equal(await findCommand(fs, trusted, name), undefined, name);
    }
    assert.deepEqual((await listCommands(fs, trusted)).map((c) => `${c.name} ${c.source}`), [
      "both project",
      "only-user user",
      "ui:button project",
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
