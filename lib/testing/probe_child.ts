// A sandbox child for tests: each request performs one raw Deno operation, bypassing every Blade tool
// and path check, and reports whether Deno allowed it. Also fails, crashes, exits, hangs or waits for
// the parent's abort on request.

import { serveSandbox } from "../child/serve.ts";

export type ProbeRequest =
  | { op: "read"; path: string }
  | { op: "write"; path: string; text: string }
  | { op: "realPath"; path: string }
  | { op: "run"; command: string; args?: string[] }
  | { op: "fetch"; url: string }
  | { op: "env"; name: string }
  | { op: "echo"; value: unknown }
  | { op: "events"; count: number }
  | { op: "fail"; message: string; code?: string }
  | { op: "crash"; message: string }
  | { op: "exit"; code: number }
  | { op: "hang" }
  | { op: "waitForAbort" };

/** `outcome` is "ok", "NotCapable" (Deno refused), or the name of another error. */
export interface ProbeResult {
  outcome: string;
  value?: unknown;
  message?: string;
}

async function attempt(action: () => Promise<unknown>): Promise<ProbeResult> {
  try {
    return { outcome: "ok", value: await action() };
  } catch (error) {
    const name = error instanceof Deno.errors.NotCapable ? "NotCapable" : (error as Error).name;
    return { outcome: name, message: (error as Error).message };
  }
}

async function run(command: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(command, { args, stdout: "piped", stderr: "null" }).output();
  return new TextDecoder().decode(out.stdout).trim();
}

async function fetchText(url: string): Promise<string> {
  const response = await fetch(url);
  return await response.text();
}

serveSandbox<ProbeRequest, ProbeResult, number>((request, ctx) => {
  switch (request.op) {
    case "read":
      return attempt(() => Deno.readTextFile(request.path));
    case "write":
      return attempt(() => Deno.writeTextFile(request.path, request.text));
    case "realPath":
      return attempt(() => Deno.realPath(request.path));
    case "run":
      return attempt(() => run(request.command, request.args ?? []));
    case "fetch":
      return attempt(() => fetchText(request.url));
    case "env":
      return attempt(() => Promise.resolve(Deno.env.get(request.name)));
    case "echo":
      return { outcome: "ok", value: request.value };
    case "events":
      for (let i = 0; i < request.count; i++) ctx.emit(i);
      return { outcome: "ok", value: request.count };
    case "fail":
      throw Object.assign(
        new Error(request.message),
        request.code === undefined ? {} : { code: request.code },
      );
    case "crash":
      setTimeout(() => {
        throw new Error(request.message);
      }, 0);
      return new Promise<never>(() => {});
    case "exit":
      ctx.exit(request.code);
      return new Promise<never>(() => {});
    case "hang":
      return new Promise<never>(() => {});
    case "waitForAbort":
      return new Promise<ProbeResult>((resolve) => {
        ctx.signal.addEventListener("abort", () => {
          resolve({ outcome: "aborted", message: (ctx.signal.reason as Error).message });
        });
      });
  }
});
