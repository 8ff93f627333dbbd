// Owns reading the host of a URL the way WebFetch rules see it, and the `domain:` patterns of those
// rules (docs/guides/permissions.md): `domain:example.com` is that host only, `domain:*.example.com`
// its subdomains. Pure.

/** The lower-case host name of a URL (no port, no trailing dot), or undefined when it is not a URL. */
export function urlHost(url: unknown): string | undefined {
  if (typeof url !== "string") return undefined;
  try {
    const host = new URL(url).hostname.toLowerCase().replace(/\.$/, "");
    return host === "" ? undefined : host;
  } catch {
    return undefined;
  }
}

/** A `domain:` pattern against a host: `example.com` is that host only, `*.example.com` its subdomains. */
export function domainMatches(pattern: string, host: string): boolean {
  const p = pattern.trim().toLowerCase().replace(/\.$/, "");
  if (p.startsWith("*.")) return host.endsWith(p.slice(1)) && host.length > p.length - 1;
  return p !== "" && host === p;
}
