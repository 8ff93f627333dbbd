// Table tests of WebFetch's URL policy: schemes, credentials, the https upgrade (not on loopback) and
// which redirects are followed.

import assert from "node:assert/strict";
import { fetchUrlOf, followsRedirect, isLoopbackHost, MAX_URL_CHARS } from "./url_policy.ts";

const urls: [string, string | RegExp][] = [
  ["https://example.com/a?b=c", "https://example.com/a?b=c"],
  ["http://example.com/x", "https://example.com/x"],
  ["HTTP://Example.COM", "https://example.com/"],
  ["http://127.0.0.1:8080/page", "http://127.0.0.1:8080/page"],
  ["http://localhost:3000/", "http://localhost:3000/"],
  ["http://[::1]:3000/", "http://[::1]:3000/"],
  ["http://127.0.0.1.example.com/", "https://127.0.0.1.example.com/"],
  ["ftp://example.com/f", /only http and https URLs can be fetched, not ftp/],
  ["file:///etc/passwd", /not file/],
  ["javascript:alert(1)", /not javascript/],
  ["https://user:pw@example.com/", /user name or password are refused/],
  ["not a url", /is not a valid URL/],
  [`https://example.com/${"a".repeat(MAX_URL_CHARS)}`, /longer than 2000 characters/],
];

for (const [raw, expected] of urls) {
  Deno.test(`fetchUrlOf ${raw.slice(0, 60)}`, () => {
    const got = fetchUrlOf(raw);
    if (typeof expected === "string") assert.equal("url" in got ? got.url.href : got.error, expected);
    else assert.match("error" in got ? got.error : `url ${got.url.href}`, expected);
  });
}

Deno.test("isLoopbackHost: 127/8, ::1 and localhost names only", () => {
  for (const h of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "api.localhost"]) {
    assert.ok(isLoopbackHost(h), h);
  }
  for (const h of ["10.0.0.1", "192.168.1.1", "example.com", "localhost.example.com", "0.0.0.0"]) {
    assert.equal(isLoopbackHost(h), false, h);
  }
});

Deno.test("followsRedirect: same host (www. aside), never down to http, never to another host", () => {
  const u = (s: string) => new URL(s);
  const cases: [string, string, boolean][] = [
    ["https://example.com/a", "https://example.com/b", true],
    ["https://example.com/a", "https://www.example.com/b", true],
    ["https://www.example.com/a", "https://example.com/b", true],
    ["http://127.0.0.1:9/a", "https://127.0.0.1:9/b", true],
    ["https://example.com/a", "http://example.com/b", false],
    ["https://example.com/a", "https://evil.com/b", false],
    ["https://example.com/a", "https://example.com.evil.com/b", false],
    ["https://example.com/a", "https://example.com:8443/b", false],
    ["https://example.com/a", "ftp://example.com/b", false],
    ["https://example.com/a", "https://u:p@example.com/b", false],
  ];
  for (const [from, to, follows] of cases) {
    assert.equal(followsRedirect(u(from), u(to)), follows, `${from} → ${to}`);
  }
});
