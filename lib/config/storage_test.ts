import assert from "node:assert/strict";
import { resolveStorageRoot } from "./storage.ts";
import { fakeEnv } from "../testing/fakes.ts";

const cases: { name: string; vars: Record<string, string>; cwd: string; want: string }[] = [
  {
    name: "absolute root is kept",
    vars: { BLADE_STORAGE_ROOT: "/srv/blade" },
    cwd: "/u/p",
    want: "/srv/blade",
  },
  {
    name: "trailing slash is dropped",
    vars: { BLADE_STORAGE_ROOT: "/srv/blade/" },
    cwd: "/u/p",
    want: "/srv/blade",
  },
  // Under `deno task` the process cwd is the Blade checkout; the user's folder is Env.cwd() (INIT_CWD).
  {
    name: "relative root resolves against the user's folder",
    vars: { BLADE_STORAGE_ROOT: "store" },
    cwd: "/u/p",
    want: "/u/p/store",
  },
  {
    name: "./ and ../ are normalised",
    vars: { BLADE_STORAGE_ROOT: "../x/./s/" },
    cwd: "/u/p",
    want: "/u/x/s",
  },
  { name: "a bare dot is the user's folder", vars: { BLADE_STORAGE_ROOT: "." }, cwd: "/u/p", want: "/u/p" },
  { name: "unset uses HOME", vars: { HOME: "/home/me" }, cwd: "/u/p", want: "/home/me/.blade" },
];

for (const c of cases) {
  Deno.test(`resolveStorageRoot: ${c.name}`, () => {
    assert.equal(resolveStorageRoot(fakeEnv(c.vars, { cwd: c.cwd })), c.want);
  });
}
