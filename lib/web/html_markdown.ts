// Owns turning a fetched HTML page into Markdown for the model (docs/reference/tools.md "WebFetch"),
// with `turndown` and its GitHub-flavoured tables plugin (chosen by measurement: ARCHITECTURE.md
// "Decisions"). Both load on first use only, in the main thread: a run that fetches no page never
// loads them, and child Workers never do (their web calls are the main thread's).

import { importNpm } from "../npm_module.ts";

/** What Blade uses of turndown (the package ships no types). */
interface Converter {
  turndown(html: string): string;
  use(plugin: unknown): Converter;
  remove(tags: string[]): Converter;
}

type ConverterClass = new (options: Record<string, string>) => Converter;

/** Elements whose content is never text for a reader. */
const DROPPED = ["script", "style", "noscript", "template", "iframe", "object", "embed", "svg", "canvas"];

let converter: Promise<Converter> | undefined;

function load(): Promise<Converter> {
  return converter ??= Promise.all([
    importNpm("turndown", () => import("turndown"), { exports: ["default"] }),
    importNpm("turndown-plugin-gfm", () => import("turndown-plugin-gfm"), { exports: ["gfm"] }),
  ]).then(([turndown, gfm]) => {
    const Turndown = (turndown as { default: ConverterClass }).default;
    const service = new Turndown({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
    return service.use(gfm.gfm).remove(DROPPED);
  });
}

/** The page's Markdown, blank-line runs collapsed. */
export async function htmlToMarkdown(html: string): Promise<string> {
  const service = await load();
  return service.turndown(html).replace(/\n{3,}/g, "\n\n").trim();
}
