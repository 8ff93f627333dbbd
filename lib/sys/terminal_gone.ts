// Owns what the interactive session does once its terminal was closed (SIGHUP): the renderer (pi-tui,
// through node's `process.stdout`) may still write, and those writes fail asynchronously, as an
// `error` event that would end the process before the session is closed. Imported by the interactive
// session only (which loads node:process anyway), never on the `-p` path.

import process from "node:process";

/** From now on, failed writes to the closed terminal are dropped. */
export function ignoreTerminalGone(): void {
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});
}
