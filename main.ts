// Thin entry: build the real ports, run the CLI, exit with its code.
import { realPorts } from "./lib/sys/mod.ts";
import { realIo } from "./lib/cli/io.ts";
import { runCli } from "./lib/cli/main.ts";
import { profileMark } from "./lib/sys/profile.ts";

if (import.meta.main) {
  profileMark("static modules evaluated");
  const ports = realPorts();
  const tty = ports.env.stdoutIsTerminal();
  const io = realIo({ tty, color: tty && ports.env.get("NO_COLOR") === undefined });
  const code = await runCli(Deno.args, ports, io);
  profileMark("exit");
  Deno.exit(code);
}
