import assert from "node:assert/strict";
import { freshDevBundle, isFresh, sourceState, STAMP_PATH } from "./dev_bundle.ts";

Deno.test("isFresh: the same Deno, the same set of files and none newer than the build", () => {
  const stamp = { deno: "2.9.6", files: 10, newest: 1000, inputs: [], entry: "b/main.js" };
  const cases: [string, { files: number; newest: number }, string, boolean][] = [
    ["unchanged", { files: 10, newest: 1000 }, "2.9.6", true],
    ["a file changed after the build", { files: 10, newest: 1001 }, "2.9.6", false],
    ["a file added or removed", { files: 11, newest: 900 }, "2.9.6", false],
    ["another Deno", { files: 10, newest: 1000 }, "2.9.7", false],
  ];
  for (const [name, state, deno, want] of cases) assert.equal(isFresh(stamp, state, deno), want, name);
  assert.equal(isFresh(undefined, { files: 10, newest: 1000 }, "2.9.6"), false, "no stamp");
});

Deno.test("sourceState counts the bundle's sources (no tests, no lib/testing/) and finds the newest", async () => {
  const root = await Deno.makeTempDir({ prefix: "blade-devbundle-" });
  try {
    await Deno.mkdir(`${root}/lib/cli/__snapshots__`, { recursive: true });
    await Deno.mkdir(`${root}/lib/testing`, { recursive: true });
    const at = (path: string, seconds: number) => Deno.utime(`${root}/${path}`, seconds, seconds);
    for (const f of ["main.ts", "deno.json", "lib/app.ts", "lib/cli/main.ts"]) {
      await Deno.writeTextFile(`${root}/${f}`, "");
      await at(f, 100);
    }
    for (
      const f of ["lib/cli/main_test.ts", "lib/testing/fake.ts", "lib/cli/__snapshots__/x.ts", "lib/notes.md"]
    ) {
      await Deno.writeTextFile(`${root}/${f}`, "");
      await at(f, 900); // newer, but not part of the bundle
    }
    await at("lib/app.ts", 200);
    assert.deepEqual({ ...sourceState(root), inputs: sourceState(root).inputs.toSorted() }, {
      files: 4,
      newest: 200_000,
      inputs: ["deno.json", "lib/app.ts", "lib/cli/main.ts", "main.ts"],
    });

    // A stamp of that state makes the build fresh until a source changes.
    const state = sourceState(root);
    await Deno.mkdir(`${root}/dist/dev/b1`, { recursive: true });
    await Deno.writeTextFile(`${root}/dist/dev/b1/main.js`, "");
    await Deno.writeTextFile(
      `${root}/${STAMP_PATH}`,
      JSON.stringify({ ...state, deno: Deno.version.deno, entry: "b1/main.js" }),
    );
    assert.equal(freshDevBundle(root), `${root}/dist/dev/b1/main.js`);
    await at("lib/cli/main.ts", 300);
    assert.equal(freshDevBundle(root), undefined);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("freshDevBundle looks only at the stamp's inputs: a removed input or a new top-level file makes it stale", async () => {
  const root = await Deno.makeTempDir({ prefix: "blade-devbundle-" });
  try {
    await Deno.mkdir(`${root}/lib/cli`, { recursive: true });
    for (const f of ["main.ts", "deno.json", "lib/app.ts", "lib/cli/main.ts"]) {
      await Deno.writeTextFile(`${root}/${f}`, "");
      await Deno.utime(`${root}/${f}`, 100, 100);
    }
    await Deno.mkdir(`${root}/dist/dev/b1`, { recursive: true });
    await Deno.writeTextFile(`${root}/dist/dev/b1/main.js`, "");
    const stamp = (state: object) =>
      Deno.writeTextFile(
        `${root}/${STAMP_PATH}`,
        JSON.stringify({ ...state, deno: Deno.version.deno, entry: "b1/main.js" }),
      );
    await stamp(sourceState(root));
    assert.equal(freshDevBundle(root), `${root}/dist/dev/b1/main.js`);
    // A new source file no input imports is not in the bundle: still fresh (importing it is an edit).
    await Deno.writeTextFile(`${root}/lib/cli/new.ts`, "");
    await Deno.utime(`${root}/lib/cli/new.ts`, 900, 900);
    assert.equal(freshDevBundle(root), `${root}/dist/dev/b1/main.js`);
    await Deno.remove(`${root}/lib/cli/new.ts`);

    await Deno.remove(`${root}/lib/app.ts`);
    assert.equal(freshDevBundle(root), undefined, "an input removed");
    await Deno.writeTextFile(`${root}/lib/app.ts`, "");
    await Deno.utime(`${root}/lib/app.ts`, 100, 100);
    assert.equal(freshDevBundle(root), `${root}/dist/dev/b1/main.js`);

    await Deno.writeTextFile(`${root}/deno.lock`, "{}");
    await Deno.utime(`${root}/deno.lock`, 50, 50);
    assert.equal(freshDevBundle(root), undefined, "a top-level input that was absent at the build appeared");
    await Deno.remove(`${root}/deno.lock`);

    const state = sourceState(root);
    for (
      const [name, bad] of [
        ["no inputs", { ...state, inputs: undefined }],
        ["an input outside the checkout", { ...state, inputs: [...state.inputs.slice(1), "../x.ts"] }],
        ["an absolute input", { ...state, inputs: [...state.inputs.slice(1), "/etc/passwd"] }],
        ["inputs and count disagree", { ...state, files: state.files + 1 }],
      ] as const
    ) {
      await stamp(bad);
      assert.equal(freshDevBundle(root), undefined, name);
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
