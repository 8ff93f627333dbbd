// Entry of `deno task blade`: runs main() of the dev bundle (a code-split, minified bundle of main.ts
// in dist/dev/) when it is up to date with this checkout, else main() of the sources, and then a
// rebuild starts in the background (lib/sys/dev_bundle.ts). The import specifiers are computed on
// purpose: Deno then loads only the module graph that runs, not the sources' when the bundle does.
import { devBundleEntry } from "./lib/sys/dev_bundle.ts";
import { profileMark } from "./lib/sys/profile.ts";

profileMark("launch evaluated");
const sources = new URL("./main.ts", import.meta.url).href;
const bundle = devBundleEntry(sources);
profileMark(bundle === undefined ? "running the sources" : "running the dev bundle");
const { main } = (await import(bundle ?? sources)) as { main: () => Promise<never> };
await main();
