// Owns which URLs WebFetch may fetch and how (docs/reference/tools.md "WebFetch"): http and https
// only, no credentials in the URL, http upgraded to https except on the loopback interface (local
// servers, and tests), and which redirects are followed (the same host only). Pure.

/** Longest URL WebFetch accepts. */
export const MAX_URL_CHARS = 2000;

/** Whether a host name is this machine's loopback interface. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  return h === "localhost" || h.endsWith(".localhost") || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}

/** The URL WebFetch fetches for `raw`, or why it will not. */
export function fetchUrlOf(raw: string): { url: URL } | { error: string } {
  if (raw.length > MAX_URL_CHARS) return { error: `the URL is longer than ${MAX_URL_CHARS} characters` };
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { error: `"${raw.slice(0, 200)}" is not a valid URL` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { error: `only http and https URLs can be fetched, not ${url.protocol.replace(/:$/, "")}` };
  }
  if (url.username !== "" || url.password !== "") {
    return { error: "URLs with a user name or password are refused (they would send credentials)" };
  }
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) url.protocol = "https:";
  return { url };
}

/**
 * Whether a redirect from `from` to `to` is followed: the same host (a www. prefix added or removed
 * counts as the same), and never from https down to http. Anything else is reported to the model,
 * which may fetch the new URL with a call of its own (and so under its own permission check).
 */
export function followsRedirect(from: URL, to: URL): boolean {
  if (to.protocol !== "http:" && to.protocol !== "https:") return false;
  if (from.protocol === "https:" && to.protocol === "http:") return false;
  if (to.username !== "" || to.password !== "") return false;
  const bare = (h: string) => h.toLowerCase().replace(/^www\./, "");
  return bare(from.hostname) === bare(to.hostname) && from.port === to.port;
}
