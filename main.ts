// Thin entry: build the real ports, run the CLI, exit with its code. `deno task blade` reaches it
// through launch.ts (the sources' main() or the dev bundle's copy of it).
import { realPorts } from "./lib/sys/mod.ts";
import { realIo } from "./lib/cli/io.ts";
import { runCli } from "./lib/cli/main.ts";
import { profileMark } from "./lib/sys/profile.ts";

export async function main(): Promise<never> {
  profileMark("static modules evaluated");
  const ports = realPorts();
  const tty = ports.env.stdoutIsTerminal();
  const io = realIo({ tty, color: tty && ports.env.get("NO_COLOR") === undefined });
  const code = await runCli(Deno.args, ports, io);
  profileMark("exit");
  Deno.exit(code);
}

if (import.meta.main) await main();
